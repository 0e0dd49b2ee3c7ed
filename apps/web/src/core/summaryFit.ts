/**
 * A directive's summary in the program list's narrow rows. Cut mid-word, "split_backward PP=1"
 * read "split_backward PP…", and a cut number reads as another number: a summary is cut only
 * between words, with an ellipsis, and moves to a line of its own below the op when the row
 * beside the op is too short for it (the full text stays in the row's tooltip).
 */

/**
 * Whether `text` fits, measuring whole text only when its first words fit: more words never read
 * narrower, so a prefix that does not fit answers for the whole. The prefixes double, so a text
 * of 2,048 device ids (10k characters, the measure of it 20–80 ms on DeepSeek-V3) costs a few
 * short measures.
 */
function fitsWhole(words: readonly string[], fits: (s: string) => boolean): boolean {
  for (let n = 8; n < words.length; n *= 2) if (!fits(words.slice(0, n).join(' '))) return false;
  return fits(words.join(' '));
}

/** `text` if it fits, else its longest run of whole words that fits with " …", else "…". */
export function clipAtWord(text: string, fits: (s: string) => boolean): string {
  const words = text.split(' ');
  if (fitsWhole(words, fits)) return text;
  // A separator left at the end ("m=8 ·", "[0, 1,") would read as the start of what was cut.
  const clipped = (n: number) => {
    const head = words
      .slice(0, n)
      .join(' ')
      .replace(/[\s·,;:→=-]+$/u, '');
    return head ? `${head} …` : null;
  };
  // The longest run that fits is found by bisection, in a dozen measures where a summary of 2,048
  // device ids took thousands (300 ms on DeepSeek-V3), between runs found by doubling, so no
  // measure is of much more than twice what fits.
  let lo = 0;
  let hi = 1;
  while (hi < words.length - 1) {
    const c = clipped(hi);
    if (c !== null && !fits(c)) break;
    lo = hi;
    hi *= 2;
  }
  hi = Math.min(hi, words.length - 1);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const c = clipped(mid);
    if (c === null || fits(c)) lo = mid;
    else hi = mid - 1;
  }
  for (let n = lo; n > 0; n--) {
    const c = clipped(n);
    if (c && fits(c)) return c;
  }
  return '…';
}

export interface SummaryRoom {
  /** Width left beside the op on the row. */
  beside: number;
  /** Width of a line of its own. */
  line: number;
}

/** Where the summary goes and what of it shows, for a `width` that measures text. */
export function fitSummary(
  text: string,
  room: SummaryRoom,
  width: (s: string) => number,
): { text: string; below: boolean } {
  if (fitsWhole(text.split(' '), (s) => width(s) <= room.beside)) return { text, below: false };
  return { text: clipAtWord(text, (s) => width(s) <= room.line), below: true };
}
