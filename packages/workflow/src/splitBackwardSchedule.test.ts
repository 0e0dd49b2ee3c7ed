import type { Design, ScheduleBuilderName } from '@stagecraft/ir';
import { BUILDERS, compile, executedPlan, importPiper } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';
import { describe, expect, it } from 'vitest';
import { compactDesign, expandedDesign } from '../../../test/splitBackwardDesigns.ts';
import { exportDesign } from './index.ts';

function compiled(design: Design) {
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

function metrics(design: Design) {
  const s = simulate(compiled(design).plan, { keepTimeline: false });
  if (!s.ok) throw new Error(JSON.stringify(s.errors));
  return s;
}

const splits = [{ PP: 1 }, { PP: '*' as const }];
const label = (split: object) => `split_backward on ${JSON.stringify(split)}`;

describe('a schedule with split_backward simulates as the designer’s expansion of it', () => {
  it.each(
    Object.values(BUILDERS).flatMap((b) => splits.map((split) => [b.name, label(split), split] as const)),
  )('%s, %s', (builder, _, split) => {
    const design = compactDesign({ builder, chunks: BUILDERS[builder].defaultChunks, split });
    const expanded = expandedDesign(design, compiled(design).program);
    expect(metrics(design)).toEqual(metrics(expanded));
  });
});

describe('a schedule with split_backward round-trips through a Piper program', () => {
  const builders: ScheduleBuilderName[] = ['1f1b', 'zb-h1', 'dualpipev'];
  it.each(builders.flatMap((builder) => splits.map((split) => [builder, label(split), split] as const)))(
    '%s, %s: export → import → compile gives the same plan and metrics',
    (builder, _, split) => {
      const design = compactDesign({ builder, chunks: BUILDERS[builder].defaultChunks, split });
      const r = exportDesign(design, 'piper');
      if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
      const back = importPiper(r.text, { model: design.model, cluster: design.cluster, name: design.name });
      if (!back.ok) throw new Error(JSON.stringify(back.errors));
      // Piper has no split_backward: the directive indices after it shift, so provenance does.
      expect(executedPlan(compiled(back.design).plan)).toEqual(executedPlan(compiled(design).plan));
      expect(metrics(back.design)).toEqual(metrics(design));
    },
  );
});
