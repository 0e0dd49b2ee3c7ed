/**
 * `annotate`: which pipeline stage each unit of a transformer goes to, and the tags of its blocks.
 * Three ways to say the stages — balanced contiguous cuts by compute time (`PP` alone), explicit
 * cut points (`cuts`), or Megatron-LM's layout string (`layout`) — all checked so that no layer is
 * dropped or placed twice, and none leaves a stage empty.
 */
import { type Annotate, CompileError, formatPath, type Issue, type PathSegment } from '@stagecraft/ir';
import { parsePipelineLayout } from './pipelineLayout.ts';
import type { TransformerUnit, UnitKind } from './transformerBlocks.ts';

const NAMES: Record<UnitKind, string> = { E: 'embedding', t: 'layer', m: 'MTP module', L: 'loss' };

function unitWork(u: TransformerUnit): number {
  let w = 0;
  for (const b of u.blocks) w += b.flops.F + b.flops.BI + b.flops.BW;
  return w;
}

/**
 * Contiguous split of `weights` into `parts` non-empty runs minimising the heaviest run (the
 * pipeline's slowest stage sets its pace). Returns the start index of each run after the first.
 */
export function balancedCuts(weights: readonly number[], parts: number): number[] {
  const n = weights.length;
  const prefix = [0];
  for (const w of weights) prefix.push(prefix[prefix.length - 1]! + w);
  const sum = (a: number, b: number) => prefix[b]! - prefix[a]!;
  // best[k][i]: the least heaviest run splitting the first i units into k runs.
  let best = Array.from({ length: n + 1 }, (_, i) => (i >= 1 ? sum(0, i) : Number.POSITIVE_INFINITY));
  const choice: number[][] = [];
  for (let k = 2; k <= parts; k++) {
    const next = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY);
    const arg = new Array<number>(n + 1).fill(-1);
    for (let i = k; i <= n; i++) {
      for (let j = k - 1; j < i; j++) {
        const v = Math.max(best[j]!, sum(j, i));
        // Ties go to the later cut: earlier stages take the extra unit, the last keeps the head.
        if (v <= next[i]!) {
          next[i] = v;
          arg[i] = j;
        }
      }
    }
    choice[k] = arg;
    best = next;
  }
  const cuts: number[] = [];
  let i = n;
  for (let k = parts; k >= 2; k--) {
    const j = choice[k]![i]!;
    cuts.unshift(j);
    i = j;
  }
  return cuts;
}

/** Stage index of each unit, in forward order. */
export function assignStages(
  units: readonly TransformerUnit[],
  annotate: Annotate | undefined,
  path: readonly PathSegment[],
): number[] {
  const at = (...p: PathSegment[]) => formatPath([...path, ...p]);
  const fail = (issues: Issue[] | Issue): never => {
    throw new CompileError(issues);
  };
  const a = annotate ?? {};
  const forms = (['cuts', 'layout'] as const).filter((k) => a[k] !== undefined);
  if (forms.length > 1) fail({ path: at('layout'), message: 'give either cuts or layout, not both' });

  if (a.layout !== undefined) return fromLayout(units, a.layout, a.PP, at);

  // Layer units (t and m) between the embedding and the loss; cuts index into them.
  const inner = units.length - 2;
  if (a.cuts !== undefined) {
    const cuts = a.cuts;
    if (a.PP !== undefined && a.PP !== cuts.length + 1)
      fail({
        path: at('PP'),
        message: `PP is ${a.PP} but ${cuts.length} cut(s) make ${cuts.length + 1} stages`,
      });
    const issues: Issue[] = [];
    cuts.forEach((c, k) => {
      if (c > inner)
        issues.push({
          path: at('cuts', k),
          message: `cut at ${c} is past the last layer (cuts run from 0, embedding alone, to ${inner}, loss alone)`,
        });
      const prev = cuts[k - 1];
      if (prev !== undefined && c === prev)
        issues.push({ path: at('cuts', k), message: `repeats cut ${prev}: stage ${k} would hold no layer` });
      if (prev !== undefined && c < prev)
        issues.push({
          path: at('cuts', k),
          message: `cuts must increase: ${c} after ${prev} would place ${rangeName(units, c, prev)} twice`,
        });
    });
    if (issues.length > 0) fail(issues);
    // A cut at 0 leaves the embedding alone; a cut at `inner` leaves the loss alone.
    return stagesFromCuts(
      units.length,
      cuts.map((c) => c + 1),
    );
  }

  const pp = a.PP ?? 1;
  if (pp > units.length)
    fail({
      path: at('PP'),
      message: `${pp} stages for ${units.length} units (embedding, ${inner} layers, loss): at most ${units.length}`,
    });
  return stagesFromCuts(units.length, balancedCuts(units.map(unitWork), pp));
}

