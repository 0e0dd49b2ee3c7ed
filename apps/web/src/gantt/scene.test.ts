import { describe, expect, it } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { SELECTION_OUTLINE } from './colors.ts';
import { layoutGantt } from './layout.ts';
import { indexPlan } from './planIndex.ts';
import { gutterMark, highlights, opBox, opMark, stepEndX } from './scene.ts';
import { timeView } from './view.ts';

describe('what a timeline draws', () => {
  const { sim, plan } = runExample('dualpipev-p4-m10');
  const layout = layoutGantt(sim, plan);
  const index = indexPlan(plan);
  const unit = layout.ops.find((o) => o.ev.op === 'OVERLAP')!;

  it('draws an overlapped unit as one band per member, outlined and labelled once wide enough', () => {
    const wide = timeView(sim.makespanMs, 1600, 88, { k: 1, x: 0 });
    const mark = opMark(unit, opBox(unit, wide), index);
    expect(mark.fills).toHaveLength(unit.ev.members!.length);
    expect(mark.outline).not.toBeNull();
    expect(mark.label?.text).toMatch(/^\d+′?\/\d+′?$/);
    // Zoomed far out the unit is a pixel wide: colours only, no outline to cover them, no label.
    const narrow = timeView(sim.makespanMs * 1000, 1600, 88, { k: 1, x: 0 });
    const thin = opMark(unit, opBox(unit, narrow), index);
    expect(thin.fills).toHaveLength(unit.ev.members!.length);
    expect([thin.outline, thin.label]).toEqual([null, null]);
  });

  it('outlines the selected op, and marks the step end only on an axis longer than the step', () => {
    const view = timeView(sim.makespanMs, 1600, 88, { k: 1, x: 0 });
    expect(highlights(layout, view, unit.ev.id, -1).map((h) => h.color)).toEqual([SELECTION_OUTLINE]);
    expect(highlights(layout, view, 'no such op', -1)).toEqual([]);
    expect(stepEndX(layout, view)).toBeNull();
    const shared = timeView(sim.makespanMs * 2, 1600, 88, { k: 1, x: 0 });
    expect(stepEndX(layout, shared)).toBe(shared.x(sim.makespanMs) + 0.5);
  });

  it('names each device in its gutter with its stages on a second line, and its memory peak', () => {
    const g = gutterMark(layout.bands[0]!);
    expect(g.lines.map((t) => [t.text, t.bold])).toEqual([
      ['dev 0', true],
      ['PP 0,7', false],
    ]);
    expect(g.memory.peak?.text).toMatch(/^peak /);
  });
});
