/**
 * The stream-order pass over random pipelines with expert and data parallelism (DualPipe's copy
 * all-reduce across groups included): every plan it orders is proved by validation (no deadlock,
 * SEND/RECV matched, collectives in one order per set of devices), and each group's expert
 * stream issues its all-to-alls in the order of their compute anchors: right after the compute op
 * each waits for, else right before the first that waits on it.
 */
import type { Design, Directive, Instruction, SyntheticBlock } from '@stagecraft/ir';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { compile } from './compile/compile.ts';
import { predecessors } from './dag/adjacency.ts';
import { eagerIssueOrder, exactIssueOrder } from './dag/issueKeys.ts';
import { topoOrderOf } from './dag/topo.ts';
import { partitionOf } from './passes/partition.ts';

const V_BUILDERS = new Set(['interleaved-1f1b', 'zbv', 'dualpipev']);

function design(builder: string, ranks: number, m: number, dpOnEp: boolean, pp: string): Design {
  const stages = V_BUILDERS.has(builder) ? 2 * ranks : ranks;
  const blocks: SyntheticBlock[] = [];
  for (let s = 0; s < stages; s++) {
    blocks.push({
      tags: { PP: s },
      F: 1,
      BI: 1,
      BW: 1,
      activationBytes: 1e6,
      paramBytes: 1e6,
      outputBytes: 4e6,
    });
    blocks.push({
      tags: { PP: s, EP: 0 },
      F: 1.5,
      BI: 1.5,
      BW: 1,
      activationBytes: 1e6,
      paramBytes: 4e6,
      outputBytes: 4e6,
      experts: 4,
      topK: 2,
    });
  }
  const groups = Array.from({ length: ranks }, (_, r) => [2 * r, 2 * r + 1]);
  const schedule: Directive = { op: 'schedule', builder: builder as 'gpipe', ranks, microbatches: m, groups };
  if (builder === 'interleaved-1f1b') Object.assign(schedule, { chunks: 2 });
  if (pp !== 'default') Object.assign(schedule, { stream: pp });
  const directives: Directive[] = [schedule];
  for (const devices of groups) {
    directives.push({ op: 'shard', filter: { EP: '*' }, devices, stream: 'ep' });
    directives.push({
      op: 'replicate',
      filter: {},
      devices,
      reduce_stream: dpOnEp ? 'ep' : 'dp',
      shard_optimizer: true,
    });
  }
  return {
    format: 'stagecraft/design@1',
    name: 'issue order',
    model: { kind: 'synthetic', blocks, tokensPerMicrobatch: 128 },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives,
  };
}

test('communication lanes are issued in compute order and every plan still validates', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('gpipe', '1f1b', 'interleaved-1f1b', 'zb-h1', 'zb-h2', 'zbv', 'dualpipev', 'dualpipe'),
      fc.constantFrom(2, 4),
      fc.integer({ min: 1, max: 3 }),
      fc.boolean(),
      fc.constantFrom('default', 'pp'),
      (builder, ranks, rounds, dpOnEp, pp) => {
        const m = (builder.startsWith('dualpipe') ? 2 : 1) * ranks * rounds;
        const r = compile(design(builder, ranks, m, dpOnEp, pp), { keepSnapshots: false });
        // Validation runs inside compile: a deadlock or a mismatched pair would be an error here.
        if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
        for (const dev of r.plan.devices) {
          const compute = dev.streams.find((s) => s.stream === 'compute')?.instructions ?? [];
          const at = new Map(compute.map((i: Instruction, k) => [i.id, k]));
          const firstUse = new Map<string, number>();
          compute.forEach((i: Instruction, k) => {
            for (const w of i.waits ?? []) if (!firstUse.has(w)) firstUse.set(w, k);
          });
          // An all-to-all is issued right after the compute op it waits for, else right before
          // the first compute op waiting for it: its anchor, in half steps of the compute stream.
          const anchors: number[] = [];
          for (const i of dev.streams.find((s) => s.stream === 'ep')?.instructions ?? []) {
            if (i.op !== 'ALL_TO_ALL') continue;
            const producers = (i.waits ?? []).filter((w) => at.has(w)).map((w) => at.get(w)!);
            if (producers.length > 0) anchors.push(2 * Math.max(...producers) + 1);
            else if (firstUse.has(i.id)) anchors.push(2 * firstUse.get(i.id)! - 1);
          }
          expect(anchors).toEqual([...anchors].sort((a, b) => a - b));
        }
      },
    ),
    { numRuns: 40 },
  );
});

/** The DAG stream-order orders (the last one a pass made), its lanes and what the sweeps read. */
function orderingInputs(d: Design) {
  const r = compile(d, { keepSnapshots: true });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const dag = r.snapshots.filter((s) => s.dag !== undefined).at(-1)!.dag!;
  const topo = topoOrderOf(dag);
  if (!topo.ok) throw new Error('cycle');
  const { laneOf, lanes } = partitionOf(dag);
  const laneOff = new Int32Array(lanes.length + 1);
  for (let i = 0; i < laneOf.length; i++)
    if (topo.units.rep[i] === i && laneOf[i]! >= 0) laneOff[laneOf[i]! + 1]!++;
  for (let l = 0; l < lanes.length; l++) laneOff[l + 1]! += laneOff[l]!;
  return {
    dag,
    units: topo.units,
    order: topo.order,
    inc: predecessors(laneOf.length, dag.edges),
    laneOf,
    laneOff,
  };
}

function pipeline(builder: string, ranks: number, m: number): Design {
  const stages = V_BUILDERS.has(builder) ? 2 * ranks : ranks;
  const schedule: Directive = { op: 'schedule', builder: builder as 'gpipe', microbatches: m };
  if (builder === 'interleaved-1f1b') Object.assign(schedule, { chunks: 2 });
  return {
    format: 'stagecraft/design@1',
    name: 'issue order',
    model: {
      kind: 'synthetic',
      stages,
      costs: { F: 1, BI: 1, BW: 1 },
      activationBytes: 1e6,
      paramBytes: 1e6,
      outputBytes: 4e6,
    },
    cluster: { kind: 'ideal', devices: ranks },
    directives: [schedule],
  };
}

test('the one-sweep issue order of a pipeline is the rule’s own, and designs it cannot order fall back to the rule', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('gpipe', '1f1b', 'interleaved-1f1b', 'zb-h1', 'zb-h2', 'zbv', 'dualpipev', 'dualpipe'),
      fc.constantFrom(2, 3, 4),
      fc.integer({ min: 1, max: 3 }),
      fc.boolean(),
      fc.boolean(),
      (builder, ranks, rounds, dpOnEp, plain) => {
        const m = (builder.startsWith('dualpipe') ? 2 : 1) * ranks * rounds;
        if (builder === 'dualpipe' && ranks % 2 === 1) return;
        const d = plain ? pipeline(builder, ranks, m) : design(builder, ranks, m, dpOnEp, 'default');
        const inputs = orderingInputs(d);
        const eager = eagerIssueOrder(inputs);
        const exact = exactIssueOrder(inputs);
        // Only SENDs and RECVs off the compute lanes: the sweep always applies.
        if (plain) expect(eager).not.toBeNull();
        if (eager !== null) {
          expect(eager.units).toEqual(exact.units);
          expect(eager.number).toEqual(exact.number);
        }
      },
    ),
    { numRuns: 60 },
  );
});
