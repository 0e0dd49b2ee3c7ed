import type { Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { tp8Layer } from '../../../test/tensorParallelDesigns.ts';
import { simulate } from './simulate.ts';

function compiled(design: Design) {
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

describe('sequence parallelism in the simulator', () => {
  it('costs the step what the all-reduces cost (the same bytes on the wire) and saves memory', () => {
    const run = (s: boolean) => {
      const r = simulate(compiled(tp8Layer(s)).plan);
      if (!r.ok) throw new Error('simulation failed');
      return r.sim;
    };
    const on = run(true);
    const off = run(false);
    expect(on.makespanMs / off.makespanMs).toBeGreaterThan(0.98);
    expect(on.makespanMs / off.makespanMs).toBeLessThan(1.02);
    expect(on.devices[0]!.peakActivationBytes).toBeLessThan(off.devices[0]!.peakActivationBytes);
  });
});
