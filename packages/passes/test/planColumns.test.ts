import type { Instruction, Plan } from '@stagecraft/ir';
import {
  type ProvenColumns,
  provenColumnsOf,
  provesColumns,
  provesValid,
  UNIT_COLLECTIVE,
  UNIT_COMPUTE,
  UNIT_MEMORY,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
} from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../test/repoFiles.ts';
import { compile } from '../src/driver/compile.ts';

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

/** Everything the columns say, checked against the plan's objects. */
function expectFaithful(plan: Plan, c: ProvenColumns): void {
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
      const seen = transferOf.get(c.transferKey[v]!);
      if (seen !== undefined) expect(ins.transfer).toBe(seen);
      transferOf.set(c.transferKey[v]!, ins.transfer);
    }
    if (ins.op === 'RECV') {
      const send = all[c.sendOf[v]!]!;
      expect(send.ins.op).toBe('SEND');
      expect(send.ins.op === 'SEND' && send.ins.transfer).toBe(ins.transfer);
      expect(send.ins.op === 'SEND' && send.ins.peer).toBe(plan.devices[device]!.device);
    } else expect(c.sendOf[v]).toBe(-1);
  });
}

describe('plan columns', () => {
  it.each(examples)(
    '$file: compiling proves the plan on columns that say what its objects say',
    ({ design }) => {
      const r = compile(design, { keepSnapshots: false });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const c = provenColumnsOf(r.plan);
      expect(c).toBeDefined();
      expectFaithful(r.plan, c!);
      expect(provesValid(r.plan, false)).toBe(true);
    },
  );

  it('belong to the compiled plan object only, not to a copy or an edited plan', () => {
    const r = compile(examples[0]!.design, { keepSnapshots: false });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(provenColumnsOf(JSON.parse(JSON.stringify(r.plan)) as Plan)).toBeUndefined();
    r.plan.devices[0]!.streams[0]!.instructions.pop();
    expect(provenColumnsOf(r.plan)).toBeUndefined();
  });
});

describe('proof on columns', () => {
  const r = compile(examples.find((e) => e.file === 'interleaved-1f1b-p4-v2-m8.json')!.design, {
    keepSnapshots: false,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  const proven = provenColumnsOf(r.plan)!;

  it('still proves a valid plan when the ranks do not follow its waits', () => {
    const rank = proven.rank.slice().reverse();
    expect(provesColumns(r.plan, { ...proven, rank })).toEqual(proven.sendOf);
  });

  it('finds a wait cycle the ranks would hide', () => {
    // A SEND waits for the compute op whose output it carries; that op now waits for the SEND.
    const waitsOf = (v: number) => proven.waitOff[v + 1]! - proven.waitOff[v]!;
    const send = [...proven.kind.keys()].find(
      (v) =>
        proven.kind[v] === UNIT_SEND && waitsOf(v) === 1 && waitsOf(proven.waitTgt[proven.waitOff[v]!]!) > 0,
    )!;
    const op = proven.waitTgt[proven.waitOff[send]!]!;
    const waitTgt = proven.waitTgt.slice();
    waitTgt[proven.waitOff[op]!] = send;
    const rank = proven.rank.slice();
    rank[send] = rank[op]! - 1;
    expect(provesColumns(r.plan, { ...proven, waitTgt })).toBeUndefined();
    expect(provesColumns(r.plan, { ...proven, waitTgt, rank })).toBeUndefined();
  });
});
