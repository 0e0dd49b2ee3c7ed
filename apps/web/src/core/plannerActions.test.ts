import type { Design } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import type { PlannerSession } from './action.ts';
import { cancelPlanAction, openPlanPointAction, startPlanAction, sweepAction } from './actions.ts';
import { DEFAULT_PLAN_FORM } from './planForm.ts';

/** A planner session that records what the actions asked of it. */
function fakeSession(searching = false) {
  const calls: string[] = [];
  const session: PlannerSession & { calls: string[] } = {
    design: example('1f1b-p4-m8'),
    searching,
    calls,
    startSearch: (r) => calls.push(`start ${JSON.stringify(r)}`),
    cancelSearch: () => calls.push('cancel'),
    runSweep: (axis, values) => calls.push(`sweep ${axis} ${values.join(',')}`),
    openLayout: (d: Design, label, pin) => calls.push(`open ${d.name} "${label}" pin=${pin}`),
    refuse: (e) => calls.push(`refused: ${e}`),
  };
  return session;
}

describe('the planner panel’s actions', () => {
  test('Search sends the fields as numbers; empty ones are left to the design and the cluster', () => {
    const s = fakeSession();
    startPlanAction.perform(s, { form: { maxMemoryGiB: '80', globalBatch: '', budgetS: '5' } });
    expect(s.calls).toEqual(['start {"budgetS":5,"maxMemoryGiB":80}']);
  });

  test('Search with wrong fields is refused, each field named, and nothing starts', () => {
    const s = fakeSession();
    startPlanAction.perform(s, { form: { maxMemoryGiB: '-1', globalBatch: '2.5', budgetS: '0' } });
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatch(/^refused: max memory: expected GiB above 0, not "-1"/);
    expect(s.calls[0]).toContain('global batch: expected a whole number of sequences, not "2.5"');
    expect(s.calls[0]).toContain('budget: expected seconds above 0 and at most 120, not "0"');
  });

  test('a second Search while one runs is refused; Cancel stops the running one and is a no-op otherwise', () => {
    const running = fakeSession(true);
    startPlanAction.perform(running, { form: DEFAULT_PLAN_FORM });
    cancelPlanAction.perform(running, undefined);
    expect(running.calls).toEqual([
      'refused: a search is running: cancel it before starting another',
      'cancel',
    ]);
    const idle = fakeSession(false);
    cancelPlanAction.perform(idle, undefined);
    expect(idle.calls).toEqual([]);
  });

  test('Sweep reads ranges and lists, sorted and without repeats; bad values are refused', () => {
    const s = fakeSession();
    sweepAction.perform(s, { axis: 'microbatches', values: '8, 2-4, 2' });
    sweepAction.perform(s, { axis: 'stages', values: '2, x' });
    sweepAction.perform(s, { axis: 'stages', values: '1-40' });
    sweepAction.perform(s, { axis: 'stages', values: ' , ' });
    expect(s.calls).toEqual([
      'sweep microbatches 2,3,4,8',
      'refused: values: "x" is not a whole number from 1 up',
      'refused: values: "1-40" has more than 16 values',
      'refused: values: give at least one, e.g. "1, 2, 4, 8"',
    ]);
  });

  test('a point of the front opens (or pins) its design under its layout’s name; a design that does not read is refused', () => {
    const s = fakeSession();
    const layout = {
      pp: 4,
      vp: 1,
      dp: 2,
      tp: 1,
      ep: 1,
      zero: 1,
      builder: '1f1b',
      microbatches: 8,
      microbatchSize: 1,
    };
    openPlanPointAction.perform(s, { point: { layout, design: example('1f1b-p4-m8') }, pin: false });
    openPlanPointAction.perform(s, { point: { layout, design: example('1f1b-p4-m8') }, pin: true });
    openPlanPointAction.perform(s, { point: { layout, design: { format: 'nope' } }, pin: false });
    expect(s.calls[0]).toBe('open 1F1B, p=4, m=8 "PP4 × DP2 · 1f1b · m=8×1 · ZeRO-1" pin=false');
    expect(s.calls[1]).toMatch(/pin=true$/);
    expect(s.calls[2]).toMatch(
      /^refused: the layout PP4 × DP2 · 1f1b · m=8×1 · ZeRO-1 does not read as a design: format/,
    );
  });
});
