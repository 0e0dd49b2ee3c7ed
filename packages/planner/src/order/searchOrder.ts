/**
 * The order search (docs/planner.md, "Order search"): the builders that apply to the design's
 * placement, the Zero Bubble heuristic with each of its switches, and a local search from the
 * best of them, all on stage costs measured on the design; the few best candidates then compiled
 * and simulated, and the fastest that fits the memory limit on every device kept. The builders
 * are candidates too, so the answer is never slower than the best builder that fits.
 */
import { type Design, type Issue, now } from '@stagecraft/ir';
import type { Action, BuiltSchedule, Slot } from '@stagecraft/passes';
import {
  type OrderCandidate,
  type OrderSearchOptions,
  type OrderSearchResult,
  orderSearchOptionsSchema,
} from '../request.ts';
import { issueText, type SimulatedDesign, simulateDesign } from '../simulatedDesign.ts';
import { improveOrders } from './localSearch.ts';
import {
  type ActionCode,
  decode,
  encode,
  type OrderShape,
  PASS_BI,
  PASS_BW,
  PASS_F,
  type StageCosts,
  shapeOf,
  stashPeak,
  timeOrders,
} from './orderTiming.ts';
import { applicableBuilders, type Pipeline, readPipeline, withBuilder, withOrders } from './pipeline.ts';
import { measureStageCosts } from './stageCosts.ts';
import { GREEDY_SWITCHES, zeroBubbleOrders } from './zeroBubbleGreedy.ts';

const DEFAULT_BUDGET_MS = 2_000;
/** Local-search moves per action of the pipeline: enough for the small cases to reach their optimum (order.test.ts). */
const MOVES_PER_ACTION = 400;
/** Surrogate-ranked candidates compiled and simulated at the end. */
const CONFIRMED = 4;

interface Candidate extends OrderCandidate {
  design: Design;
}

export function searchOrder(design: Design, options: OrderSearchOptions): OrderSearchResult {
  const t0 = now();
  const parsed = orderSearchOptionsSchema.safeParse(options);
  if (!parsed.success)
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    };
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  const stop = () => options.signal?.aborted === true || now() - t0 > budgetMs;
  const read = readPipeline(design);
  if (!read.ok) return read;
  const p = read.pipeline;
  const shape = shapeOf(p);
  const log: string[] = [];

  const limits = deviceLimits(design, p, options.memoryLimit);
  if (!limits.ok) return limits;
  const limitOf = limits.limitOf;
  const judge: Judge = (source, d) => {
    const s = simulateDesign(d);
    if (!s.ok) return s.errors;
    return candidate(source, d, s, limitOf);
  };

  const baselines = judgeBuilders(design, p, judge, log);
  const measured = measureOnProbe(design, p, shape, limitOf, log);
  if (!measured.ok) return measured;
  const ranked = rankOrders(p, shape, measured, { seed: options.seed ?? 1, stop }, log);
  const confirmed = confirmRanked(
    ranked,
    (r) => judge(r.source, withOrders(design, p, toBuilt(shape, r.orders))),
    log,
  );
  return chooseFastestFitting(design, baselines, confirmed, limits, t0, log);
}

type Judge = (source: string, d: Design) => Candidate | Issue[];

/** The builders that apply to the placement, each compiled and simulated as it stands. */
function judgeBuilders(design: Design, p: Pipeline, judge: Judge, log: string[]): Candidate[] {
  const baselines: Candidate[] = [];
  for (const { name } of applicableBuilders(p)) {
    const c = judge(name, withBuilder(design, p, name));
    if (Array.isArray(c)) log.push(`builder ${name}: does not compile (${issueText(c)})`);
    else {
      baselines.push(c);
      log.push(`builder ${name}: step ${c.stepMs.toFixed(3)} ms, ${c.fits ? 'fits' : 'over the limit'}`);
    }
  }
  return baselines;
}

