/**
 * Gutter text that fits: a label is written in full when it fits the gutter, else in a compact
 * form ("dp 0–63 · tp 0–7" → "dp0–63 tp0–7"), else cut with an ellipsis; the full text is always
 * on hover. Widths are measured with the page's own font where there is a canvas to measure with,
 * else estimated per character class, rounded up from Chromium's system-ui on Debian (DejaVu Sans,
 * CanvasRenderingContext2D.measureText at 100 px: space · , . 32–38 em/100, i l j 28–34, – 50,
 * M W m w 82–110, O G D 77–85, other letters and digits ≤ 64, bold ≤ 72).
 */

/** Em fractions by character class: [regular, bold]. */
const EM_NARROW = [0.33, 0.39] as const;
const EM_WIDE = [1.0, 1.1] as const;
const EM_ROUND = [0.8, 0.86] as const;
const EM_OTHER = [0.65, 0.73] as const;

function estimate(text: string, style: TextStyle): number {
  const b = style.bold ? 1 : 0;
  let em = 0;
  for (const ch of text) {
    if (' ·,.ilj'.includes(ch)) em += EM_NARROW[b];
    else if ('MWmw'.includes(ch)) em += EM_WIDE[b];
    else if ('OGDQ'.includes(ch)) em += EM_ROUND[b];
    else em += EM_OTHER[b];
  }
  return em * style.size;
}

export interface TextStyle {
  size: number;
  bold: boolean;
}

let context: OffscreenCanvasRenderingContext2D | null | undefined;

function measuringContext(): OffscreenCanvasRenderingContext2D | null {
  if (context === undefined)
    context = typeof OffscreenCanvas === 'undefined' ? null : new OffscreenCanvas(1, 1).getContext('2d');
  return context;
}

const widths = new Map<string, number>();

/** Pixels a text takes in the gutter's font. */
export function textWidth(text: string, style: TextStyle): number {
  const key = `${style.bold ? 'b' : ''}${style.size}|${text}`;
  let w = widths.get(key);
  if (w !== undefined) return w;
  const ctx = measuringContext();
  if (ctx) {
    ctx.font = `${style.bold ? 'bold ' : ''}${style.size}px system-ui, sans-serif`;
    w = ctx.measureText(text).width;
  } else w = estimate(text, style);
  // Labels repeat per device and per frame: a few thousand distinct ones at most.
  if (widths.size > 20_000) widths.clear();
  widths.set(key, w);
  return w;
}

/** The mesh coordinates written tight: "PP 0,16 · dp 0–63 · tp 0–7" → "PP0,16 dp0–63 tp0–7". */
export function compactLabel(text: string): string {
  return text.replace(/ · /g, ' ').replace(/\b([A-Za-z]+) (?=[0-9])/g, '$1');
}

/** The text, or its compact form, or the compact form cut with an ellipsis: whichever first fits `room` pixels. */
export function fitText(text: string, room: number, style: TextStyle): string {
  if (textWidth(text, style) <= room) return text;
  const compact = compactLabel(text);
  if (textWidth(compact, style) <= room) return compact;
  let lo = 0;
  let hi = compact.length;
  // The longest prefix that fits with its ellipsis.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(`${compact.slice(0, mid)}…`, style) <= room) lo = mid;
    else hi = mid - 1;
  }
  return `${compact.slice(0, lo).trimEnd()}…`;
}
