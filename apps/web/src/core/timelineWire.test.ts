import type { TimelineEvent } from '@stagecraft/sim';
import { describe, expect, test } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { packEvents, unpackEvents } from './timelineWire.ts';

describe('timeline events posted by the worker', () => {
  test.each(['1f1b-p4-m8', 'zb-h1-p4-m8', 'dualpipev-p4-m10'] as const)(
    'come out on the page as the simulator made them (%s)',
    (name) => {
      const events = runExample(name).sim.timeline!;
      const { posted, transfer } = packEvents(events);
      // What postMessage does with them: a structured clone, the buffers moved.
      const onPage = unpackEvents(structuredClone(posted, { transfer }));
      expect(onPage).toEqual(events);
    },
  );

  test('keep every kind of tag value and optional field', () => {
    const events: TimelineEvent[] = [
      {
        device: 3,
        stream: 'p2p',
        id: 'SEND.a',
        op: 'SEND',
        startMs: 1.5,
        endMs: 2,
        tags: { PP: 0, MB: -1, PASS: 'F' },
        peer: 0,
        bytes: 0,
      },
      {
        device: 0,
        stream: 'compute',
        id: 'O.1',
        op: 'OVERLAP',
        startMs: 0,
        endMs: 1,
        tags: {},
        members: ['F.a', 'B.b'],
      },
      {
        device: 0,
        stream: 'dp',
        id: 'AR.1',
        op: 'ALL_REDUCE',
        startMs: 2,
        endMs: 3,
        tags: { LAYER: 4 },
        bytes: 2 ** 40,
      },
    ];
    expect(unpackEvents(packEvents(events).posted)).toEqual(events);
  });
});
