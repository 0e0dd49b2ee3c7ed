import { describe, expect, it } from 'vitest';
import { EXAMPLES, runExample } from '../../test/simulatedExamples.ts';
import { layoutGantt } from './layout.ts';
import { indexPlan } from './planIndex.ts';
import { planOutline } from './timelinePlan.ts';

describe('plan outline', () => {
  it.each(Object.keys(EXAMPLES) as (keyof typeof EXAMPLES)[])(
    'lays %s out as the whole plan does, with far fewer instructions',
    (name) => {
      const { sim, plan } = runExample(name);
      const whole = layoutGantt(sim, plan);
      const outline = planOutline(plan);
      const drawn = layoutGantt(sim, outline);
      expect(drawn.bands.map((b) => [b.label, b.top, b.bottom])).toEqual(
        whole.bands.map((b) => [b.label, b.top, b.bottom]),
      );
      expect(drawn.lanes.map((l) => [l.device, l.stream, l.top, l.rows])).toEqual(
        whole.lanes.map((l) => [l.device, l.stream, l.top, l.rows]),
      );
      expect(drawn.ops.map((o) => [o.ev.id, o.y, o.h, o.chunk, o.memberChunks])).toEqual(
        whole.ops.map((o) => [o.ev.id, o.y, o.h, o.chunk, o.memberChunks]),
      );
      const count = (p: typeof outline) =>
        p.devices.reduce((n, d) => n + d.streams.reduce((m, s) => m + s.instructions.length, 0), 0);
      expect(count(outline)).toBe(
        plan.devices
          .flatMap((d) => d.streams.flatMap((s) => s.instructions))
          .filter((i) => i.op === 'OVERLAP').length,
      );
      expect(count(outline)).toBeLessThan(count(plan));
      // The arrows: every SEND paired with its RECV as from the whole plan.
      expect([...indexPlan(outline).transfers]).toEqual([...indexPlan(plan).transfers]);
    },
  );
});
