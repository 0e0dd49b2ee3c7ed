/**
 * The harness every directive's composition property shares: a design built from generated
 * options either compiles to a plan that simulates without deadlock, or is refused at a directive.
 * Each property test keeps only its own generators and design builder.
 */
import type { Design, SyntheticBlock } from '@stagecraft/ir';
import { type CompileResult, compile } from '@stagecraft/passes';
import { expect } from 'vitest';
import { simulate } from '../src/index.ts';

type Tags = SyntheticBlock['tags'];

/** A block of unit compute costs with a sizeable activation, parameters and output. */
export function unitBlock(tags: Tags, extra: Partial<SyntheticBlock> = {}): SyntheticBlock {
  return { tags, F: 1, BI: 1, BW: 1, activationBytes: 1e8, paramBytes: 1e9, outputBytes: 1e7, ...extra };
}

type Plan = Extract<CompileResult, { ok: true }>['plan'];
type Simulation = Extract<ReturnType<typeof simulate>, { ok: true }>['sim'];

/**
 * Compiles and simulates `design`. A refusal passes when `refusals` is `'at-directive'` and every
 * error names a directive (the user's own input), and fails otherwise; a plan that does not simulate
 * always fails. Returns the plan and simulation when there is one, for the caller's own checks.
 */
export function expectSimulatesOrNamesDirective(
  design: Design,
  refusals: 'at-directive' | 'never',
): { plan: Plan; sim: Simulation } | undefined {
  const c = compile(design, { keepSnapshots: false });
  if (!c.ok) {
    if (refusals === 'never') throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
    for (const e of c.errors) expect(e.path).toMatch(/^directives\[\d+\]/);
    return undefined;
  }
  const s = simulate(c.plan, { keepTimeline: false });
  if (!s.ok) throw new Error(s.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  expect(s.sim.makespanMs).toBeGreaterThan(0);
  return { plan: c.plan, sim: s.sim };
}
