import type { Design, Directive, Filter, ScheduleEdit } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compactDesign, expandedDesign, type SplitSchedule } from '../../../../test/splitBackwardDesigns.ts';
import { compiled, computeOrder } from '../../test/designs.ts';
import { BUILDERS } from '../builders/index.ts';
import { compile } from '../compile/compile.ts';
import { compileIncremental } from '../compile/incremental.ts';
import { exportPiperProgram } from '../formats/piperProgram.ts';

/** The compact design with `edits` on its schedule. */
function withEdits(design: Design, edits: ScheduleEdit[]): Design {
  return {
    ...design,
    directives: design.directives.map((d) => (d.op === 'schedule' ? { ...d, edits } : d)),
  };
}

const same = (a: Filter, b: Filter) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What the designer wrote before schedules kept edits: the expanded design, then the edit made
 * by hand on the order that runs the op, slot by slot.
 */
function editedByHand(design: Design, edit: ScheduleEdit): Design {
  const slotOf = (d: Directive, f: Filter) =>
    d.op === 'order' ? d.filters.findIndex((slot) => slot.some((x) => same(x, f))) : -1;
  const directives = design.directives.map((d) => {
    const from = slotOf(d, edit.op);
    if (d.op !== 'order' || from < 0) return d;
    const filters = d.filters.map((slot) => slot.slice());
    if (edit.kind === 'overlap') {
      filters.splice(from, 2, [...filters[from]!, ...filters[from + 1]!]);
      return { ...d, filters };
    }
    const [moved] = filters.splice(from, 1);
    const to = slotOf({ op: 'order', filters }, (edit.before ?? edit.after)!);
    filters.splice(to + (edit.after ? 1 : 0), 0, moved!);
    return { ...d, filters };
  });
  return { ...design, directives };
}

function expandedWithEdit(s: SplitSchedule, edit: ScheduleEdit): Design {
  const plain = compactDesign(s);
  return editedByHand(expandedDesign(plain, compiled(plain).program), edit);
}

describe('a schedule’s edits compile as the same edits made by hand on its expansion', () => {
  it('1F1B with split_backward on PP=1: moving a BW after a later forward runs it there', () => {
    const s: SplitSchedule = { builder: '1f1b', chunks: 1, split: { PP: 1 } };
    const edit: ScheduleEdit = {
      kind: 'move',
      op: { PP: 1, MB: 0, PASS: 'BW' },
      after: { PP: 1, MB: 3, PASS: 'F' },
    };
    const compact = compiled(withEdits(compactDesign(s), [edit]));
    const byHand = compiled(expandedWithEdit(s, edit));
    expect(JSON.stringify(compact.plan)).toBe(JSON.stringify(byHand.plan));
    const device1 = computeOrder(compact.plan, 1);
    expect(device1.indexOf('BW.b1.mb0')).toBe(device1.indexOf('F.b1.mb3') + 1);
    expect(device1.indexOf('BI.b1.mb0')).toBeLessThan(device1.indexOf('F.b1.mb3'));
  });

  it('DualPipeV with split_backward everywhere: moving a forward before an earlier one', () => {
    const s: SplitSchedule = {
      builder: 'dualpipev',
      chunks: BUILDERS.dualpipev.defaultChunks,
      split: { PP: '*' },
    };
    const edit: ScheduleEdit = {
      kind: 'move',
      op: { PP: 0, MB: 1, PASS: 'F' },
      before: { PP: 0, MB: 0, PASS: 'F' },
    };
    const compact = compiled(withEdits(compactDesign(s), [edit]));
    const byHand = compiled(expandedWithEdit(s, edit));
    expect(JSON.stringify(compact.plan)).toBe(JSON.stringify(byHand.plan));
    expect(computeOrder(compact.plan, 0).slice(0, 2)).toEqual(['F.b0.mb1', 'F.b0.mb0']);
  });

  it('1F1B with split_backward on the last stage: an overlap slot runs a BW with the next forward', () => {
    const s: SplitSchedule = { builder: '1f1b', chunks: 1, split: { PP: 3 } };
    // The last stage runs F0 B0 F1 B1 …: B0's BW and F1 are independent.
    const edit: ScheduleEdit = { kind: 'overlap', op: { PP: 3, MB: 0, PASS: 'BW' } };
    const compact = compiled(withEdits(compactDesign(s), [edit]));
    const byHand = compiled(expandedWithEdit(s, edit));
    expect(JSON.stringify(compact.plan)).toBe(JSON.stringify(byHand.plan));
    expect(computeOrder(compact.plan, 3).slice(0, 4)).toEqual([
      'F.b3.mb0',
      'BI.b3.mb0',
      '[BW.b3.mb0 & F.b3.mb1]',
      'BI.b3.mb1',
    ]);
  });

  it('edits apply in their order, each to the order the ones before it left', () => {
    const s: SplitSchedule = { builder: '1f1b', chunks: 1, split: { PP: 1 } };
    const bw0 = { PP: 1, MB: 0, PASS: 'BW' } as const;
    const f3 = { PP: 1, MB: 3, PASS: 'F' } as const;
    const builders = computeOrder(compiled(compactDesign(s)).plan, 1);
    // The second move undoes the first; in the other order the first would be a no-op.
    const undone = compiled(
      withEdits(compactDesign(s), [
        { kind: 'move', op: bw0, after: f3 },
        { kind: 'move', op: f3, after: bw0 },
      ]),
    );
    expect(computeOrder(undone.plan, 1)).toEqual(builders);
    const kept = compiled(
      withEdits(compactDesign(s), [
        { kind: 'move', op: f3, after: bw0 },
        { kind: 'move', op: bw0, after: f3 },
      ]),
    );
    expect(computeOrder(kept.plan, 1)).not.toEqual(builders);
  });
});

