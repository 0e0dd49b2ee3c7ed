import { FRESH, type Instruction, type Plan } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collective, compute, device, plan, recv, send } from '../test/testPlans.ts';
import { resolveCluster } from './costModel.ts';
import { EventLoop } from './eventLoop.ts';
import { FinishQueue } from './finishQueue.ts';
import { flatten } from './flat.ts';
import { IdealPace } from './idealPace.ts';
import { listSchedule } from './listSchedule.ts';
import { simulate } from './simulate.ts';
import type { Simulation, TimelineEvent } from './types.ts';

type Step =
  | { kind: 'compute'; dev: number; stream: number; ms: number; waits: number[]; alloc: number; free: number }
  | {
      kind: 'p2p';
      from: number;
      fromStream: number;
      to: number;
      toStream: number;
      bytes: number;
      lag: number;
    }
  | { kind: 'collective'; members: number[]; stream: number };

const DEVICES = 3;
const STREAMS = 2;

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('compute' as const),
      dev: fc.nat(DEVICES - 1),
      stream: fc.nat(STREAMS - 1),
      ms: fc.constantFrom(0, 0.5, 1, 2, 3),
      waits: fc.array(fc.nat(1000), { maxLength: 2 }),
      alloc: fc.nat(2),
      free: fc.nat(2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('p2p' as const),
      from: fc.nat(DEVICES - 1),
      fromStream: fc.nat(STREAMS - 1),
      to: fc.nat(DEVICES - 1),
      toStream: fc.nat(STREAMS - 1),
      bytes: fc.constantFrom(0, 1e6, 1e8),
      lag: fc.nat(3),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('collective' as const),
      members: fc.uniqueArray(fc.nat(DEVICES - 1), { minLength: 1, maxLength: DEVICES }),
      stream: fc.nat(STREAMS - 1),
    }),
  },
);

/**
 * A plan built in one global order that every constraint points backwards in (waits name earlier
 * instructions, a SEND comes before its RECV, a collective's members are appended together), so
 * executing it in that order is possible and the plan cannot deadlock.
 */
function chainPlan(steps: Step[], cluster: Plan['cluster'], memoryStreams = STREAMS): Plan {
  const streams: Instruction[][][] = [];
  const earlier: string[][] = [];
  for (let d = 0; d < DEVICES; d++) {
    streams.push(Array.from({ length: STREAMS }, () => []));
    earlier.push([]);
  }
  const pendingRecvs: { at: number; dev: number; stream: number; ins: Instruction }[] = [];
  const add = (d: number, s: number, ins: Instruction) => {
    streams[d]![s]!.push(ins);
    earlier[d]!.push(ins.id);
  };
  steps.forEach((st, i) => {
    for (const r of pendingRecvs.filter((x) => x.at === i)) add(r.dev, r.stream, r.ins);
    if (st.kind === 'compute') {
      const prior = earlier[st.dev]!;
      const waits = prior.length === 0 ? [] : [...new Set(st.waits.map((w) => prior[w % prior.length]!))];
      const mem = st.stream < memoryStreams;
      add(
        st.dev,
        st.stream,
        compute('F', `c${i}`, st.ms, { waits, alloc: mem ? st.alloc : 0, free: mem ? st.free : 0 }),
      );
    } else if (st.kind === 'p2p') {
      add(st.from, st.fromStream, send(`s${i}`, st.to, `t${i}`, { bytes: st.bytes }));
      const ins = recv(`r${i}`, st.from, `t${i}`, { bytes: st.bytes });
      if (st.lag === 0) add(st.to, st.toStream, ins);
      else pendingRecvs.push({ at: i + st.lag, dev: st.to, stream: st.toStream, ins });
    } else {
      for (const d of st.members)
        add(d, st.stream, collective('ALL_REDUCE', `k${i}`, `k${i}`, st.members, 1e6));
    }
  });
  for (const r of pendingRecvs.filter((x) => x.at >= steps.length)) add(r.dev, r.stream, r.ins);
  return plan(
    streams.map((ss, d) => device(d, Object.fromEntries(ss.map((list, s) => [`s${s}`, list])))),
    { cluster },
  );
}

