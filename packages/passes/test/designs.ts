/** Small designs for tests: a synthetic model with uniform costs on an ideal cluster. */
import type { Design, Directive, Instruction, Plan } from '@stagecraft/ir';
import { compile } from '../src/compile/compile.ts';

export function synthetic(
  directives: Directive[],
  opts: {
    stages?: number;
    devices?: number;
    F?: number;
    BI?: number;
    BW?: number;
    FandB?: number;
    activationBytes?: number;
  } = {},
): Design {
  const costs: { F: number; BI: number; BW: number; FandB?: number } = {
    F: opts.F ?? 1,
    BI: opts.BI ?? 1,
    BW: opts.BW ?? 1,
  };
  if (opts.FandB !== undefined) costs.FandB = opts.FandB;
  return {
    format: 'stagecraft/design@1',
    name: 'test',
    model: { kind: 'synthetic', stages: opts.stages ?? 2, costs, activationBytes: opts.activationBytes ?? 1 },
    cluster: { kind: 'ideal', devices: opts.devices ?? 2 },
    directives,
  };
}

/** Piper-style program for a 2-stage pipeline with an explicit per-rank order. */
export function manualTwoStage(m: number, rank0: string[], rank1: string[]): Directive[] {
  const slot = (s: string) => {
    const [, pass, stage, mb] = /^(F|B|BI|BW)(\d+)\.(\d+)$/.exec(s)!;
    return [{ PP: Number(stage), MB: Number(mb), PASS: pass as 'F' }];
  };
  return [
    { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: m },
    { op: 'place', filter: { PP: 0 }, devices: [0] },
    { op: 'place', filter: { PP: 1 }, devices: [1] },
    { op: 'order', filters: rank0.map(slot) },
    { op: 'order', filters: rank1.map(slot) },
  ];
}

/** The compiled design, without snapshots; a refusal fails the test with the compiler's errors. */
export function compiled(design: Design) {
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

/** Device `device`'s compute stream as ids, an overlapped unit as `[a & b]`. */
export const computeOrder = (plan: Plan, device: number): string[] =>
  plan.devices[device]!.streams.find((s) => s.stream === 'compute')!.instructions.map((i: Instruction) =>
    i.op === 'OVERLAP' ? `[${i.members.map((m) => m.id).join(' & ')}]` : i.id,
  );
