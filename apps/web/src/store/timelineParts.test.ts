// @vitest-environment happy-dom
import { describe, expect, test } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { example } from '../../test/testDesigns.ts';
import { packEvents } from '../core/timelineWire.ts';
import { planOutline } from '../gantt/timelinePlan.ts';
import { initStore, useStore } from './index.ts';

/** The example's result as the worker posts a big one: its timeline in parts, then the result. */
function postedInParts(partSize: number) {
  const { sim, plan } = runExample('1f1b-p4-m8');
  const revision = useStore.getState().revision;
  const events = sim.timeline ?? [];
  const parts = [];
  for (let i = 0; i < events.length; i += partSize)
    parts.push({
      type: 'timeline',
      revision,
      events: packEvents(events.slice(i, i + partSize)).posted,
    } as const);
  const result = {
    ok: true,
    simulation: { ...sim, timeline: [] },
    program: [],
    passes: [],
    ops: sim.ops,
    compileMs: 1,
    simulateMs: 1,
    plan: planOutline(plan),
  } as never;
  return {
    events,
    parts,
    computed: { type: 'computed', revision, result, workerMs: 1, timelineParts: parts.length } as const,
  };
}

describe('a timeline posted in parts', () => {
  test('the result on the page holds the whole timeline, in order', () => {
    initStore(example('1f1b-p4-m8'));
    const { events, parts, computed } = postedInParts(10);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) useStore.receive(p);
    useStore.receive(computed);
    expect(useStore.getState().result?.simulation.timeline).toEqual(events);
  });

  test('a part that went missing shows as an error, not as a timeline with a gap', () => {
    initStore(example('1f1b-p4-m8'));
    const { parts, computed } = postedInParts(10);
    for (const p of parts.slice(1)) useStore.receive(p);
    useStore.receive(computed);
    const s = useStore.getState();
    expect(s.result).toBeNull();
    expect(s.errors[0]?.message).toMatch(/parts of the timeline did not arrive/);
  });

  test('parts of a result the design has moved past are dropped with it', () => {
    initStore(example('1f1b-p4-m8'));
    const stale = postedInParts(10);
    for (const p of stale.parts) useStore.receive(p);
    useStore.setState({ revision: useStore.getState().revision + 1 });
    const fresh = postedInParts(10);
    for (const p of fresh.parts) useStore.receive(p);
    useStore.receive(fresh.computed);
    expect(useStore.getState().result?.simulation.timeline).toHaveLength(
      fresh.parts.reduce((n, p) => n + p.events.count, 0),
    );
  });
});
