/**
 * Property: any pipeline of stages placed on equal device groups, with any mix of data
 * parallelism (ZeRO 0–3), expert and tensor parallelism, recomputation and offload, compiles to a
 * plan that validates and simulates on a real cluster without deadlock, every device starting from
 * its resident training state.
 */
import type { Design, Directive, SyntheticBlock } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectSimulatesOrNamesDirective, unitBlock } from '../test/composition.ts';

function design(
  stages: number,
  size: number,
  m: number,
  zero: number,
  ep: boolean,
  tp: boolean,
  extra: string,
): Design {
  const blocks: SyntheticBlock[] = [];
  for (let s = 0; s < stages; s++) {
    blocks.push(unitBlock({ PP: s, TP: 0 }));
    blocks.push(unitBlock({ PP: s, EP: 0 }, { paramBytes: 2e9, experts: 12, topK: 2 }));
  }
  const group = (s: number) => Array.from({ length: size }, (_, i) => s * size + i);
  const directives: Directive[] = [
    {
      op: 'schedule',
      builder: '1f1b',
      microbatches: m,
      groups: Array.from({ length: stages }, (_, s) => group(s)),
    },
  ];
  for (let s = 0; s < stages; s++) {
    if (tp)
      directives.push({ op: 'shard_tensor', filter: { PP: s, TP: '*' }, devices: group(s), stream: 'tp' });
    else
      directives.push({
        op: 'replicate',
        filter: { PP: s },
        devices: group(s),
        reduce_stream: 'dp',
        ...(zero === 1
          ? { shard_optimizer: true }
          : zero === 2
            ? { shard_grads: true }
            : zero === 3
              ? { shard_params: true }
              : {}),
      });
    if (ep) directives.push({ op: 'shard', filter: { PP: s, EP: '*' }, devices: group(s), stream: 'ep' });
  }
  if (extra === 'recompute') directives.push({ op: 'recompute', filter: {} });
  if (extra === 'offload') directives.push({ op: 'offload', filter: { PP: 0 } });
  return {
    format: 'stagecraft/design@1',
    name: 'property',
    model: { kind: 'synthetic', blocks, tokensPerMicrobatch: 4096 },
    cluster: { preset: 'dgx-h100', nodes: Math.ceil((stages * size) / 8) },
    directives,
  };
}

describe('parallelism rewrites compose', () => {
  it('every combination compiles, validates and simulates without deadlock', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 3 }),
        fc.constantFrom(1, 2, 3, 4),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('none', 'recompute', 'offload'),
        (stages, size, m, zero, ep, tp, extra) => {
          const { plan: compiled, sim } = expectSimulatesOrNamesDirective(
            design(stages, size, m, zero, ep, tp, extra),
            'never',
          )!;
          for (const d of sim.devices) {
            const plan = compiled.devices.find(
              (p) => p.device === d.device || p.replicas?.includes(d.device),
            );
            if (plan && plan.group >= 0) expect(d.peakMemoryBytes).toBeGreaterThanOrEqual(plan.staticBytes!);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
