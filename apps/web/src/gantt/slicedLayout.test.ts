// @vitest-environment happy-dom
import type { Design } from '@stagecraft/ir';
import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, test } from 'vitest';
import { computeDesign } from '../core/computeDesign.ts';
import { layoutGantt, layoutSteps } from './layout.ts';
import {
  beginTimelineWork,
  endTimelineWork,
  SLICED_LAYOUT_EVENTS,
  useGanttLayout,
  whenTimelinesLaidOut,
} from './slicedLayout.ts';

function simulated(microbatches: number) {
  const design: Design = {
    format: 'stagecraft/design@1',
    name: `1F1B p=4 m=${microbatches}`,
    model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: 4 },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches }],
  } as Design;
  const { result } = computeDesign(design, new Set(), { layout: false });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
  return { sim: result.simulation, plan: result.plan };
}

function useLayoutOf({ sim, plan }: ReturnType<typeof simulated>) {
  return useGanttLayout(
    sim.timeline?.length ?? 0,
    () => layoutSteps(sim, plan),
    () => layoutGantt({ ...sim, timeline: [] }, plan),
    [sim],
  );
}

describe('the timeline laid out without a long task', () => {
  test('a small timeline is laid out at once', () => {
    const small = simulated(8);
    const { result } = renderHook(() => useLayoutOf(small));
    expect(result.current.pending).toBe(false);
    expect(result.current.layout.ops).toHaveLength(small.sim.timeline!.length);
  });

  test('a big one shows its lanes at once and its ops once laid out, as a layout in one go places them', async () => {
    const big = simulated(2600);
    expect(big.sim.timeline!.length).toBeGreaterThan(SLICED_LAYOUT_EVENTS);
    const { result } = renderHook(() => useLayoutOf(big));
    expect(result.current.pending).toBe(true);
    expect(result.current.layout.ops).toHaveLength(0);
    expect(result.current.layout.lanes.length).toBeGreaterThan(0);
    await waitFor(() => expect(result.current.pending).toBe(false), { timeout: 10_000 });
    const whole = layoutGantt(big.sim, big.plan);
    expect(result.current.layout.ops.map((o) => [o.ev.id, o.y])).toEqual(
      whole.ops.map((o) => [o.ev.id, o.y]),
    );
    expect(result.current.layout.bubbles).toEqual(whole.bubbles);
  });

  test('while the next big layout is under way the one before stays on screen', async () => {
    const first = simulated(2600);
    const second = simulated(2700);
    const { result, rerender } = renderHook((input) => useLayoutOf(input), { initialProps: first });
    await waitFor(() => expect(result.current.pending).toBe(false), { timeout: 10_000 });
    const shown = result.current.layout;
    rerender(second);
    expect(result.current).toEqual({ layout: shown, pending: true });
    await waitFor(() => expect(result.current.pending).toBe(false), { timeout: 10_000 });
    expect(result.current.layout.ops).toHaveLength(second.sim.timeline!.length);
  });

  test('work that waits for the timeline runs once a big one is laid out, at once when none is', async () => {
    const ran: string[] = [];
    whenTimelinesLaidOut(() => ran.push('idle'));
    expect(ran).toEqual(['idle']);
    const big = simulated(2600);
    const { result } = renderHook(() => useLayoutOf(big));
    whenTimelinesLaidOut(() => ran.push(`after, pending ${result.current.pending}`));
    expect(ran).toEqual(['idle']);
    await waitFor(() => expect(ran).toHaveLength(2), { timeout: 10_000 });
    expect(ran[1]).toBe('after, pending false');
  });

  test('work that waits for the timeline waits for its paint in slices too', async () => {
    const ran: string[] = [];
    const paint = {};
    beginTimelineWork(paint);
    whenTimelinesLaidOut(() => ran.push('after the paint'));
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual([]);
    endTimelineWork(paint);
    await waitFor(() => expect(ran).toEqual(['after the paint']));

    // A paint still under way when the layout ends holds back what the layout's end would let run.
    const big = simulated(2600);
    const second = {};
    const { result } = renderHook(() => useLayoutOf(big));
    beginTimelineWork(second);
    whenTimelinesLaidOut(() => ran.push('after the layout and its paint'));
    await waitFor(() => expect(result.current.pending).toBe(false), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toEqual(['after the paint']);
    endTimelineWork(second);
    await waitFor(() => expect(ran).toEqual(['after the paint', 'after the layout and its paint']));
  });
});
