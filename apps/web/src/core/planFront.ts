/**
 * The planner's front as the panel plots it: a layout in words, and each point's coordinates on
 * the chosen measure (step time, lower is better; or tokens/s/GPU, higher is better) against its
 * peak memory.
 */

/** A layout as the planner describes it (`@stagecraft/planner`'s Layout), read loosely: the API is a boundary. */
export type PlannedLayout = Record<string, unknown>;

export type FrontMeasure = 'step' | 'tokens';

const GIB = 2 ** 30;

/** e.g. "PP4 (v2) × DP2 × TP2 · interleaved-1f1b · m=8×1 · ZeRO-1 · recompute". */
export function layoutLabel(layout: PlannedLayout): string {
  const n = (k: string) => (typeof layout[k] === 'number' ? (layout[k] as number) : undefined);
  const degrees: string[] = [];
  const pp = n('pp');
  if (pp !== undefined) degrees.push(`PP${pp}${(n('vp') ?? 1) > 1 ? ` (v${n('vp')})` : ''}`);
  for (const [key, name] of [
    ['dp', 'DP'],
    ['tp', 'TP'],
    ['ep', 'EP'],
    ['cp', 'CP'],
  ] as const) {
    const v = n(key);
    if (v !== undefined && (v > 1 || key === 'dp')) degrees.push(`${name}${v}`);
  }
  const parts = [degrees.join(' × ')];
  if (typeof layout.builder === 'string') parts.push(layout.builder);
  const m = n('microbatches');
  if (m !== undefined)
    parts.push(`m=${m}${n('microbatchSize') !== undefined ? `×${n('microbatchSize')}` : ''}`);
  const zero = n('zero');
  if (zero !== undefined && zero > 0) parts.push(`ZeRO-${zero}`);
  if (layout.recompute === true) parts.push('recompute');
  if (layout.offload === true) parts.push('offload');
  return parts.filter((p) => p !== '').join(' · ');
}

export interface FrontPoint {
  stepMs: number;
  peakMemoryBytes: number;
  tokensPerSecPerGpu?: number | undefined;
  fits: boolean;
}

/** The value a point plots at on `measure`, or null when the planner gave none (tokens of a synthetic model). */
export function measureOf(point: FrontPoint, measure: FrontMeasure): number | null {
  if (measure === 'step') return point.stepMs;
  return point.tokensPerSecPerGpu ?? null;
}

export function memoryGiB(point: FrontPoint): number {
  return point.peakMemoryBytes / GIB;
}

/** Tokens per second per GPU can be plotted only when every point has it. */
export function tokensAvailable(points: readonly FrontPoint[]): boolean {
  return points.length > 0 && points.every((p) => p.tokensPerSecPerGpu !== undefined);
}
