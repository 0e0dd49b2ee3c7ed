import { readFileSync } from 'node:fs';
import type { Design } from '@stagecraft/ir';
import { compareMeasured } from '@stagecraft/measure';
import { chromeTrace } from '@stagecraft/sim';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { describe, expect, test } from 'vitest';
import { initStore, useStore } from '../store/index.ts';
import { performSession } from '../store/session.ts';
import { applyCalibrationAction, undoAction } from './actions.ts';
import { measuredOverlay, readMeasuredFiles } from './measuredOverlay.ts';
import { measuredSimulation } from './measuredSimulation.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/measured/${name}`, import.meta.url), 'utf8');
const p2m2 = JSON.parse(fixture('p2-m2.json')) as Design;

function staged(name: string, costs: { F: number; BI: number; BW: number }[]): Design {
  return {
    format: 'stagecraft/design@2',
    name,
    model: {
      kind: 'synthetic',
      blocks: costs.map((c, i) => ({ name: `stage ${i}`, tags: { PP: i }, ...c, paramBytes: 1 << 20 })),
    },
    cluster: { kind: 'ideal', devices: costs.length },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: 4 }],
  } as Design;
}

function simulated(design: Design) {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) throw new Error('does not compile');
  const sim = simulateRun(run, true).result;
  if (!sim.ok) throw new Error('does not simulate');
  return { plan: run.compiled.plan, sim: sim.sim };
}

/** A "measured" step: another design's simulated one, written as the runtime writes its traces. */
function measuredTraceOf(design: Design): string {
  const { plan, sim } = simulated(design);
  return JSON.stringify(chromeTrace(plan, sim));
}

const truth = staged('truth', [
  { F: 2, BI: 1.5, BW: 1 },
  { F: 3, BI: 2, BW: 0.5 },
]);
const guess = staged('guess', [
  { F: 1, BI: 1, BW: 1 },
  { F: 1, BI: 1, BW: 1 },
]);

describe('the measured overlay', () => {
  test('per-rank legacy profiler traces give lanes for both devices, the divergences and a calibration', () => {
    const o = measuredOverlay(p2m2, [
      { name: 'rank0.json', text: fixture('rank0.json') },
      { name: 'rank1.json', text: fixture('rank1.json') },
    ]);
    if (!o.ok) throw new Error(o.errors.join('\n'));
    expect(o.alignedClocks).toBe(false);
    expect(new Set(o.timeline.events.map((e) => e.device))).toEqual(new Set([0, 1]));
    expect(o.replay.divergences.length).toBeGreaterThan(0);
    expect(o.replay.divergences[0]).toMatchObject({ device: expect.any(Number), id: expect.any(String) });
    expect(o.calibrated?.model.kind).toBe('synthetic');
  });

  test('its comparison is the CLI’s compare --measured of the design as it is', () => {
    const step = readMeasuredFiles([{ name: 'measured.json', text: measuredTraceOf(truth) }]);
    if (!step.ok) throw new Error(step.errors.join('\n'));
    const cli = compareMeasured(guess, step.step);
    const o = measuredOverlay(guess, [{ name: 'measured.json', text: measuredTraceOf(truth) }]);
    if (!cli.ok || !o.ok) throw new Error('does not compare');
    expect(o.replay).toEqual(cli.replay);
    expect(o.timeline.step).toBe(cli.steps[0]);
  });

  test('a bad trace is refused with its file and the event, as the CLI refuses it', () => {
    const bad = JSON.stringify([{ name: 'F.b0.mb0', ph: 'X', ts: 0, dur: -1, pid: 'CPU functions' }]);
    const o = measuredOverlay(p2m2, [{ name: 'rank0.json', text: bad }]);
    expect(o.ok).toBe(false);
    if (o.ok) return;
    expect(o.errors[0]).toMatch(/^rank0\.json: \[0\]\.dur: .*F\.b0\.mb0/);
  });

  test('two files measuring one rank are refused, naming the second', () => {
    const o = measuredOverlay(p2m2, [
      { name: 'rank0.json', text: fixture('rank0.json') },
      { name: 'trace_rank0.json', text: fixture('rank0.json') },
    ]);
    expect(o.ok).toBe(false);
    if (!o.ok)
      expect(o.errors.join('\n')).toContain('trace_rank0.json: device 0 is also measured in rank0.json');
  });

  test('a file that is not JSON is refused by name', () => {
    const o = measuredOverlay(p2m2, [{ name: 'notes.txt', text: 'hello' }]);
    expect(o.ok).toBe(false);
    if (!o.ok) expect(o.errors[0]).toMatch(/^notes\.txt: neither JSON nor a CSV stage table/);
  });

  test('applying the calibration is one undoable edit, after which the prediction is the measured step', () => {
    const o = measuredOverlay(guess, [{ name: 'measured.json', text: measuredTraceOf(truth) }]);
    if (!o.ok || !o.calibrated) throw new Error('no calibration');
    const measuredMs = simulated(truth).sim.makespanMs;
    expect(o.replay.measuredStepMs).toBeCloseTo(measuredMs, 9);
    expect(o.replay.predictedStepMs).toBeLessThan(measuredMs);
    expect(o.calibrated.predictedStepMs).toBeCloseTo(measuredMs, 6);

    initStore(guess);
    const s = () => useStore.getState();
    expect(
      s().dispatch(applyCalibrationAction, {
        model: o.calibrated.model,
        cluster: o.calibrated.cluster,
        files: o.files,
        fittedTo: s().design,
      }),
    ).toBe(true);
    expect(simulated(s().design).sim.makespanMs).toBeCloseTo(measuredMs, 6);
    expect(s().notice?.text).toContain('measured.json');
    performSession(undoAction);
    expect(s().design.model).toEqual(guess.model);
    expect(s().design.cluster).toEqual(guess.cluster);
  });

  test('a calibration applies only to the design it was fitted to, with the reason', () => {
    const o = measuredOverlay(guess, [{ name: 'measured.json', text: measuredTraceOf(truth) }]);
    if (!o.ok || !o.calibrated) throw new Error('no calibration');
    initStore(guess);
    const s = () => useStore.getState();
    const parts = { model: o.calibrated.model, cluster: o.calibrated.cluster, files: o.files };
    const other = { ...guess, name: 'another design' };
    expect(s().dispatch(applyCalibrationAction, { ...parts, fittedTo: other })).toBe(false);
    expect(s().notice?.text).toBe(
      `the calibration was fitted to "another design", not to "${guess.name}": it applies to the design the traces were compared with`,
    );
    const before = s().design;
    expect(s().dispatch(applyCalibrationAction, { ...parts, fittedTo: { ...guess } })).toBe(false);
    expect(s().notice?.text).toMatch(/^the calibration was fitted before the design last changed/);
    expect(s().design).toBe(before);
  });

  test('the measured lanes are drawn from the measured step, busy time and bubbles included', () => {
    const o = measuredOverlay(guess, [{ name: 'measured.json', text: measuredTraceOf(truth) }]);
    if (!o.ok) throw new Error(o.errors.join('\n'));
    const sim = measuredSimulation(o.timeline, [0, 1]);
    const truthSim = simulated(truth).sim;
    expect(sim.makespanMs).toBeCloseTo(truthSim.makespanMs, 9);
    sim.devices.forEach((d, i) => {
      expect(d.busyMs).toBeCloseTo(truthSim.devices[i]!.busyMs, 9);
    });
  });
});
