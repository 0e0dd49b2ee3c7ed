import type { Design } from '@stagecraft/ir';
import { chromeTrace } from '@stagecraft/sim';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { expect, test } from 'vitest';
import { oversizeFiles } from '../measured/measuredFiles.ts';
import { measuredOverlayOnce, measuredWork } from './measuredMemo.ts';

function oneFOneB(name: string, F: number): Design {
  return {
    format: 'stagecraft/design@2',
    name,
    model: { kind: 'synthetic', stages: 2, costs: { F, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: 2 },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: 4 }],
  } as Design;
}

function traceOf(design: Design): string {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) throw new Error('does not compile');
  const sim = simulateRun(run, true).result;
  if (!sim.ok) throw new Error('does not simulate');
  return JSON.stringify(chromeTrace(run.compiled.plan, sim.sim));
}

test('an edit of the design compares the same trace again without reading it again', () => {
  const files = [{ name: 'step.json', text: traceOf(oneFOneB('truth', 2)) }];
  const before = measuredWork();
  const first = measuredOverlayOnce(oneFOneB('d', 1), files);
  expect(first.ok).toBe(true);
  // The same files posted again (a copy, as the worker receives them) and the same design: nothing is redone.
  const again = measuredOverlayOnce(
    oneFOneB('d', 1),
    files.map((f) => ({ ...f })),
  );
  expect(again).toBe(first);
  const edited = measuredOverlayOnce(oneFOneB('d', 3), files);
  expect(edited).not.toBe(first);
  expect(measuredWork()).toEqual({ reads: before.reads + 1, overlays: before.overlays + 2 });
  measuredOverlayOnce(oneFOneB('d', 3), [{ name: 'other.json', text: traceOf(oneFOneB('truth', 1)) }]);
  expect(measuredWork().reads).toBe(before.reads + 2);
});

test('a trace over the size the page reads is refused by its size, naming it and the CLI command', () => {
  expect(oversizeFiles([{ name: 'small.json', size: 1000 }])).toEqual([]);
  expect(oversizeFiles([{ name: 'big.json', size: 500_000_000 }])).toEqual([
    'big.json: 476.8 MiB, over the 64.0 MiB the page reads; compare it with `stagecraft compare <design> --measured big.json`',
  ]);
});
