/**
 * The layout search (docs/planner.md, "Layout search"): every layout of the grid (layoutSpace.ts),
 * the ones that break a structural rule or cannot fit under the memory bound pruned before
 * anything is built, the rest tried from the lowest step estimate up (ties in the seed's order),
 * each skipped when a point of the front already beats its bounds on both axes, else compiled and
 * simulated on a worker thread. The Pareto front of step time against peak memory of the points
 * that fit is what it answers with, the designs of front points only.
 */
import {
  type Design,
  deviceCount,
  expandCluster,
  type Issue,
  now,
  parseDesign,
  resolveTransformer,
  type TransformerModel,
} from '@stagecraft/ir';
import { type CostCluster, resolveCluster } from '@stagecraft/sim';
import { type LayoutEvaluation, LayoutEvaluator } from '../layoutEvaluation.ts';
import { seededRandom } from '../order/localSearch.ts';
import {
  type Layout,
  type LayoutPoint,
  type LayoutSearchOptions,
  type LayoutSearchRequest,
  type LayoutSearchResult,
  layoutSearchRequestSchema,
} from '../request.ts';
import { layoutDesign } from './layoutDesign.ts';
import { layoutSpace, type SpaceFacts } from './layoutSpace.ts';
import { ParetoFront } from './paretoFront.ts';
import { PipelineBounds } from './pipelineBounds.ts';

const DEFAULT_BUDGET_MS = 60_000;
/** Microbatch sizes tried besides the design's own: Megatron-LM's recipes use 1 and 2 for long sequences. */
const MICROBATCH_SIZES = [1, 2];

/** A request the search cannot run, with where and why. */
export class LayoutRequestError extends Error {
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
  }
}

interface Candidate {
  index: number;
  layout: Layout;
  stepBound: number;
  memoryBound: number;
  order: number;
}

interface Evaluator {
  evaluate(design: Design): Promise<LayoutEvaluation>;
  readonly size: number;
  close(): Promise<void>;
}

