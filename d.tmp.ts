import { simulate } from './packages/sim/src/index.ts';
import { compute, device, plan, recv, send } from './packages/sim/src/testPlans.ts';
const p = plan([
  device(0, { c: [recv('r', 1, 'b'), compute('F', 'F', 1, { waits: ['r'] }), send('s', 1, 'a')] }),
  device(1, { c: [recv('r', 0, 'a'), compute('F', 'F', 1, { waits: ['r'] }), send('s', 0, 'b')] }),
]);
const r = simulate(p); if (!r.ok) for (const e of r.errors) console.log(`error: ${e.path}: ${e.message}`);
