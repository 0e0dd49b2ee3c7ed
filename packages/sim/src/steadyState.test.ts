import { DESIGN_FORMAT, type Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { steadyState } from './steadyState.ts';

function plan(builder: string, m: number, p = 4) {
  const design: Design = {
    format: DESIGN_FORMAT,
    name: builder,
    model: { kind: 'synthetic', stages: p, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: p },
    directives: [{ op: 'schedule', builder: builder as 'gpipe', ranks: p, microbatches: m }],
  };
  const c = compile(design, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => e.message).join('\n'));
  return c.plan;
}

function steady(builder: string, m: number, steps = 4) {
  const r = steadyState(plan(builder, m), steps);
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.steady;
}

describe('steady state over repeated steps', () => {
  // Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3: ZB-H1 leaves a bubble of
  // (p − 1)(F + BI − BW) per step; ZB-H2 adds p − 1 forwards of warm-up so that, once the next
  // iteration starts while the optimizer finishes (its post-validation of the optimizer step),
  // no bubble is left: each rank is busy m(F + B) per step. Here F = BI = BW = 1, p = 4, m = 8.
  it('shows ZB-H2 zero bubble, which one step hides: 24 ms a step against ZB-H1 27 ms', () => {
    const h1 = steady('zb-h1', 8);
    const h2 = steady('zb-h2', 8);
    expect(h1.stepMs).toBe(27);
    expect(h2.stepMs).toBe(27);
    expect(h1.steadyStepMs).toBeCloseTo(8 * 3 + 3 * 1, 9);
    expect(h2.steadyStepMs).toBeCloseTo(8 * 3, 9);
  });

  it('equals one step for 1F1B, whose first rank is busy from the first op to the last', () => {
    const r = steady('1f1b', 8);
    expect(r.steadyStepMs).toBeCloseTo(r.stepMs, 9);
    expect(r.totalMs).toBeCloseTo(4 * 33, 9);
  });

  it('refuses a step count it cannot simulate, naming it', () => {
    const r = steadyState(plan('1f1b', 4), 1);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toEqual({ path: 'steps', message: 'must be a whole number from 2 to 64, got 1' });
  });
});
