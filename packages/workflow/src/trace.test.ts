/**
 * The Chrome traces of every example obey the rules Perfetto's JSON importer relies on: numeric
 * ts and dur in microseconds, integer pid and tid, metadata names for every process and thread
 * used, each flow id started once and finished once inside slices, no two slices overlapping on
 * one thread, and one slice per plan instruction.
 */
import { type Design, planOpCount } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { type ChromeTrace, chromeTrace, simulate, type TraceEvent } from '@stagecraft/sim';
import { describe, expect, test } from 'vitest';
import { exampleDesigns } from '../test/repoFiles.ts';
import { exportDesign } from './index.ts';

const METADATA = ['process_name', 'thread_name', 'process_sort_index', 'thread_sort_index'];
/** Perfetto converts microseconds to integer nanoseconds; anything below that is rounding. */
const EPS = 1e-3;

function checkPerfettoRules(trace: ChromeTrace): void {
  expect(trace.displayTimeUnit).toBe('ms');
  const named = new Set<string>();
  const slices = new Map<string, TraceEvent[]>();
  for (const e of trace.traceEvents) {
    expect(typeof e.name).toBe('string');
    expect(Number.isInteger(e.pid) && e.pid >= 0).toBe(true);
    expect(Number.isInteger(e.tid) && e.tid >= 0).toBe(true);
    if (e.ph === 'M') {
      expect(METADATA).toContain(e.name);
      if (e.name.endsWith('_name')) expect(typeof e.args?.name).toBe('string');
      else expect(typeof e.args?.sort_index).toBe('number');
      if (e.name === 'process_name') named.add(`${e.pid}`);
      if (e.name === 'thread_name') named.add(`${e.pid}/${e.tid}`);
      continue;
    }
    expect(typeof e.ts).toBe('number');
    expect(Number.isFinite(e.ts) && e.ts! >= 0).toBe(true);
    if (e.ph === 'X') {
      expect(typeof e.dur).toBe('number');
      expect(Number.isFinite(e.dur) && e.dur! >= 0).toBe(true);
      const k = `${e.pid}/${e.tid}`;
      if (!slices.has(k)) slices.set(k, []);
      slices.get(k)!.push(e);
    } else if (e.ph === 'C') {
      for (const v of Object.values(e.args ?? {})) expect(typeof v).toBe('number');
    } else {
      expect(['s', 'f']).toContain(e.ph);
      expect(Number.isInteger(e.id)).toBe(true);
    }
  }
  for (const [k, list] of slices) {
    expect(named.has(k.split('/')[0]!), `process of ${k} has a name`).toBe(true);
    expect(named.has(k), `thread ${k} has a name`).toBe(true);
    list.sort((a, b) => a.ts! - b.ts!);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      expect(
        list[i]!.ts! + EPS,
        `${list[i]!.name} starts inside ${prev.name} on ${k}`,
      ).toBeGreaterThanOrEqual(prev.ts! + prev.dur!);
    }
  }
  // Slices of a thread are sorted and disjoint: the candidate is the last one starting by e.ts.
  const inSlice = (e: TraceEvent) => {
    const list = slices.get(`${e.pid}/${e.tid}`) ?? [];
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (list[mid]!.ts! <= e.ts! + EPS) lo = mid;
      else hi = mid - 1;
    }
    const near = [list[lo - 1], list[lo], list[lo + 1]];
    return near.some((x) => x !== undefined && x.ts! <= e.ts! + EPS && e.ts! <= x.ts! + x.dur! + EPS);
  };
  const flows = new Map<number, TraceEvent[]>();
  for (const e of trace.traceEvents) {
    if (e.ph !== 's' && e.ph !== 'f') continue;
    expect(inSlice(e), `flow ${e.id} ${e.ph} lies in a slice`).toBe(true);
    if (!flows.has(e.id!)) flows.set(e.id!, []);
    flows.get(e.id!)!.push(e);
  }
  for (const [id, pair] of flows) {
    expect(pair.map((e) => e.ph).sort(), `flow ${id} starts once and ends once`).toEqual(['f', 's']);
    const [f, s] = pair[0]!.ph === 'f' ? [pair[0]!, pair[1]!] : [pair[1]!, pair[0]!];
    expect(f.ts! + EPS).toBeGreaterThanOrEqual(s.ts!);
  }
}

