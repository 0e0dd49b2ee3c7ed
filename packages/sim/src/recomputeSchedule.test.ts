/**
 * Recompute as Megatron runs it on a tensor-parallel pipeline: each RECOMPUTE right before its
 * backward (never queued ahead of a ready forward), repeating the forward's TP all-reduces.
 */
import type { Design, Plan } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { simulate } from './simulate.ts';
import type { Simulation } from './types.ts';

const STAGES = 4;
const MICROBATCHES = 8;
type Builder = '1f1b' | 'interleaved-1f1b';

/** A 48-layer, 8,192-wide transformer, PP4 over four DGX H100 nodes, each node TP8. */
function tp8Design(builder: Builder, recompute: boolean): Design {
  const groups = Array.from({ length: STAGES }, (_, s) => Array.from({ length: 8 }, (_, k) => s * 8 + k));
  const chunks = builder === 'interleaved-1f1b' ? 2 : 1;
  return {
    format: 'stagecraft/design@2',
    name: `48-layer TP8 PP4 ${builder}${recompute ? ' recompute' : ''}`,
    model: {
      kind: 'transformer',
      preset: 'llama3-70b',
      layers: 48,
      microbatchSize: 1,
      annotate: { PP: STAGES * chunks },
    },
    cluster: { preset: 'dgx-h100', nodes: STAGES },
    directives: [
      {
        op: 'schedule',
        builder,
        ranks: STAGES,
        microbatches: MICROBATCHES,
        groups,
        stream: 'pp',
        ...(chunks > 1 ? { chunks } : {}),
      },
      ...groups.map((devices) => ({
        op: 'shard_tensor' as const,
        filter: { TP: '*' as const },
        devices,
        stream: 'tp',
      })),
      ...(recompute ? [{ op: 'recompute' as const, filter: {} }] : []),
    ],
  } as Design;
}

function run(builder: Builder, recompute: boolean): { plan: Plan; sim: Simulation } {
  const c = compile(tp8Design(builder, recompute), { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const s = simulate(c.plan);
  if (!s.ok) throw new Error(s.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return { plan: c.plan, sim: s.sim };
}

const runs = new Map<string, { plan: Plan; sim: Simulation }>();
function cached(builder: Builder, recompute: boolean) {
  const key = `${builder}/${recompute}`;
  if (!runs.has(key)) runs.set(key, run(builder, recompute));
  return runs.get(key)!;
}

function count(plan: Plan, device: number, op: string): number {
  let n = 0;
  for (const s of plan.devices[device]!.streams) for (const i of s.instructions) if (i.op === op) n++;
  return n;
}

/** Σ duration of device `device`'s events of `op` (with ids starting `prefix`). */
function timeOf(sim: Simulation, device: number, op: string, prefix = ''): number {
  let ms = 0;
  for (const e of sim.timeline!)
    if (e.device === device && e.op === op && e.id.startsWith(prefix)) ms += e.endMs - e.startMs;
  return ms;
}

describe('recompute on a TP8 pipeline of DGX H100 nodes', () => {
  it('issues every RECOMPUTE immediately before its backward on the compute stream', () => {
    for (const builder of ['1f1b', 'interleaved-1f1b'] as const) {
      const { plan } = cached(builder, true);
      for (const d of [0, 8, 24]) {
        const compute = plan.devices[d]!.streams.find((s) =>
          s.instructions.some((i) => i.op === 'RECOMPUTE'),
        )!;
        const list = compute.instructions;
        let seen = 0;
        list.forEach((i, k) => {
          if (i.op !== 'RECOMPUTE') return;
          seen++;
          const next = list[k + 1]!;
          expect(next.op, `${builder} device ${d}: after ${i.id}`).toBe('B');
          expect(next.id.slice(1)).toBe(i.id.slice('RECOMPUTE'.length));
        });
        expect(seen).toBeGreaterThan(0);
      }
    }
  });

  it('costs every schedule about one extra forward, its TP all-reduce included', () => {
    for (const builder of ['1f1b', 'interleaved-1f1b'] as const) {
      const plain = cached(builder, false).sim;
      const again = cached(builder, true).sim;
      const d = 8;
      expect(timeOf(again, d, 'RECOMPUTE') / timeOf(plain, d, 'F')).toBeCloseTo(1, 2);
      // Each microbatch's work on a stage goes from F + B to F + F + B (the all-reduces with
      // them), and the pipeline's fill and drain grow with it: the step by the forward's share.
      const forward = timeOf(plain, d, 'F') + timeOf(plain, d, 'ALL_REDUCE', 'ALL_REDUCE.tp.F.');
      const work = timeOf(plain, d, 'F') + timeOf(plain, d, 'B') + timeOf(plain, d, 'ALL_REDUCE');
      const expected = 1 + forward / work;
      const ratio = again.makespanMs / plain.makespanMs;
      expect(ratio / expected, builder).toBeGreaterThan(0.95);
      expect(ratio / expected, builder).toBeLessThan(1.05);
    }
  });

  it('does not reorder schedules: interleaving gains about as much with recompute as without', () => {
    const gain = (recompute: boolean) =>
      cached('1f1b', recompute).sim.makespanMs / cached('interleaved-1f1b', recompute).sim.makespanMs - 1;
    expect(gain(false)).toBeGreaterThan(0);
    expect(gain(true)).toBeGreaterThan(0.75 * gain(false));
    expect(gain(true)).toBeLessThan(1.25 * gain(false));
  });

  it('repeats the forward tensor-parallel all-reduce of every recomputed block', () => {
    for (const builder of ['1f1b', 'interleaved-1f1b'] as const) {
      for (const d of [0, 8]) {
        const plain = cached(builder, false).plan;
        const again = cached(builder, true).plan;
        const recomputes = count(again, d, 'RECOMPUTE');
        // Every block of the design is tensor parallel: one all-reduce more per recomputed forward.
        expect(recomputes).toBe(count(plain, d, 'F'));
        expect(count(again, d, 'ALL_REDUCE') - count(plain, d, 'ALL_REDUCE')).toBe(recomputes);
        const repeated = again.devices[d]!.streams.flatMap((s) =>
          s.instructions.filter((i) => i.id.startsWith('ALL_REDUCE.tp.RECOMPUTE')),
        );
        expect(repeated).toHaveLength(recomputes);
      }
    }
  });
});