type Measured = { ok: true; costs: StageCosts; stashLimit: number[] } | { ok: false; errors: Issue[] };

/** Costs measured on an order of this pipeline (the heuristic on unit costs, memory unbounded). */
function measureOnProbe(
  design: Design,
  p: Pipeline,
  shape: OrderShape,
  limitOf: (device: number) => number,
  log: string[],
): Measured {
  const unit = unitCosts(shape);
  const probeOrders = zeroBubbleOrders(
    shape,
    unit,
    new Array(p.ranks).fill(Number.POSITIVE_INFINITY),
    GREEDY_SWITCHES[0]!,
  );
  if (!probeOrders) throw new Error('the heuristic left a pipeline without memory bounds unscheduled');
  const probe = simulateDesign(withOrders(design, p, toBuilt(shape, probeOrders)), true);
  if (!probe.ok) return { ok: false, errors: probe.errors };
  const costs = measureStageCosts(p, probe.plan, probe.sim);
  const stashLimit = rankStashLimits(p, shape, costs, probeOrders, probe, limitOf);
  log.push(
    `stage costs measured: F ${fmt(costs.F)} ms, BI ${fmt(costs.BI)} ms, BW ${fmt(costs.BW)} ms; p2p ${fmt(costs.sendF)} ms`,
  );
  return { ok: true, costs, stashLimit };
}

type Ranked = { source: string; orders: ActionCode[][]; stepMs: number };

/**
 * Orders timed on the measured costs: the heuristic under each switch, the builders as starts, and
 * the local search from the fastest of them. Orders over a rank's stash limit are left out.
 */
function rankOrders(
  p: Pipeline,
  shape: OrderShape,
  { costs, stashLimit }: { costs: StageCosts; stashLimit: number[] },
  search: { seed: number; stop: () => boolean },
  log: string[],
): Ranked[] {
  const ranked: Ranked[] = [];
  const consider = (source: string, orders: ActionCode[][] | undefined) => {
    if (!orders) return;
    if (orders.some((o, r) => stashPeak(shape, costs, o) > stashLimit[r]!)) return;
    const t = timeOrders(shape, costs, orders);
    if (t) ranked.push({ source, orders, stepMs: t.stepMs });
  };
  for (const sw of GREEDY_SWITCHES) consider('zb-auto', zeroBubbleOrders(shape, costs, stashLimit, sw));
  const bestGreedy = ranked.reduce<Ranked | undefined>(
    (b, r) => (b && b.stepMs <= r.stepMs ? b : r),
    undefined,
  );
  log.push(
    bestGreedy
      ? `Zero Bubble heuristic: ${ranked.length} of ${GREEDY_SWITCHES.length} switch settings fit; best ${bestGreedy.stepMs.toFixed(3)} ms on the measured costs`
      : 'Zero Bubble heuristic: no switch setting fits the limit',
  );
  for (const { name, built } of applicableBuilders(p)) consider(`${name} (start)`, fromBuilt(shape, built));
  const starts = [...ranked].sort((a, b) => a.stepMs - b.stepMs);
  const start = starts[0];
  if (start) {
    const moves = MOVES_PER_ACTION * 3 * shape.stages * shape.microbatches;
    const improved = improveOrders(shape, costs, stashLimit, start.orders, { ...search, moves });
    log.push(
      `local search from ${start.source}: ${improved.movesTried} moves, ${improved.improvements} improvements, ${start.stepMs.toFixed(3)} → ${improved.stepMs.toFixed(3)} ms on the measured costs`,
    );
    ranked.push({ source: 'local-search', orders: improved.orders, stepMs: improved.stepMs });
  }
  return ranked;
}