function traceOf(design: Design): { trace: ChromeTrace; units: number; sends: number } {
  const r = exportDesign(design, 'chrome-trace');
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  const compiled = compile(design, { keepSnapshots: false });
  if (!compiled.ok) throw new Error('does not compile');
  let units = 0;
  let sends = 0;
  for (const d of compiled.plan.devices)
    for (const s of d.streams) {
      units += s.instructions.length;
      sends += s.instructions.filter((i) => i.op === 'SEND').length;
    }
  return { trace: JSON.parse(r.text) as ChromeTrace, units, sends };
}

const examples = exampleDesigns();
// Transfers that take time make receives overlap on the wire: the lanes must keep them apart.
const withLatency = examples.flatMap(({ file, design }) =>
  'kind' in design.cluster && design.cluster.kind === 'ideal'
    ? [
        {
          file: `${file} with 0.3 ms per transfer`,
          design: { ...design, cluster: { ...design.cluster, p2pLatencyMs: 0.3 } },
        },
      ]
    : [],
);

describe('chrome-trace', () => {
  // The largest examples have over 100,000 instructions: generous time on a shared machine.
  test.each([...examples, ...withLatency])(
    '$file passes the Perfetto schema rules',
    { timeout: 180_000 },
    ({ design }) => {
      const { trace, units, sends } = traceOf(design);
      checkPerfettoRules(trace);
      const xs = trace.traceEvents.filter((e) => e.ph === 'X');
      expect(xs).toHaveLength(units);
      expect(trace.traceEvents.filter((e) => e.ph === 's')).toHaveLength(sends);
    },
  );

  test('each device is a process named with its stages, each stream a named thread', () => {
    const design = examples.find((e) => e.file === 'dualpipev-p4-m10.json')!.design;
    const names = traceOf(design).trace.traceEvents.filter(
      (e) => e.ph === 'M' && e.name !== 'thread_sort_index' && e.name !== 'process_sort_index',
    );
    expect(names.filter((e) => e.name === 'process_name').map((e) => e.args!.name)).toEqual([
      'device 0 · stages 0, 7',
      'device 1 · stages 1, 6',
      'device 2 · stages 2, 5',
      'device 3 · stages 3, 4',
    ]);
    expect(new Set(names.filter((e) => e.name === 'thread_name').map((e) => e.args!.name))).toEqual(
      new Set(['compute', 'p2p', 'p2p · receives']),
    );
  });

  test('slices carry tags, directive provenance and bytes; an F&B pair is one slice with its members', () => {
    const design = examples.find((e) => e.file === 'dualpipev-p4-m10.json')!.design;
    const xs = traceOf(design).trace.traceEvents.filter((e) => e.ph === 'X');
    const f = xs.find((e) => e.args!.op === 'F')!;
    expect(f.args!.tags).toMatchObject({ PASS: 'F' });
    expect(f.args!.provenance).toMatchObject({
      path: expect.stringMatching(/^directives\[0\]\.expansion\[\d+\]$/),
    });
    const pair = xs.find((e) => e.args!.op === 'OVERLAP')!;
    expect(pair.name).toMatch(/^F&B F .* \+ B /);
    expect(pair.args!.members).toHaveLength(2);
    const send = xs.find((e) => e.args!.op === 'SEND')!;
    expect(send.args!.bytes).toBe(16777216);
  });

  test('timestamps are microseconds of the simulated step; memory counters follow the simulator', () => {
    const design = examples.find((e) => e.file === '1f1b-p4-m8.json')!.design;
    const compiled = compile(design, { keepSnapshots: false });
    if (!compiled.ok) throw new Error('does not compile');
    const sim = simulate(compiled.plan);
    if (!sim.ok) throw new Error('does not simulate');
    const trace = chromeTrace(compiled.plan, sim.sim);
    const end = Math.max(...trace.traceEvents.filter((e) => e.ph === 'X').map((e) => e.ts! + e.dur!));
    expect(end).toBe(sim.sim.makespanMs * 1000);
    const counters = trace.traceEvents.filter((e) => e.ph === 'C' && e.pid === 0);
    expect(Math.max(...counters.map((e) => e.args!.bytes as number))).toBe(
      sim.sim.devices[0]!.peakMemoryBytes,
    );
    expect(planOpCount(compiled.plan)).toBeGreaterThan(0);
  });
});
