/**
 * Steady state over repeated training steps. One step's makespan counts the pipeline's fill and
 * drain every step, but a runtime starts step k+1 on a device as soon as that device's own step k
 * allows: ZB-H2's zero bubble, or any schedule whose ranks finish at different times, only shows
 * over several steps. The plan is repeated `steps` times per stream, and the only links between
 * steps are the real ones:
 *
 * - each group's UPD of step k comes before its F of step k+1 of the same parameters: the compute
 *   stream runs UPD last, so stream order gives it; parameters gathered after UPD (ZeRO-1/2's
 *   ALL_GATHER) are awaited by the device's first compute op of step k+1;
 * - ZeRO-3's parameter gathers of step k+1 read shards UPD of step k wrote: the first gather of
 *   each stream waits for that UPD.
 *
 * Nothing else waits across devices: step k+1's first F may start while other devices still run
 * their optimizer. A global gradient-norm sync (gradient clipping's all-reduce of one scalar across
 * every device before any UPD) is not modelled: it would make every UPD wait for the slowest
 * device's last backward, a barrier this figure leaves out.
 *
 * Steady step time = (makespan of n steps − makespan of one step) / (n − 1): the period the
 * schedule settles into once the first step's fill is paid.
 */
import type { Instruction, Plan, StreamPlan } from '@stagecraft/ir';
import { simulate } from './simulate.ts';
import type { SimulationResult } from './types.ts';

/** Most steps a steady-state figure simulates: the repeated plan grows with every step. */
export const MAX_STEPS = 64;

export interface SteadyState {
  steps: number;
  /** Makespan of one step. */
  stepMs: number;
  /** Makespan of `steps` steps in a row. */
  totalMs: number;
  /** Time per step once the pipeline runs step after step: (totalMs − stepMs) / (steps − 1). */
  steadyStepMs: number;
}

export type SteadyStateResult = { ok: true; steady: SteadyState } | Extract<SimulationResult, { ok: false }>;

/** Simulates `plan` for one step and for `steps` steps in a row (steps ≥ 2). */
export function steadyState(plan: Plan, steps: number, single?: number): SteadyStateResult {
  if (!Number.isInteger(steps) || steps < 2 || steps > MAX_STEPS)
    return {
      ok: false,
      errors: [{ path: 'steps', message: `must be a whole number from 2 to ${MAX_STEPS}, got ${steps}` }],
    };
  let stepMs = single;
  if (stepMs === undefined) {
    const one = simulate(plan, { keepTimeline: false });
    if (!one.ok) return one;
    stepMs = one.sim.makespanMs;
  }
  const many = simulate(repeatedPlan(plan, steps), { keepTimeline: false });
  if (!many.ok) return many;
  const totalMs = many.sim.makespanMs;
  return { ok: true, steady: { steps, stepMs, totalMs, steadyStepMs: (totalMs - stepMs) / (steps - 1) } };
}

/** The plan's steps `steps` times in a row: step k's ids, transfers and collectives end in `@k`. */
export function repeatedPlan(plan: Plan, steps: number): Plan {
  return {
    format: plan.format,
    name: plan.name,
    cluster: plan.cluster,
    groups: plan.groups,
    ...(plan.tokensPerStep !== undefined ? { tokensPerStep: plan.tokensPerStep * steps } : {}),
    ...(plan.modelFlopsPerStep !== undefined ? { modelFlopsPerStep: plan.modelFlopsPerStep * steps } : {}),
    devices: plan.devices.map((dev) => {
      const streams = dev.streams.map((s) => ({ s, out: [] as Instruction[] }));
      const compute = dev.streams.findIndex((s) => s.stream === 'compute');
      const upd =
        compute >= 0 ? dev.streams[compute]!.instructions.find((i) => i.op === 'UPD')?.id : undefined;
      // What the next step's compute waits for: the instructions of other streams after UPD.
      const afterUpd = new Set<string>();
      if (upd !== undefined)
        for (const s of dev.streams)
          for (const i of s.instructions)
            if (i.waits.includes(upd) || i.waits.some((w) => afterUpd.has(w))) afterUpd.add(i.id);
      for (let k = 0; k < steps; k++)
        streams.forEach(({ s, out }, si) => {
          let gatherWaits = k > 0 && upd !== undefined && si !== compute;
          s.instructions.forEach((i, j) => {
            const extra: string[] = [];
            if (k > 0 && si === compute && j === 0) for (const id of afterUpd) extra.push(at(id, k - 1));
            if (gatherWaits && i.op === 'ALL_GATHER' && !afterUpd.has(i.id)) {
              extra.push(at(upd!, k - 1));
              gatherWaits = false;
            }
            out.push(inStep(i, k, extra));
          });
        });
      return { ...dev, streams: streams.map(({ s, out }): StreamPlan => ({ ...s, instructions: out })) };
    }),
  };
}

const at = (id: string, k: number) => (k === 0 ? id : `${id}@${k}`);

function inStep(i: Instruction, k: number, extra: string[]): Instruction {
  if (k === 0 && extra.length === 0) return i;
  const waits = [...i.waits.map((w) => at(w, k)), ...extra];
  const base = { ...i, id: at(i.id, k), waits };
  if (base.op === 'SEND' || base.op === 'RECV') return { ...base, transfer: at(base.transfer, k) };
  if (base.op === 'OVERLAP')
    return {
      ...base,
      members: base.members.map((m) => ({ ...m, id: at(m.id, k), waits: m.waits.map((w) => at(w, k)) })),
    };
  if ('collective' in base) return { ...base, collective: at(base.collective, k) };
  return base;
}
