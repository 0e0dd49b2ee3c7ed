/**
 * Property: any pipeline whose stages are tensor parallel or not, each with any of
 * `sequence_parallel` and `scatter_gather_sends`, under any schedule, with or without recompute
 * and a split backward, compiles to a plan that validates and simulates without deadlock, or is
 * refused with an error naming a directive.
 */
import type { Design, Directive, SyntheticBlock } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { expectSimulatesOrNamesDirective, unitBlock } from '../test/composition.ts';

interface StageOptions {
  tp: boolean;
  sequenceParallel: boolean | undefined;
  scatterGather: boolean | undefined;
  /** Whether the stage's last block is left out of tensor parallelism (a boundary it does not split). */
  plainLast: boolean;
}

function design(
  stages: StageOptions[],
  builder: '1f1b' | 'zb-h1' | 'gpipe',
  m: number,
  recompute: boolean,
  split: boolean,
): Design {
  const blocks: SyntheticBlock[] = [];
  stages.forEach((st, s) => {
    for (let k = 0; k < 2; k++)
      blocks.push(unitBlock(k === 1 && st.plainLast ? { PP: s } : { PP: s, TP: k }));
  });
  const size = 2;
  const group = (s: number) => Array.from({ length: size }, (_, i) => s * size + i);
  const directives: Directive[] = [
    {
      op: 'schedule',
      builder,
      microbatches: m,
      groups: stages.map((_, s) => group(s)),
    },
  ];
  stages.forEach((st, s) => {
    if (!st.tp) return;
    directives.push({
      op: 'shard_tensor',
      filter: { PP: s, TP: '*' },
      devices: group(s),
      stream: 'tp',
      ...(st.sequenceParallel === undefined ? {} : { sequence_parallel: st.sequenceParallel }),
      ...(st.scatterGather === undefined ? {} : { scatter_gather_sends: st.scatterGather }),
    });
  });
  if (split) directives.push({ op: 'split_backward', filter: {} });
  if (recompute) directives.push({ op: 'recompute', filter: {} });
  return {
    format: 'stagecraft/design@1',
    name: 'property',
    model: { kind: 'synthetic', blocks, tokensPerMicrobatch: 4096 },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives,
  };
}

const stage = fc.record({
  tp: fc.boolean(),
  sequenceParallel: fc.constantFrom(undefined, true, false),
  scatterGather: fc.constantFrom(undefined, true, false),
  plainLast: fc.boolean(),
});

describe('shard_tensor options compose', () => {
  it('every combination compiles, validates and simulates without deadlock, or names the directive at fault', () => {
    fc.assert(
      fc.property(
        fc.array(stage, { minLength: 2, maxLength: 4 }),
        fc.constantFrom('1f1b' as const, 'zb-h1' as const, 'gpipe' as const),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        (stages, builder, m, recompute, split) => {
          expectSimulatesOrNamesDirective(design(stages, builder, m, recompute, split), 'at-directive');
        },
      ),
      { numRuns: 60 },
    );
  });
});