export async function searchLayouts(
  request: LayoutSearchRequest,
  options: LayoutSearchOptions = {},
): Promise<LayoutSearchResult> {
  const t0 = now();
  const parsed = layoutSearchRequestSchema.safeParse(request);
  if (!parsed.success)
    throw new LayoutRequestError(
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  const designResult = parseDesign(request.design);
  if (!designResult.ok)
    throw new LayoutRequestError(designResult.errors.map((e) => ({ ...e, path: `design.${e.path}` })));
  const design = designResult.design;
  const facts = spaceFacts(design, request);
  const budgetMs = request.budgetMs ?? DEFAULT_BUDGET_MS;
  const maxMemory = request.maxMemoryBytes ?? facts.gpuMemoryBytes;

  let spaceSize = 0;
  let pruned = 0;
  const candidates: Candidate[] = [];
  const random = seededRandom(request.seed ?? 1);
  const bounds = new PipelineBounds(facts.model, facts.cost);
  for (const entry of layoutSpace(facts.space)) {
    spaceSize++;
    if (entry.pruned) {
      pruned++;
      continue;
    }
    // A builder's own minimums (layoutDesign checks them) before its order is timed.
    if (typeof layoutDesign(design, entry.layout) === 'string') {
      pruned++;
      continue;
    }
    const bound = bounds.of(entry.layout);
    if (bound.memoryBytes > maxMemory) {
      pruned++;
      continue;
    }
    candidates.push({
      index: spaceSize - 1,
      layout: entry.layout,
      memoryBound: bound.memoryBytes,
      stepBound: bound.stepMs,
      order: random(),
    });
  }
  // Fastest bound first: the front's fast end is found early and bounds the rest.
  candidates.sort((a, b) => a.stepBound - b.stepBound || a.memoryBound - b.memoryBound || a.order - b.order);

  const front = new ParetoFront<LayoutPoint & { index: number }>();
  const evaluator = await startEvaluator(options.workers);
  let tried = 0;
  let stoppedEarly = false;
  const progress = () =>
    options.onProgress?.({
      tried,
      pruned,
      frontSize: front.size,
      elapsedMs: now() - t0,
      timeLeftMs: Math.max(0, budgetMs - (now() - t0)),
    });
  const stop = () => options.signal?.aborted === true || now() - t0 > budgetMs;
  try {
    let next = 0;
    const running = new Set<Promise<void>>();
    while (next < candidates.length || running.size > 0) {
      while (running.size < evaluator.size && next < candidates.length) {
        if (stop()) {
          stoppedEarly = true;
          break;
        }
        const c = candidates[next++]!;
        if (front.dominated(c.stepBound, c.memoryBound)) {
          pruned++;
          continue;
        }
        const d = layoutDesign(design, c.layout) as Design;
        const job = evaluator.evaluate(d).then((e) => {
          running.delete(job);
          tried++;
          if (e.ok && !e.oom && e.peakMemoryBytes <= maxMemory) {
            const point: LayoutPoint & { index: number } = {
              index: c.index,
              layout: c.layout,
              design: d,
              stepMs: e.stepMs,
              peakMemoryBytes: e.peakMemoryBytes,
              fits: true,
            };
            if (e.tokensPerSecond !== undefined)
              point.tokensPerSecPerGpu = e.tokensPerSecond / facts.space.devices;
            front.offer(point);
          }
          progress();
        });
        running.add(job);
      }
      if (stoppedEarly && running.size === 0) break;
      if (running.size > 0) await Promise.race(running);
      else if (next >= candidates.length) break;
    }
  } finally {
    await evaluator.close();
  }
  progress();
  const points = front.list().map(({ index: _index, ...p }) => p);
  const best = points[0];
  if (!best)
    throw new LayoutRequestError([
      {
        path: 'maxMemoryBytes',
        message: `no layout of the ${spaceSize.toLocaleString('en-US')} tried fits in ${(maxMemory / 2 ** 30).toFixed(1)} GiB per GPU${stoppedEarly ? ' before the search stopped' : ''}`,
      },
    ]);
  return { front: points, best, spaceSize, tried, pruned, stoppedEarly };
}

interface Facts {
  space: SpaceFacts;
  model: TransformerModel;
  cost: CostCluster & { kind: 'custom' };
  gpuMemoryBytes: number;
}

function spaceFacts(design: Design, request: LayoutSearchRequest): Facts {
  const model = design.model;
  if (model.kind !== 'transformer')
    throw new LayoutRequestError([
      { path: 'design.model.kind', message: 'the layout search lays out transformer models' },
    ]);
  const resolved = resolveTransformer(model, ['design', 'model']);
  if (!resolved.ok) throw new LayoutRequestError(resolved.errors);
  const config = resolved.config;
  const cluster = expandCluster(design.cluster);
  if (!cluster.ok) throw new LayoutRequestError(cluster.errors);
  if (cluster.cluster.kind !== 'custom')
    throw new LayoutRequestError([
      {
        path: 'design.cluster',
        message: 'the layout search needs GPUs with memory and a rate: a preset or custom cluster',
      },
    ]);
  const c = cluster.cluster;
  const resolvedCost = resolveCluster(design.cluster);
  if (!resolvedCost.ok) throw new LayoutRequestError(resolvedCost.errors);
  const cost = resolvedCost.cost as CostCluster & { kind: 'custom' };
  const devices = deviceCount(design.cluster);
  const globalBatch = request.globalBatch ?? designGlobalBatch(design, model);
  if (globalBatch === undefined)
    throw new LayoutRequestError([
      { path: 'globalBatch', message: 'the design has no schedule to take a global batch from: give one' },
    ]);
  const sizes = [...new Set([...MICROBATCH_SIZES, config.microbatchSize])].sort((a, b) => a - b);
  const space: SpaceFacts = {
    devices,
    gpusPerNode: c.gpusPerNode,
    layers: config.layers,
    heads: config.heads,
    kvHeads: config.kvHeads,
    globalBatch,
    microbatchSizes: sizes,
  };
  if (config.moe) space.experts = config.moe.experts;
  return {
    space,
    model,
    cost,
    gpuMemoryBytes: c.gpu.memoryGiB * 2 ** 30,
  };
}

/** Sequences per step of the design as it is: its schedule's microbatches × microbatch size × data replicas. */
function designGlobalBatch(design: Design, model: TransformerModel): number | undefined {
  const schedule = design.directives.find((d) => d.op === 'schedule');
  if (schedule?.op !== 'schedule') return undefined;
  const group = schedule.groups?.[0];
  let dp = 1;
  if (group && !Array.isArray(group)) {
    group.axes.forEach((a, i) => {
      if (a === 'dp' || a === 'ep') dp *= group.shape?.[i] ?? 1;
    });
  }
  return schedule.microbatches * (model.microbatchSize ?? 1) * dp;
}

async function startEvaluator(workers: number | undefined): Promise<Evaluator> {
  const inNode =
    typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node ===
    'string';
  if (workers !== 0 && inNode) {
    const { startSimulationPool, defaultWorkers } = await import('../threads/simulationPool.ts');
    return startSimulationPool(workers ?? defaultWorkers());
  }
  const evaluator = new LayoutEvaluator();
  return {
    size: 1,
    // Yields to the event loop first, so an abort or a progress reader gets its turn between layouts.
    evaluate: async (d) => {
      await new Promise((r) =>
        (globalThis as unknown as { setTimeout(f: () => void, ms: number): void }).setTimeout(
          () => r(undefined),
          0,
        ),
      );
      return evaluator.evaluate(d);
    },
    close: async () => {},
  };
}