/** The few best distinct orders compiled and simulated; the builders' starts are already baselines. */
function confirmRanked(
  ranked: readonly Ranked[],
  judge: (r: Ranked) => Candidate | Issue[],
  log: string[],
): Candidate[] {
  const confirmed: Candidate[] = [];
  const seen = new Set<string>();
  // The heuristic's best always, so its simulated figure is reported beside the search's.
  const sorted = [...ranked].sort((a, b) => a.stepMs - b.stepMs);
  const greedyBest = sorted.find((r) => r.source === 'zb-auto');
  for (const r of greedyBest ? [greedyBest, ...sorted] : sorted) {
    if (r.source.endsWith('(start)')) continue;
    const key = JSON.stringify(r.orders);
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > CONFIRMED) break;
    const c = judge(r);
    if (Array.isArray(c)) log.push(`${r.source}: refused by the compiler (${issueText(c)})`);
    else {
      confirmed.push(c);
      log.push(
        `${r.source}: simulated step ${c.stepMs.toFixed(3)} ms, ${c.fits ? 'fits' : 'over the limit'}`,
      );
    }
  }
  return confirmed;
}

function chooseFastestFitting(
  design: Design,
  baselines: Candidate[],
  confirmed: Candidate[],
  limits: Extract<Limits, { ok: true }>,
  t0: number,
  log: string[],
): OrderSearchResult {
  let best: Candidate | undefined;
  for (const c of [...baselines, ...confirmed])
    if (c.fits && (!best || c.stepMs < best.stepMs - 1e-9)) best = c;
  if (!best) {
    const all = [...baselines, ...confirmed];
    const least = Math.min(...all.flatMap((c) => c.peakMemoryBytes));
    return {
      ok: false,
      errors: [
        {
          path: 'memoryLimit',
          message: `no order of this pipeline fits the limit (the least peak found is ${gib(least)} GiB)`,
        },
      ],
    };
  }
  log.push(`chosen: ${best.source}, ${best.stepMs.toFixed(3)} ms (${(now() - t0).toFixed(0)} ms of search)`);
  const { design: chosen, ...bestFigures } = best;
  const heuristic = confirmed
    .filter((c) => c.source === 'zb-auto' && c.fits)
    .reduce<Candidate | undefined>((b, c) => (b && b.stepMs <= c.stepMs ? b : c), undefined);
  return {
    ok: true,
    design: { ...chosen, name: `${design.name ?? 'design'} (planned order)` },
    stepMs: best.stepMs,
    peakMemoryBytes: best.peakMemoryBytes,
    limitBytes: limits.devices.map((d) => limits.limitOf(d)),
    baselines: baselines.map(figuresOf),
    best: bestFigures,
    ...(heuristic ? { heuristic: figuresOf(heuristic) } : {}),
    log,
  };
}

const figuresOf = ({ design: _d, ...figures }: Candidate): OrderCandidate => figures;

function candidate(
  source: string,
  design: Design,
  s: SimulatedDesign,
  limitOf: (device: number) => number,
): Candidate {
  const devices = [...s.peakByDevice.keys()].sort((a, b) => a - b);
  const peaks = devices.map((d) => s.peakByDevice.get(d)!);
  return {
    source,
    design,
    stepMs: s.stepMs,
    peakMemoryBytes: peaks,
    fits: devices.every((d, i) => peaks[i]! <= limitOf(d) * (1 + 1e-12)),
  };
}

type Limits =
  | { ok: true; limitOf: (device: number) => number; devices: number[] }
  | { ok: false; errors: Issue[] };

/**
 * Bytes each device may peak at: the absolute limit, or the device's resident state plus k times
 * the most that 1F1B (one chunk per rank, same ranks and microbatches) stashes on any device.
 */
