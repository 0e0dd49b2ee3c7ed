/**
 * Megatron-LM's `--pipeline-model-parallel-layout` string: stages split by `|`, `E` embedding, `t`
 * decoder layer, `m` MTP module, `L` loss (final norm + head + loss); `x*n` repeats one symbol,
 * `(…)*n` repeats a group (which may hold `|`); commas are cosmetic. `"Et*3|(tt|)*29,m|L"` is
 * DeepSeek-V3 over 32 stages. Groups may nest here (Megatron's own parser does not need them to).
 */
import type { UnitKind } from './transformerBlocks.ts';

export type LayoutResult = { ok: true; stages: UnitKind[][] } | { ok: false; message: string };

/** Repetitions beyond this are a typo, not a model: the expanded layout would not fit in memory. */
const MAX_SYMBOLS = 100_000;

const SYMBOLS = new Set<string>(['E', 't', 'm', 'L']);

type Item = ({ kind: 'sym'; s: UnitKind | '|' } | { kind: 'group'; items: Item[] }) & { times: number };

export function parsePipelineLayout(text: string): LayoutResult {
  let i = 0;
  const fail = (message: string): LayoutResult => ({ ok: false, message });
  const count = (): number | string => {
    // After `*`: a positive integer.
    const m = /^\d+/.exec(text.slice(i));
    if (!m) return `expected a repeat count after "*" at character ${i + 1}`;
    i += m[0].length;
    const n = Number(m[0]);
    if (n < 1) return `repeat count ${n} at character ${i} must be at least 1`;
    return n;
  };
  const parseSeq = (depth: number): Item[] | string => {
    const items: Item[] = [];
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === ',' || ch === ' ') {
        i++;
        continue;
      }
      if (ch === ')') {
        if (depth === 0) return `unmatched ")" at character ${i + 1}`;
        return items;
      }
      let item: Item;
      if (ch === '(') {
        const open = i;
        i++;
        const inner = parseSeq(depth + 1);
        if (typeof inner === 'string') return inner;
        if (text[i] !== ')') return `unclosed "(" at character ${open + 1}`;
        i++;
        item = { kind: 'group', items: inner, times: 1 };
      } else if (ch === '|' || SYMBOLS.has(ch)) {
        i++;
        item = { kind: 'sym', s: ch as UnitKind | '|', times: 1 };
      } else if (ch === '*') {
        return `"*" at character ${i + 1} has nothing to repeat`;
      } else {
        return `unknown symbol ${JSON.stringify(ch)} at character ${i + 1} (E embedding, t layer, m MTP, L loss, | stage boundary)`;
      }
      if (text[i] === '*') {
        i++;
        const n = count();
        if (typeof n === 'string') return n;
        item.times = n;
      }
      items.push(item);
    }
    if (depth > 0) return 'unclosed "("';
    return items;
  };
  const items = parseSeq(0);
  if (typeof items === 'string') return fail(items);

  // Sized before it is expanded, so a huge repeat count fails fast instead of filling memory.
  const size = (list: Item[]): number =>
    list.reduce(
      (a, it) => Math.min(a + it.times * (it.kind === 'sym' ? 1 : size(it.items)), MAX_SYMBOLS + 1),
      0,
    );
  if (size(items) > MAX_SYMBOLS) return fail(`expands to more than ${MAX_SYMBOLS} symbols`);
  const stages: UnitKind[][] = [[]];
  const emit = (list: Item[]): void => {
    for (const it of list)
      for (let k = 0; k < it.times; k++) {
        if (it.kind === 'group') emit(it.items);
        else if (it.s === '|') stages.push([]);
        else stages[stages.length - 1]!.push(it.s);
      }
  };
  emit(items);
  return { ok: true, stages };
}

/** The layout back in Megatron's compact form, one run-length group per stage: `E,t*3|t*2|…`. */
export function formatPipelineLayout(stages: readonly (readonly UnitKind[])[]): string {
  return stages
    .map((s) => {
      const runs: string[] = [];
      for (let k = 0; k < s.length; ) {
        let n = 1;
        while (s[k + n] === s[k]) n++;
        runs.push(n > 1 ? `${s[k]}*${n}` : s[k]!);
        k += n;
      }
      return runs.join(',');
    })
    .join('|');
}