/** Checks every event against its stream order, its waits, its SEND and its collective. */
function checkOrder(p: Plan, sim: Simulation): void {
  const ev = new Map<string, TimelineEvent>();
  for (const e of sim.timeline!) {
    const key = `${e.device}/${e.id}`;
    expect(ev.has(key)).toBe(false);
    ev.set(key, e);
  }
  let count = 0;
  let lastEnd = 0;
  const byKey = new Map<string, TimelineEvent[]>();
  for (const d of p.devices)
    for (const s of d.streams) {
      let prev: TimelineEvent | undefined;
      for (const ins of s.instructions) {
        count++;
        const e = ev.get(`${d.device}/${ins.id}`)!;
        expect(e.stream).toBe(s.stream);
        expect(e.endMs).toBeGreaterThanOrEqual(e.startMs);
        lastEnd = Math.max(lastEnd, e.endMs);
        // A RECV is posted: it releases its stream when it starts.
        if (prev) expect(e.startMs).toBeGreaterThanOrEqual(prev.op === 'RECV' ? prev.startMs : prev.endMs);
        for (const w of ins.waits)
          expect(e.startMs).toBeGreaterThanOrEqual(ev.get(`${d.device}/${w}`)!.endMs);
        if (ins.op === 'RECV') {
          const sd = ev.get(`${ins.peer}/s${ins.id.slice(1)}`)!;
          expect(e.endMs).toBe(Math.max(e.startMs, sd.endMs));
        }
        if (ins.op === 'ALL_REDUCE') byKey.set(ins.collective, [...(byKey.get(ins.collective) ?? []), e]);
        prev = e;
      }
    }
  expect(sim.timeline!.length).toBe(count);
  expect(sim.makespanMs).toBe(lastEnd);
  for (const members of byKey.values()) {
    expect(new Set(members.map((m) => m.startMs)).size).toBe(1);
    expect(new Set(members.map((m) => m.endMs)).size).toBe(1);
  }
}

const clusters: fc.Arbitrary<Plan['cluster']> = fc.constantFrom<Plan['cluster'][]>(
  { kind: 'ideal', devices: DEVICES },
  { kind: 'ideal', devices: DEVICES, p2pLatencyMs: 0.25 },
  {
    kind: 'custom',
    nodes: 2,
    gpusPerNode: 2,
    gpu: { peakTflops: 100, memoryGiB: 80 },
    intraNode: { bandwidthGBps: 100, latencyUs: 5 },
    interNode: { bandwidthGBps: 10, latencyUs: 50 },
  },
);

describe('simulate on random plans', () => {
  it('a plan built in one global order always completes, and every event respects its stream order and waits', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), clusters, (steps, cluster) => {
        const p = chainPlan(steps, cluster);
        const r = simulate(p);
        if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
        checkOrder(p, r.sim);
        for (const d of r.sim.devices) expect(d.peakActivationBytes).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it('a plan with waits in any direction returns a result or a deadlock with a cycle, and never hangs', () => {
    const arb = fc.record({
      lists: fc.array(
        fc.array(fc.record({ ms: fc.constantFrom(0, 1, 2), waits: fc.array(fc.nat(30), { maxLength: 2 }) }), {
          maxLength: 8,
        }),
        { minLength: 1, maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(arb, ({ lists }) => {
        const total = lists.reduce((n, l) => n + l.length, 0);
        const streams = Object.fromEntries(
          lists.map((l, s) => [
            `s${s}`,
            l.map((x, k) =>
              compute('F', `${s}.${k}`, x.ms, {
                waits: x.waits
                  .filter(() => total > 0)
                  .map((w) => {
                    let n = w % total;
                    for (let t = 0; t < lists.length; t++) {
                      if (n < lists[t]!.length) return `${t}.${n}`;
                      n -= lists[t]!.length;
                    }
                    return '0.0';
                  }),
              }),
            ),
          ]),
        );
        const p = plan([device(0, streams)]);
        const r = simulate(p);
        if (r.ok) checkOrder(p, r.sim);
        else {
          expect(r.deadlock).toBeDefined();
          expect(r.deadlock!.cycle.length).toBeGreaterThan(0);
          // Around the cycle each entry waits for something on the next entry's stream.
          const c = r.deadlock!.cycle;
          c.forEach((e, i) => {
            expect(e.waitsFor?.stream).toBe(c[(i + 1) % c.length]!.stream);
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the stream sweep (listSchedule.ts) against the event loop', () => {
  it('on the ideal cluster gives every unit the same start and end, and every device the same peak memory', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        // Memory on one stream per device: the sweep's precondition.
        const p = chainPlan(steps, { kind: 'ideal', devices: DEVICES }, 1);
        const cost = resolveCluster(p.cluster);
        if (!cost.ok) throw new Error('ideal cluster refused');
        const flat = flatten(p, cost.cost);
        if (!flat.ok) throw new Error(flat.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
        const f = flat.flat;
        const swept = listSchedule(f, FRESH);
        expect(swept).toBeDefined();
        const queue = new FinishQueue(f.N, FRESH);
        const looped = new EventLoop(f, queue, new IdealPace(f, queue), {
          keep: false,
          exposedByKind: false,
          arrays: FRESH,
        }).run();
        expect(looped.done).toBe(f.N);
        expect(Array.from(swept!.start)).toEqual(Array.from(looped.start));
        expect(Array.from(swept!.end)).toEqual(Array.from(looped.end));
        expect(Array.from(swept!.peak)).toEqual(Array.from(looped.peak));
        expect(Array.from(swept!.exposed)).toEqual(Array.from(looped.exposed));
        // Through simulate: the metrics without the timeline (swept) are those with it (the loop).
        const without = simulate(p, { keepTimeline: false });
        const withTimeline = simulate(p);
        if (!without.ok || !withTimeline.ok) throw new Error('simulation failed');
        const { timeline: _t, memory: _m, ...metrics } = withTimeline.sim;
        expect(without.sim).toEqual(metrics);
      }),
      { numRuns: 300 },
    );
  });
});
