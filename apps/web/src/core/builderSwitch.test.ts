import type { Design, Directive } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { computed, example } from '../../test/testDesigns.ts';
import type { Outcome } from './action.ts';
import { switchBuilder } from './builderSwitch.ts';
import { dropItem } from './palette.ts';
import { moveOp } from './reorder.ts';
import { expandSchedule } from './schedule.ts';

function switched(r: Outcome): Extract<Outcome, { ok: true }> {
  if (!r.ok) throw new Error(r.error);
  return r;
}

const withDirective = (design: Design, d: Directive): Design => ({
  ...design,
  directives: [...design.directives, d],
});

describe('switching the schedule builder', () => {
  const design = example('1f1b-p4-m8');

  test('1F1B to DualPipeV on 4 ranks recuts the model into 8 stages of half the cost and says so', () => {
    const r = switched(switchBuilder(design, 'dualpipev'));
    expect(r.design.directives[0]).toEqual({ op: 'schedule', builder: 'dualpipev', microbatches: 8 });
    expect(r.design.model).toMatchObject({ stages: 8, costs: { F: 0.5, BI: 0.5, BW: 0.5 } });
    expect(r.notice).toContain('the model is cut into 8 stages instead of 4');
    const before = computed(design).simulation.makespanMs;
    expect(computed(r.design).simulation.makespanMs).toBeLessThan(before);
  });

  test('a builder whose ranks × chunks divide the stages keeps the model, quietly', () => {
    const r = switched(switchBuilder(design, 'gpipe'));
    expect(r.design.model).toBe(design.model);
    expect(r.notice).toBeUndefined();
    expect(computed(r.design).simulation.makespanMs).toBe(33);
  });

  test('a model cut into more stages than the builder needs keeps its stage count', () => {
    const r = switched(switchBuilder(example('dualpipev-p4-m10'), '1f1b'));
    expect(r.design.model).toMatchObject({ stages: 8 });
    expect(computed(r.design).simulation.makespanMs).toBeGreaterThan(0);
  });

  test('the name follows the builder when it was generated, as the examples are named', () => {
    expect(switched(switchBuilder(design, 'dualpipev')).design.name).toBe('DualPipeV, p=4, m=8');
    expect(switched(switchBuilder(design, 'interleaved-1f1b')).design.name).toBe(
      'Interleaved 1F1B, p=4, v=2, m=8',
    );
  });

  test('a name the user gave is kept', () => {
    const named = { ...design, name: 'baseline for the 70B run' };
    expect(switched(switchBuilder(named, 'zb-h1')).design.name).toBe('baseline for the 70B run');
  });

  test('an expanded schedule gives way to the builder without asking', () => {
    const expanded = switched(expandSchedule(design, 0, computed(design).program));
    const r = switched(switchBuilder(expanded.design, 'zb-h1'));
    expect(r.design.directives).toEqual([{ op: 'schedule', builder: 'zb-h1', microbatches: 8 }]);
  });

  test('split backward dropped on stage 1, then zb-h1, then dualpipev ends in a design that compiles with no stale directive', () => {
    const base = computed(design);
    const dropped = switched(
      dropItem(design, 'split_backward', { id: 'B.b1.mb0', tags: { PP: 1, MB: 0, PASS: 'B' } }, base.program),
    );
    const zb = switched(switchBuilder(dropped.design, 'zb-h1'));
    expect(zb.design.directives).toEqual([{ op: 'schedule', builder: 'zb-h1', microbatches: 8 }]);
    expect(zb.notice).toContain('removed split_backward PP=1: zb-h1 splits that backward already');
    expect(zb.design.name).toBe('ZB-H1, p=4, m=8');
    const dual = switched(switchBuilder(zb.design, 'dualpipev'));
    expect(dual.design.directives).toEqual([{ op: 'schedule', builder: 'dualpipev', microbatches: 8 }]);
    expect(dual.design.name).toBe('DualPipeV, p=4, m=8');
    expect(computed(dual.design).ops).toBeGreaterThan(0);
  });

  test('a directive on a PP stage follows the stage into the recut model', () => {
    const r = switched(
      switchBuilder(withDirective(design, { op: 'recompute', filter: { PP: 1 } }), 'dualpipev'),
    );
    expect(r.design.directives.slice(1)).toEqual([
      { op: 'recompute', filter: { PP: 2 } },
      { op: 'recompute', filter: { PP: 3 } },
    ]);
    expect(r.notice).toContain('recompute PP=1 → PP=2, PP=3');
    expect(computed(r.design).ops).toBeGreaterThan(0);
  });

  test('split_backward on a stage the new builder runs fused is kept, on the recut stages', () => {
    const r = switched(
      switchBuilder(withDirective(design, { op: 'split_backward', filter: { PP: 1 } }), 'dualpipev'),
    );
    expect(r.design.directives.slice(1)).toEqual([
      { op: 'split_backward', filter: { PP: 2 } },
      { op: 'split_backward', filter: { PP: 3 } },
    ]);
  });

  test('microbatches the builder cannot run become the fewest it can, named in the notice', () => {
    const few = {
      ...design,
      directives: [{ op: 'schedule' as const, builder: '1f1b' as const, microbatches: 4 }],
    };
    const r = switched(switchBuilder(few, 'dualpipev'));
    expect(r.design.directives[0]).toMatchObject({ microbatches: 8 });
    expect(r.notice).toContain('microbatches 4 → 8');
    expect(r.design.name).toBe('DualPipeV, p=4, m=8');
  });

  test('a directive on a microbatch the new schedule does not run is removed and named', () => {
    const late = withDirective(design, { op: 'recompute', filter: { PP: 0, MB: 5 } });
    const r = switched(switchBuilder(late, 'dualpipe'));
    expect(r.design.directives.map((d) => d.op)).toEqual(['schedule']);
    expect(r.notice).toContain('removed recompute PP=0 MB=5: dualpipe runs microbatches 0..3, not 5');
  });

  test('a directive on one direction of DualPipe keeps its stage when there is one direction', () => {
    const dual = switched(switchBuilder(design, 'dualpipe')).design;
    const r = switched(
      switchBuilder(withDirective(dual, { op: 'recompute', filter: { PP: 2, DIR: 1 } }), '1f1b'),
    );
    expect(r.design.directives.at(-1)).toEqual({ op: 'recompute', filter: { PP: 2 } });
    expect(r.notice).toContain('only dualpipe runs two directions');
  });

  test('a builder the ranks do not fit is refused with its reason', () => {
    const three = { ...design, cluster: { kind: 'ideal' as const, devices: 3 } };
    const r = switchBuilder(three, 'dualpipe');
    expect(r).toEqual({ ok: false, error: expect.stringContaining('even number of ranks') });
  });

  test('a schedule’s hand edits are dropped only once the user confirms, and named', () => {
    const r1f1b = runExample('1f1b-p4-m8');
    const moved = moveOp(r1f1b.design, r1f1b.compiled, {
      op: 'F.b3.mb1',
      target: 'F.b3.mb0',
      position: 'before',
    });
    if (!moved.ok) throw new Error(moved.reason);
    const asked = switchBuilder(moved.design, 'zb-h1');
    if (asked.ok || !asked.confirm) throw new Error('the switch did not ask');
    expect(asked.confirm.items).toEqual(['directives[0].edits[0]: move 3F1 before 3F0']);
    const r = switched(switchBuilder(moved.design, 'zb-h1', true));
    expect(r.design.directives).toEqual([{ op: 'schedule', builder: 'zb-h1', microbatches: 8 }]);
    expect(r.notice).toContain("dropped the schedule's 1 hand edit");
  });

  test('explicit orders reordered by hand are dropped only once the user confirms', () => {
    const expanded = switched(expandSchedule(design, 0, computed(design).program)).design;
    const moved = moveOp(expanded, computed(expanded), {
      op: 'F.b3.mb1',
      target: 'F.b3.mb0',
      position: 'before',
    });
    if (!moved.ok) throw new Error(moved.reason);
    const asked = switchBuilder(moved.design, 'zb-h1');
    if (asked.ok || !asked.confirm) throw new Error('the switch did not ask');
    // Only the last device's order was moved: the other three are still 1F1B's.
    expect(asked.confirm.items).toEqual(['directives[8]: order of 16 slots']);
    const r = switched(switchBuilder(moved.design, 'zb-h1', true));
    expect(r.design.directives).toEqual([{ op: 'schedule', builder: 'zb-h1', microbatches: 8 }]);
    expect(r.notice).toContain('dropped the hand-edited directives[8]');
  });
});
