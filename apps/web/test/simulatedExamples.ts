/** Example designs compiled and simulated for real, for the tests of the timeline and compare view. */
import { type Design, parseDesign } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { type Simulation, simulate } from '@stagecraft/sim';
import oneFOneB from '../../../examples/1f1b-p4-m8.json';
import dualpipev from '../../../examples/dualpipev-p4-m10.json';
import gpipe from '../../../examples/gpipe-p4-m8.json';
import manualOrder from '../../../examples/manual-order-p2-m4.json';
import zbH1 from '../../../examples/zb-h1-p4-m8.json';

export const EXAMPLES = {
  '1f1b-p4-m8': oneFOneB,
  'gpipe-p4-m8': gpipe,
  'zb-h1-p4-m8': zbH1,
  'dualpipev-p4-m10': dualpipev,
  'manual-order-p2-m4': manualOrder,
} as const;

export function exampleDesign(name: keyof typeof EXAMPLES): Design {
  const parsed = parseDesign(EXAMPLES[name]);
  if (!parsed.ok)
    throw new Error(`${name}: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return parsed.design;
}

export function run(design: Design) {
  const compiled = compile(design);
  if (!compiled.ok) throw new Error(compiled.errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  const simulated = simulate(compiled.plan);
  if (!simulated.ok) throw new Error(simulated.errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  const sim: Simulation = simulated.sim;
  return { design, compiled, plan: compiled.plan, sim };
}

export function runExample(name: keyof typeof EXAMPLES) {
  return run(exampleDesign(name));
}
