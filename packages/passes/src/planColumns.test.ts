import type { Instruction, Plan, PlanColumns, PlanLayout } from '@stagecraft/ir';
import {
  compiledLayoutOf,
  IssueList,
  layoutFromObjects,
  provesLayout,
  UNIT_COLLECTIVE,
  UNIT_COMPUTE,
  UNIT_MEMORY,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
  validatePlan,
} from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../test/repoFiles.ts';
import { compile } from './compile/compile.ts';
import { layoutFromColumns } from './lower/layoutFromColumns.ts';

const examples = await exampleDesigns();

const KIND: Record<Instruction['op'], number> = {
  F: UNIT_COMPUTE,
  B: UNIT_COMPUTE,
  BI: UNIT_COMPUTE,
  BW: UNIT_COMPUTE,
  RECOMPUTE: UNIT_COMPUTE,
  UPD: UNIT_COMPUTE,
  OVERLAP: UNIT_OVERLAP,
  SEND: UNIT_SEND,
  RECV: UNIT_RECV,
  ALL_REDUCE: UNIT_COLLECTIVE,
  REDUCE_SCATTER: UNIT_COLLECTIVE,
  ALL_GATHER: UNIT_COLLECTIVE,
  ALL_TO_ALL: UNIT_COLLECTIVE,
  OFFLOAD: UNIT_MEMORY,
  RELOAD: UNIT_MEMORY,
};

/** The plan's instructions in the columns' order, with the plan index of each one's device. */
function units(plan: Plan): { ins: Instruction; device: number }[] {
  return plan.devices.flatMap((dp, device) =>
    dp.streams.flatMap((sp) => sp.instructions.map((ins) => ({ ins, device }))),
  );
}

/** Everything the layout of the columns says, checked against the plan's objects. */
function expectFaithful(plan: Plan, c: PlanLayout): void {
  const all = units(plan);
  expect(c.N).toBe(all.length);
  const indexOf = new Map(plan.devices.map((dp, i) => [dp.device, i]));
  const transferOf = new Map<number, string>();
  all.forEach(({ ins, device }, v) => {
    expect(c.kind[v]).toBe(KIND[ins.op]);
    expect(
      c.deviceStreams[device]! <= c.unitStream[v]! && c.unitStream[v]! < c.deviceStreams[device + 1]!,
    ).toBe(true);
    const named = [...ins.waits, ...(ins.op === 'OVERLAP' ? ins.members.flatMap((m) => m.waits) : [])];
    const targets = [...c.waitTgt.subarray(c.waitOff[v]!, c.waitOff[v + 1]!)].map((t) => all[t]!.ins.id);
    expect(targets).toEqual(named);
    if (ins.op === 'SEND' || ins.op === 'RECV') {
      expect(c.peerIndex[v]).toBe(indexOf.get(ins.peer) ?? -1);
      const key = c.columns!.transferKey[v]!;
      const seen = transferOf.get(key);
      if (seen !== undefined) expect(ins.transfer).toBe(seen);
      transferOf.set(key, ins.transfer);
    }
    if (ins.op === 'RECV') {
      const send = all[c.partner[v]!]!;
      expect(send.ins.op).toBe('SEND');
      expect(send.ins.op === 'SEND' && send.ins.transfer).toBe(ins.transfer);
      expect(send.ins.op === 'SEND' && send.ins.peer).toBe(plan.devices[device]!.device);
    } else if (ins.op === 'SEND') expect(c.partner[c.partner[v]!]).toBe(v);
    else expect(c.partner[v]).toBe(-1);
  });
}

/** The layout's arrays, for comparing two layouts of one plan. */
function arraysOf(l: PlanLayout) {
  return {
    N: l.N,
    S: l.S,
    D: l.D,
    deviceStreams: [...l.deviceStreams],
    streamStart: [...l.streamStart],
    unitStream: [...l.unitStream],
    streamDev: [...l.streamDev],
    kind: [...l.kind],
    waitOff: [...l.waitOff],
    waitTgt: [...l.waitTgt.subarray(0, l.waitOff[l.N]!)],
    peerIndex: [...l.peerIndex],
    partner: [...l.partner],
    recvsOutOfOrder: l.recvsOutOfOrder,
    collGroup: [...l.collGroup],
    groupOff: [...l.groupOff],
    groupUnits: [...l.groupUnits],
    groupDevices: l.groupDevices.map((d) => [...d].sort((a, b) => a - b)),
    groupOp: l.groupOp,
    groupBytes: [...l.groupBytes],
  };
}

describe('plan layout of the columns', () => {
  it.each(examples)(
    '$file: compiling proves the plan on a layout that says what its objects say',
    ({ design }) => {
      const r = compile(design, { keepSnapshots: false });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const c = compiledLayoutOf(r.plan);
      expect(c).toBeDefined();
      expectFaithful(r.plan, c!);
      expect(validatePlan(r.plan)).toEqual([]);
    },
  );

  it.each(examples)('$file: is the layout the plan read from its objects has', ({ design }) => {
    const r = compile(design, { keepSnapshots: false });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const fromColumns = compiledLayoutOf(r.plan)!;
    const issues = new IssueList(20);
    const fromObjects = layoutFromObjects(JSON.parse(JSON.stringify(r.plan)) as Plan, issues)!;
    expect(issues.list).toEqual([]);
    expect(arraysOf(fromObjects)).toEqual(arraysOf(fromColumns));
  });

  it('belongs to the compiled plan object only, not to a copy or an edited plan', () => {
    const r = compile(examples[0]!.design, { keepSnapshots: false });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.plan.compiled).toBeDefined();
    expect(compiledLayoutOf(JSON.parse(JSON.stringify(r.plan)) as Plan)).toBeUndefined();
    expect(compiledLayoutOf({ ...r.plan })).toBeUndefined();
    r.plan.devices[0]!.streams[0]!.instructions.pop();
    expect(compiledLayoutOf(r.plan)).toBeUndefined();
  });
});

describe('proof on columns', () => {
  const r = compile(examples.find((e) => e.file === 'interleaved-1f1b-p4-v2-m8.json')!.design, {
    keepSnapshots: false,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  const proven = compiledLayoutOf(r.plan)!;
  const columns = proven.columns!;
  /** Each SEND's RECV and RECV's SEND when the columns prove the plan, else undefined. */
  const proves = (c: PlanColumns) => {
    const layout = layoutFromColumns(r.plan, c);
    return layout !== undefined && provesLayout(layout) ? layout.partner : undefined;
  };

  it('still proves a valid plan when the ranks do not follow its waits', () => {
    const rank = columns.rank.slice().reverse();
    expect(proves({ ...columns, rank })).toEqual(proven.partner);
  });

  it('finds a wait cycle the ranks would hide', () => {
    // A SEND waits for the compute op whose output it carries; that op now waits for the SEND.
    const waitsOf = (v: number) => columns.waitOff[v + 1]! - columns.waitOff[v]!;
    const send = [...columns.kind.keys()].find(
      (v) =>
        columns.kind[v] === UNIT_SEND &&
        waitsOf(v) === 1 &&
        waitsOf(columns.waitTgt[columns.waitOff[v]!]!) > 0,
    )!;
    const op = columns.waitTgt[columns.waitOff[send]!]!;
    const waitTgt = columns.waitTgt.slice();
    waitTgt[columns.waitOff[op]!] = send;
    const rank = columns.rank.slice();
    rank[send] = rank[op]! - 1;
    expect(proves({ ...columns, waitTgt })).toBeUndefined();
    expect(proves({ ...columns, waitTgt, rank })).toBeUndefined();
  });
});
