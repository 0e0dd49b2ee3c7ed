// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import type { PlanJob } from '../api/planJobsApi.ts';
import { initStore, useStore } from '../store/index.ts';
import { INITIAL_SEARCH } from '../store/planner.ts';
import { PlannerPane } from './PlannerPane.tsx';
import { usePlanner } from './plannerPage.ts';

afterEach(cleanup);

const layout = (pp: number) => ({
  pp,
  vp: 1,
  dp: 4 / pp,
  tp: 1,
  ep: 1,
  zero: 0,
  builder: '1f1b',
  microbatches: 8,
  microbatchSize: 1,
});
const zb = example('zb-h1-p4-m8');
const gpipe = example('gpipe-p4-m8');
const job = (status: PlanJob['status']): PlanJob => ({
  id: 'a1',
  status,
  budgetS: 10,
  progress: {
    tried: 12,
    pruned: 30,
    frontSize: 2,
    elapsedMs: 4000,
    timeLeftMs: status === 'running' ? 6000 : 0,
  },
  ...(status === 'running'
    ? {}
    : {
        result: {
          front: [
            { layout: layout(2), design: zb, stepMs: 27, peakMemoryBytes: 2 ** 31, fits: true },
            { layout: layout(4), design: gpipe, stepMs: 45, peakMemoryBytes: 2 ** 30, fits: true },
          ],
          best: 0,
          spaceSize: 64,
          tried: 12,
          pruned: 30,
          stoppedEarly: false,
        },
      }),
});

describe('<PlannerPane>', () => {
  beforeEach(() => {
    initStore(example('1f1b-p4-m8'));
    usePlanner.setState({ ...INITIAL_SEARCH });
  });

  it('shows a running search’s progress with Cancel, and no Search until it stops', () => {
    usePlanner.setState({ job: job('running'), searchedFor: '1F1B, p=4, m=8' });
    render(<PlannerPane />);
    expect(screen.getByTestId('plan-progress').getAttribute('data-status')).toBe('running');
    expect(screen.getByTestId('plan-tried').textContent).toBe('12');
    expect(screen.getByTestId('plan-pruned').textContent).toBe('30');
    expect(screen.getByTestId('plan-front-size').textContent).toBe('2');
    expect(screen.getByTestId('plan-time-left').textContent).toBe('6.00 s');
    expect((screen.getByTestId('plan-start') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId('plan-cancel') as HTMLButtonElement).disabled).toBe(false);
  });

  it('a wrong field is refused at Search with the field named, in the page’s notice', () => {
    render(<PlannerPane />);
    fireEvent.change(screen.getByTestId('plan-budget'), { target: { value: 'soon' } });
    fireEvent.click(screen.getByTestId('plan-start'));
    expect(useStore.getState().notice).toEqual({
      kind: 'error',
      text: 'budget: expected seconds above 0 and at most 120, not "soon"',
    });
    expect(usePlanner.getState().starting).toBe(false);
  });

  it('lists the front with the fastest starred; a row selected opens in the designer, undoably', () => {
    usePlanner.setState({ job: job('done') });
    render(<PlannerPane />);
    const rows = screen.getAllByTestId('plan-front-row');
    expect(rows.map((r) => r.querySelector('td')!.textContent)).toEqual([
      '★ PP2 × DP2 · 1f1b · m=8×1',
      'PP4 × DP1 · 1f1b · m=8×1',
    ]);
    // The fastest is selected first.
    expect(screen.getByTestId('plan-selected').textContent).toContain('(fastest that fits)');
    fireEvent.click(rows[1]!);
    fireEvent.click(screen.getByTestId('plan-open'));
    const s = useStore.getState();
    expect(s.design).toEqual(gpipe);
    expect(s.tab).toBe('design');
    expect(s.notice?.text).toBe(
      "opened the planner's layout PP4 × DP1 · 1f1b · m=8×1: undo returns to the design before it",
    );
    expect(s.history.past.at(-1)?.name).toBe('1F1B, p=4, m=8');
  });
});