function deviceLimits(design: Design, p: Pipeline, limit: OrderSearchOptions['memoryLimit']): Limits {
  const { edits: _edits, chunks: _chunks, ...schedule } = p.schedule;
  const reference = simulateDesign({
    ...design,
    directives: design.directives.map((d, i) => (i === p.at ? { ...schedule, builder: '1f1b' } : d)),
  });
  if (!reference.ok)
    return {
      ok: false,
      errors: [
        {
          path: 'memoryLimit',
          message: `1F1B does not run this pipeline, so it cannot set the limit: ${issueText(reference.errors)}`,
        },
      ],
    };
  const devices = [...reference.peakByDevice.keys()].sort((a, b) => a - b);
  if ('bytes' in limit) return { ok: true, limitOf: () => limit.bytes, devices };
  const k = limit.times1F1B;
  // One stash limit for every device, as the Zero Bubble paper's M_limit (§3.1): 1F1B's largest.
  const stash = Math.max(0, ...reference.sim.devices.map((d) => d.peakActivationBytes));
  const byDevice = new Map<number, number>();
  for (const d of reference.sim.devices)
    byDevice.set(d.device, d.peakMemoryBytes - d.peakActivationBytes + k * stash);
  return { ok: true, limitOf: (d) => byDevice.get(d) ?? Number.POSITIVE_INFINITY, devices };
}

/**
 * Stash each rank may hold in the measured costs' accounting: its devices' limit less what the
 * simulator counted beyond the stash on the probe order (resident state, buffers in flight).
 */
function rankStashLimits(
  p: Pipeline,
  shape: OrderShape,
  costs: StageCosts,
  probeOrders: ActionCode[][],
  probe: SimulatedDesign,
  limitOf: (device: number) => number,
): number[] {
  const rps = p.stages.length / shape.stages;
  return probeOrders.map((order, r) => {
    const mine = new Set<number>();
    p.placement.forEach((rank, vs) => {
      if (rank === r) for (let i = 0; i < rps; i++) mine.add(p.stages[vs * rps + i]!);
    });
    const stash = stashPeak(shape, costs, order);
    let limit = Number.POSITIVE_INFINITY;
    for (const d of probe.plan.devices) {
      if (d.group < 0 || !d.stages.some((pp) => mine.has(pp))) continue;
      const peak = probe.peakByDevice.get(d.device) ?? 0;
      limit = Math.min(limit, limitOf(d.device) - (peak - stash));
    }
    return limit;
  });
}

function unitCosts(s: OrderShape): StageCosts {
  const ones = new Array<number>(s.stages).fill(1);
  const zeros = new Array<number>(s.stages).fill(0);
  return {
    F: ones,
    BI: ones,
    BW: ones,
    sendF: zeros,
    sendB: zeros,
    alloc: ones,
    freeBI: zeros,
    freeBW: ones,
  };
}

const PASSES = ['F', 'BI', 'BW'] as const;

export function toBuilt(s: OrderShape, orders: readonly (readonly ActionCode[])[]): BuiltSchedule {
  const programs = orders.map((order) =>
    order.map((a): Slot => {
      const { pass, stage, mb } = decode(s, a);
      return [{ stage, mb, pass: PASSES[pass]! } satisfies Action];
    }),
  );
  return { placement: s.placement, programs };
}

/** A builder's orders as single actions: a fused B as its BI then its BW, an overlapped slot in its order. */
export function fromBuilt(s: OrderShape, built: BuiltSchedule): ActionCode[][] {
  return built.programs.map((program) =>
    program.flatMap((slot) =>
      slot.flatMap((a) => {
        if (a.pass === 'F') return [encode(s, PASS_F, a.stage, a.mb)];
        if (a.pass === 'BI') return [encode(s, PASS_BI, a.stage, a.mb)];
        if (a.pass === 'BW') return [encode(s, PASS_BW, a.stage, a.mb)];
        return [encode(s, PASS_BI, a.stage, a.mb), encode(s, PASS_BW, a.stage, a.mb)];
      }),
    ),
  );
}

const fmt = (xs: readonly number[]) => xs.map((x) => +x.toFixed(3)).join('/');
const gib = (b: number) => (b / 2 ** 30).toFixed(2);
