import { describe, expect, it } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { SELECTION_OUTLINE } from './colors.ts';
import { layoutGantt } from './layout.ts';
import { indexPlan } from './planIndex.ts';
import { gutterMark, highlights, microbatchOps, opBox, opMark, stepEndX } from './scene.ts';
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

  it('outlines every op of the hovered op’s microbatch on every device, and only those', () => {
    const one = runExample('1f1b-p4-m8');
    const l = layoutGantt(one.sim, one.plan);
    const view = timeView(one.sim.makespanMs, 1600, 120, { k: 1, x: 0 });
    const hovered = l.byId.get('F.b2.mb3')!;
    const outlined = microbatchOps(l, hovered).map((i) => l.ops[i]!.ev);
    expect(outlined.every((e) => e.tags.MB === 3)).toBe(true);
    expect(outlined).toHaveLength(l.ops.filter((o) => o.ev.tags.MB === 3).length);
    expect(new Set(outlined.map((e) => e.device))).toEqual(new Set([0, 1, 2, 3]));
    const marks = highlights(l, view, null, -1, hovered);
    expect(marks.every((h) => h.kind === 'microbatch')).toBe(true);
    expect(marks).toHaveLength(outlined.length);
    // Nothing hovered, or an op of no microbatch (the optimizer step): no outline.
    expect(highlights(l, view, null, -1, -1)).toEqual([]);
    expect(
      microbatchOps(
        l,
        l.ops.findIndex((o) => o.ev.op === 'UPD'),
      ),
    ).toEqual([]);
  });

  it('tells DualPipe’s two directions apart: microbatch 3 of one is not microbatch 3 of the other', () => {
    const first = layout.ops.findIndex(
      (o) => o.ev.tags.MB === 3 && o.ev.tags.DIR !== 1 && o.ev.op !== 'OVERLAP',
    );
    const outlined = microbatchOps(layout, first).map((i) => layout.ops[i]!.ev.tags);
    expect(outlined.length).toBeGreaterThan(1);
    expect(outlined.every((t) => t.MB === 3 && t.DIR !== 1)).toBe(true);
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