describe('a schedule with edits', () => {
  const s: SplitSchedule = { builder: '1f1b', chunks: 1, split: { PP: 1 } };
  const move: ScheduleEdit = {
    kind: 'move',
    op: { PP: 1, MB: 0, PASS: 'BW' },
    after: { PP: 1, MB: 3, PASS: 'F' },
  };

  it('reports an edit that cannot apply at that edit, and every such edit', () => {
    const r = compile(
      withEdits(compactDesign(s), [
        move,
        { kind: 'overlap', op: { PP: 9, MB: 0, PASS: 'F' } },
        { kind: 'move', op: { PP: 2, MB: 0, PASS: 'BW' }, before: { PP: 2, MB: 1, PASS: 'F' } },
        { kind: 'move', op: { PP: 1, MB: 2, PASS: 'F' }, before: { PP: 2, MB: 1, PASS: 'F' } },
        { kind: 'overlap', op: { PP: 0, MB: 0, PASS: 'F' } },
        { kind: 'move', op: { PP: 1, MB: 99, PASS: 'F' }, before: { PP: 1, MB: 1, PASS: 'F' } },
      ]),
    );
    expect(r.ok ? [] : r.errors).toEqual([
      { path: 'directives[0].edits[1].op.PP', message: 'the schedule runs no op of PP=9' },
      {
        path: 'directives[0].edits[2].op',
        message:
          '2BW0: the schedule runs that backward as one B; a split_backward on PP=2 splits it into BI and BW',
      },
      {
        path: 'directives[0].edits[3].before',
        message: "1F2 runs on rank 1 and 2F1 on rank 2: an op moves within its own rank's order",
      },
      {
        path: 'directives[0].edits[4].op',
        message:
          '0F0 and the next slot of its rank are not a forward and a backward: only an F&B pair overlaps',
      },
      { path: 'directives[0].edits[5].op', message: 'the schedule runs no op 1F99' },
    ]);
  });

  it('names a fused B of a split region as its halves only', () => {
    const r = compile(withEdits(compactDesign(s), [{ kind: 'overlap', op: { PP: 1, MB: 0, PASS: 'B' } }]));
    expect(r.ok ? [] : r.errors).toEqual([
      {
        path: 'directives[0].edits[0].op',
        message: '1B0: the schedule runs that backward as BI and BW; name one of them',
      },
    ]);
  });

  it('exports to Piper as its edited orders, which compile to the same plan', () => {
    const design = withEdits(compactDesign(s), [move]);
    const r = compiled(design);
    const piper = exportPiperProgram(design, r.program, r.plan, r.dag);
    if (!piper.ok) throw new Error(JSON.stringify(piper.errors));
    const rank1 = piper.program.filter((d) => d.op === 'order')[1]!;
    if (rank1.op !== 'order') throw new Error('rank 1’s order');
    const names = rank1.filters.map((slot) => slot.map((f) => `${f.PASS}${f.MB}`).join('&'));
    expect(names.indexOf('BW0')).toBe(names.indexOf('F3') + 1);
  });

  it('compiles incrementally after an edit is added to exactly what a fresh compile gives', () => {
    const plain = compactDesign(s);
    const first = compileIncremental(plain, undefined, { keepSnapshots: false });
    if (!first.result.ok) throw new Error('the schedule compiles');
    const design = withEdits(plain, [move]);
    const next = compileIncremental(design, first.state, { keepSnapshots: false });
    if (!next.result.ok) throw new Error(JSON.stringify(next.result.errors));
    expect(JSON.stringify(next.result.plan)).toBe(JSON.stringify(compiled(design).plan));
    expect(JSON.stringify(next.result.plan)).not.toBe(JSON.stringify(first.result.plan));
  });
});