function stagesFromCuts(n: number, cuts: readonly number[]): number[] {
  const out: number[] = [];
  let s = 0;
  for (let u = 0; u < n; u++) {
    while (s < cuts.length && u >= cuts[s]!) s++;
    out.push(s);
  }
  return out;
}

/** `layers 8–15` for units (1-based inner indices) from..to exclusive. */
function rangeName(units: readonly TransformerUnit[], from: number, to: number): string {
  const a = units[from + 1]?.layer;
  const b = units[to]?.layer;
  return a === b ? `layer ${a}` : `layers ${a}–${b}`;
}

function fromLayout(
  units: readonly TransformerUnit[],
  layout: string,
  pp: number | undefined,
  at: (...p: PathSegment[]) => string,
): number[] {
  const path = at('layout');
  const fail = (message: string): never => {
    throw new CompileError({ path, message });
  };
  const parsed = parsePipelineLayout(layout);
  if (!parsed.ok) return fail(parsed.message);
  const { stages } = parsed;
  if (pp !== undefined && pp !== stages.length)
    throw new CompileError({
      path: at('PP'),
      message: `PP is ${pp} but the layout has ${stages.length} stages (PP counts every stage: Megatron's pipeline size × virtual stages)`,
    });
  const empty = stages.findIndex((s) => s.length === 0);
  if (empty >= 0) fail(`stage ${empty} is empty: every stage must hold at least one of E, t, m, L`);

  const flat: { sym: UnitKind; stage: number }[] = [];
  stages.forEach((st, k) => {
    for (const sym of st) flat.push({ sym, stage: k });
  });
  const model = `the model is E, t × ${count(units, 't')}${count(units, 'm') > 0 ? `, m × ${count(units, 'm')}` : ''}, L`;
  for (const sym of ['E', 'L'] as const) {
    const n = flat.filter((f) => f.sym === sym).length;
    if (n === 0) fail(`the layout has no ${sym}: it drops the ${NAMES[sym]} (${model})`);
    if (n > 1)
      fail(`the layout places the ${NAMES[sym]} (${sym}) ${n} times: it must appear once (${model})`);
  }
  for (const sym of ['t', 'm'] as const) {
    const have = count(units, sym);
    const placed = flat.filter((f) => f.sym === sym);
    const first = units.find((x) => x.kind === sym)?.layer ?? units.length - 2;
    if (placed.length < have) {
      // Layers are numbered in layout order, so the ones missing are the last.
      const from = first + placed.length;
      const to = first + have - 1;
      const what =
        from === to
          ? describeKind(sym, from)
          : `${sym === 't' ? 'layers' : 'the MTP modules at layers'} ${from}–${to}`;
      fail(
        `the layout places ${placed.length} ${plural(sym, placed.length)} (${sym}) but the model has ${have}: it drops ${what}`,
      );
    }
    if (placed.length > have) {
      const extra = placed[have]!;
      fail(
        `the layout places ${placed.length} ${plural(sym, placed.length)} (${sym}) but the model has ${have}: stage ${extra.stage} duplicates a layer (there is no ${describeKind(sym, first + have)})`,
      );
    }
  }
  const e = flat[0]!;
  if (e.sym !== 'E') fail(`stage ${e.stage} starts with ${e.sym}: the embedding (E) must come first`);
  const l = flat[flat.length - 1]!;
  if (l.sym !== 'L') fail(`stage ${l.stage} ends with ${l.sym}: the loss (L) must come last`);
  const firstM = flat.findIndex((f) => f.sym === 'm');
  if (firstM >= 0) {
    const lateT = flat.findIndex((f, k) => k > firstM && f.sym === 't');
    if (lateT >= 0)
      fail(
        `stage ${flat[lateT]!.stage} places a layer (t) after an MTP module (m): MTP modules follow the last layer`,
      );
  }
  return flat.map((f) => f.stage);
}

function describeKind(k: 't' | 'm', layer: number): string {
  return k === 't' ? `layer ${layer}` : `the MTP module at layer ${layer}`;
}

function count(units: readonly TransformerUnit[], k: UnitKind): number {
  return units.filter((u) => u.kind === k).length;
}

function plural(k: UnitKind, n: number): string {
  const name = k === 't' ? 'layer' : k === 'm' ? 'MTP module' : NAMES[k];
  return n === 1 ? name : `${name}s`;
}
