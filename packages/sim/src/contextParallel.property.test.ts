/**
 * Property: any pipeline whose stages split their sequence or not (either form), tensor parallel
 * or not, with or without data parallelism, under any schedule, with or without recompute and a
 * split backward, compiles to a plan that validates and simulates without deadlock, or is refused
 * with an error naming a directive.
 */
import type { Design, Directive, SyntheticBlock } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { expectSimulatesOrNamesDirective, unitBlock } from '../test/composition.ts';

interface StageOptions {
  cp: 'ring' | 'all_gather' | null;
  tp: boolean;
  /** Whether the stage's last block is left out of context parallelism. */
  plainLast: boolean;
}

function design(
  stages: StageOptions[],
  builder: '1f1b' | 'zb-h1' | 'gpipe',
  m: number,
  dp: boolean,
  recompute: boolean,
  split: boolean,
): Design {
  const blocks: SyntheticBlock[] = [];
  stages.forEach((_, s) => {
    for (let k = 0; k < 2; k++) blocks.push(unitBlock({ PP: s, TP: k }));
  });
  // Each stage a dp2 × cp2 × tp2 mesh on one DGX node.
  const mesh = (s: number) => ({ axes: ['dp', 'cp', 'tp'], shape: [2, 2, 2], start: 8 * s });
  const directives: Directive[] = [
    { op: 'schedule', builder, microbatches: m, groups: stages.map((_, s) => mesh(s)) },
  ];
  stages.forEach((st, s) => {
    if (st.tp) directives.push({ op: 'shard_tensor', filter: { PP: s, TP: '*' }, axis: 'tp', stream: 'tp' });
    if (st.cp)
      directives.push({
        op: 'shard_sequence',
        filter: st.plainLast ? { PP: s, TP: 0 } : { PP: s },
        axis: 'cp',
        form: st.cp,
      });
  });
  if (dp) directives.push({ op: 'replicate', filter: {}, axis: 'dp' });
  if (split) directives.push({ op: 'split_backward', filter: {} });
  if (recompute) directives.push({ op: 'recompute', filter: {} });
  return {
    format: 'stagecraft/design@3',
    name: 'property',
    model: { kind: 'synthetic', blocks, tokensPerMicrobatch: 4096 },
    cluster: { preset: 'dgx-h100', nodes: stages.length },
    directives,
  };
}

const stage = fc.record({
  cp: fc.constantFrom(null, 'ring' as const, 'all_gather' as const),
  tp: fc.boolean(),
  plainLast: fc.boolean(),
});

describe('shard_sequence composes', () => {
  it('every combination compiles, validates and simulates without deadlock, or names the directive at fault', () => {
    fc.assert(
      fc.property(
        fc.array(stage, { minLength: 2, maxLength: 3 }),
        fc.constantFrom('1f1b' as const, 'zb-h1' as const, 'gpipe' as const),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (stages, builder, m, dp, recompute, split) => {
          expectSimulatesOrNamesDirective(design(stages, builder, m, dp, recompute, split), 'at-directive');
        },
      ),
      { numRuns: 60 },
    );
  });
});
