import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { run, runExample } from '../../test/simulatedExamples.ts';
import { compareRows } from './compareMetrics.ts';

describe('compare table', () => {
  it('lists step time, both bubble conventions, exposed communication and peak memory per device', () => {
    const a = runExample('1f1b-p4-m8').sim;
    const b = runExample('zb-h1-p4-m8').sim;
    const rows = compareRows([a, b]);
    expect(rows.map((r) => r.key)).toEqual([
      'step',
      'bubble',
      'bubble-ideal',
      'exposed-comm',
      'peak-memory',
      'peak-memory-0',
      'peak-memory-1',
      'peak-memory-2',
      'peak-memory-3',
    ]);
    const step = rows.find((r) => r.key === 'step')!;
    expect(step.cells.map((c) => c.value)).toEqual([33, b.makespanMs]);
    // 1F1B's bubble is (p−1)/(m+p−1) of the total and (p−1)/m of the ideal.
    const bubble = rows.find((r) => r.key === 'bubble')!;
    expect(bubble.cells[0]!.value).toBeCloseTo(3 / 11, 12);
    expect(rows.find((r) => r.key === 'bubble-ideal')!.cells[0]!.value).toBeCloseTo(3 / 8, 12);
    const highest = rows.find((r) => r.key === 'peak-memory')!;
    expect(highest.cells[0]!.value).toBe(Math.max(...a.devices.map((d) => d.peakMemoryBytes)));
    expect(highest.device).toBeUndefined();
    expect(rows.find((r) => r.key === 'peak-memory-2')!.device).toBe(2);
  });

  it('marks each difference against the baseline as better or worse in the metric’s direction', () => {
    const a = runExample('1f1b-p4-m8').sim;
    const b = runExample('zb-h1-p4-m8').sim;
    const g = runExample('gpipe-p4-m8').sim;
    const rows = compareRows([a, b, g]);
    const step = rows.find((r) => r.key === 'step')!;
    expect(step.cells.map((c) => c.verdict)).toEqual(['baseline', 'better', 'same']);
    expect(step.cells[1]!.delta).toBeCloseTo(b.makespanMs - 33, 12);
    expect(step.cells[1]!.delta).toBeLessThan(0);
    // GPipe stashes all m microbatches on rank 0 where 1F1B stashes p: more memory, worse.
    const mem0 = rows.find((r) => r.key === 'peak-memory-0')!;
    expect(mem0.cells[2]!.verdict).toBe('worse');
    expect(mem0.cells[2]!.relative).toBeGreaterThan(0);
  });

  it('compares tokens/s with higher as better when the plans know their tokens', () => {
    const a = runExample('1f1b-p4-m8').sim;
    const rows = compareRows([
      { ...a, tokensPerSecond: 1000 },
      { ...a, tokensPerSecond: 1200 },
    ]);
    const tokens = rows.find((r) => r.key === 'tokens')!;
    expect(tokens.cells.map((c) => c.verdict)).toEqual(['baseline', 'better']);
    expect(tokens.cells[1]!.relative).toBeCloseTo(0.2, 12);
  });
});

describe('compare table against a chosen baseline', () => {
  it('takes every difference against the chosen variant', () => {
    const a = runExample('1f1b-p4-m8').sim;
    const b = runExample('zb-h1-p4-m8').sim;
    const step = compareRows([a, b], 1).find((r) => r.key === 'step')!;
    expect(step.cells.map((c) => c.verdict)).toEqual(['worse', 'baseline']);
    expect(step.cells[0]!.delta).toBeCloseTo(33 - b.makespanMs, 12);
  });

  it('marks the best variant of each row, in the metric’s direction, and none where all are equal', () => {
    const a = runExample('1f1b-p4-m8').sim;
    const b = runExample('zb-h1-p4-m8').sim;
    const g = runExample('gpipe-p4-m8').sim;
    const rows = compareRows([a, b, g]);
    expect(rows.find((r) => r.key === 'step')!.cells.map((c) => c.best)).toEqual([false, true, false]);
    // GPipe holds every microbatch's activations on rank 0: the 1F1B schedules tie for best.
    const mem0 = rows.find((r) => r.key === 'peak-memory-0')!;
    expect(mem0.cells[2]!.best).toBe(false);
    expect(mem0.cells.some((c) => c.best)).toBe(true);
    const twins = compareRows([a, a]);
    expect(twins.every((r) => r.cells.every((c) => !c.best))).toBe(true);
  });
});

describe('compare table of variants with different batches', () => {
  const m8 = runExample('1f1b-p4-m8');
  const m16 = run({
    ...m8.design,
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: 16 }],
  } as Design);

  it('gives the microbatches per step and the time per microbatch, and ranks by it, not by step time', () => {
    const rows = compareRows([m8.sim, m16.sim], 0, [8, 16]);
    expect(rows.slice(0, 3).map((r) => r.key)).toEqual(['step', 'time-per-microbatch', 'microbatches']);
    const step = rows.find((r) => r.key === 'step')!;
    // 16 microbatches take longer than 8: that is no loss, so the step time is neither red nor starred.
    expect(step.label).toBe('step time (batches differ: ranked by time per microbatch)');
    expect(step.cells.map((c) => c.verdict)).toEqual(['baseline', 'differs']);
    expect(step.cells.some((c) => c.best)).toBe(false);
    const perMicrobatch = rows.find((r) => r.key === 'time-per-microbatch')!;
    expect(perMicrobatch.cells[0]!.value).toBeCloseTo(33 / 8, 12);
    expect(perMicrobatch.cells[1]!.value).toBeCloseTo(m16.sim.makespanMs / 16, 12);
    // p = 4, m = 16: (m + p − 1) / m = 19/16 of a microbatch's 3 ms of work against 11/8 for m = 8.
    expect(perMicrobatch.cells.map((c) => c.verdict)).toEqual(['baseline', 'better']);
    expect(perMicrobatch.cells.map((c) => c.best)).toEqual([false, true]);
    const batches = rows.find((r) => r.key === 'microbatches')!;
    expect(batches.cells.map((c) => c.value)).toEqual([8, 16]);
    expect(batches.cells.some((c) => c.best)).toBe(false);
  });

  it('ranks step time as before when the batches are equal, naming them in its label', () => {
    const a = runExample('1f1b-p4-m8').sim;
    const b = runExample('zb-h1-p4-m8').sim;
    // 1F1B's 33 ms and ZB-H1's step at 8,000 tokens/s: 264 tokens per step each.
    const withTokens = [
      { ...a, tokensPerSecond: 264 / 0.033 },
      { ...b, tokensPerSecond: 264 / (b.makespanMs / 1000) },
    ];
    const rows = compareRows(withTokens, 0, [8, 8]);
    const step = rows.find((r) => r.key === 'step')!;
    expect(step.label).toBe('step time (8 microbatches, 264 tokens)');
    expect(step.cells.map((c) => c.verdict)).toEqual(['baseline', 'better']);
    expect(rows.map((r) => r.key)).not.toContain('microbatches');
    // Tokens that differ at equal microbatches (another sequence length) get their row.
    const longer = compareRows([withTokens[0]!, { ...b, tokensPerSecond: 1e6 }], 0, [8, 8]);
    const tokens = longer.find((r) => r.key === 'tokens-per-step')!;
    expect(tokens.cells[0]!.value).toBeCloseTo(264, 9);
    expect(longer.find((r) => r.key === 'step')!.label).toBe('step time (8 microbatches)');
  });
});
