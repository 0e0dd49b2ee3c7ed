/**
 * What a compile makes, and when: a schedule's program, the DAG and the plan are columns, and
 * their objects (filters, nodes, instructions) are made only when something reads them. This is
 * what keeps compiling and simulating hundreds of thousands of ops fast; the objects, once read,
 * are exactly those of any other plan.
 */
import {
  compiledLayoutOf,
  type Design,
  hasNodeObjects,
  isUnread,
  parsePlan,
  slotsOf,
  tableOf,
  validatePlan,
} from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compile } from './compile/compile.ts';

function interleaved(m: number): Design {
  return {
    format: 'stagecraft/design@1',
    name: 'interleaved',
    model: { kind: 'synthetic', stages: 16, costs: { F: 1, BI: 1, BW: 1 }, activationBytes: 1e6 },
    cluster: { kind: 'ideal', devices: 8 },
    directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: 2 }],
  };
}

function compiled(design: Design, keepSnapshots = false) {
  const r = compile(design, { keepSnapshots });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

const streamsOf = (r: ReturnType<typeof compiled>) => r.plan.devices.flatMap((d) => d.streams);

describe('a compile nobody inspects', () => {
  it('makes no filter, node or instruction object', () => {
    const r = compiled(interleaved(32));
    const orders = r.program.filter((e) => e.directive.op === 'order');
    expect(orders).toHaveLength(8);
    for (const e of orders) expect(slotsOf(e.directive as never)).toBeDefined();
    expect(hasNodeObjects(r.dag)).toBe(false);
    expect(streamsOf(r).every(isUnread)).toBe(true);
    expect(compiledLayoutOf(r.plan)).toBeDefined();
  });

  it('makes, once read, the plan an eager lowering would: it parses, validates and is the same text every time', () => {
    const a = compiled(interleaved(16));
    const b = compiled(interleaved(16), true);
    const text = JSON.stringify(a.plan);
    expect(JSON.stringify(b.plan)).toBe(text);
    const parsed = parsePlan(JSON.parse(text));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(validatePlan(parsed.plan)).toEqual([]);
    expect(streamsOf(a).some(isUnread)).toBe(false);
  });
});

describe('a compiled plan read and edited', () => {
  it('keeps its proven layout only until a stream is read, since read instructions may be edited in place', () => {
    const r = compiled(interleaved(8));
    expect(compiledLayoutOf(r.plan)).toBeDefined();
    const sp = r.plan.devices[0]!.streams[0]!;
    expect(sp.instructions.length).toBeGreaterThan(0);
    expect(isUnread(sp)).toBe(false);
    expect(compiledLayoutOf(r.plan)).toBeUndefined();
  });

  it('keeps no proven layout once a stream is replaced', () => {
    const r = compiled(interleaved(8));
    const sp = r.plan.devices[1]!.streams[0]!;
    sp.instructions = [];
    expect(isUnread(sp)).toBe(false);
    expect(compiledLayoutOf(r.plan)).toBeUndefined();
  });

  it('shares the node objects of unchanged rows between the snapshots of a compile', () => {
    const r = compiled(interleaved(8), true);
    const dagAfter = (pass: string) => r.snapshots.find((s) => s.pass === pass)!.dag!;
    const placed = dagAfter('place');
    const withTransfers = dagAfter('insert-send-recv');
    expect(withTransfers.nodes.length).toBeGreaterThan(placed.nodes.length);
    placed.nodes.forEach((n, i) => {
      expect(withTransfers.nodes[i]).toBe(n);
    });
  });
});

describe('rows and edges later passes append', () => {
  it('go into the memory the pipeline left room for, with no column copied', () => {
    const r = compiled(interleaved(32), true);
    const after = (pass: string) => {
      const dag = r.snapshots.find((s) => s.pass === pass)?.dag;
      if (!dag) throw new Error(`no DAG after ${pass}`);
      return dag;
    };
    const placed = tableOf(after('place'));
    const withTransfers = tableOf(after('insert-send-recv'));
    expect(withTransfers.length).toBeGreaterThan(placed.length);
    for (const k of [
      'op',
      'block',
      'group',
      'stream',
      'p2pStream',
      'provPass',
      'bytes',
      'peer',
      'source',
    ] as const)
      expect(withTransfers[k].buffer, k).toBe(placed[k].buffer);
    // The earlier DAG still ends where it did: the appended rows are past its view.
    expect(tableOf(after('place')).length).toBe(placed.length);
    const ordered = after('order').edges;
    expect(ordered.from.length).toBeGreaterThan(after('insert-send-recv').edges.from.length);
    expect(ordered.from.buffer).toBe(after('insert-send-recv').edges.from.buffer);
  });

  it('leave no room for transfers in a design on one device group', () => {
    const oneGroup: Design = {
      ...interleaved(32),
      cluster: { kind: 'ideal', devices: 1 },
      directives: [
        { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 32 },
        { op: 'place', filter: {}, devices: [0] },
      ],
    };
    const r = compiled(oneGroup, true);
    const split = r.snapshots.find((s) => s.pass === 'split')?.dag;
    if (!split) throw new Error('no DAG after split');
    const t = tableOf(split);
    expect(t.length).toBe(16 * 2 * 32);
    expect(t.source.buffer.byteLength / 4).toBe(t.length + 1024);
  });
});
