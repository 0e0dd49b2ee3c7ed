import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readMeasurement } from './index.ts';

const event = fc.record(
  {
    name: fc.oneof(
      fc.constantFrom('F.b0.mb0', 'BI.b1.mb2', '(F.b0.mb1;B.b1.mb0)', 'aten::mm', 'UPD.d0'),
      fc.string(),
    ),
    ph: fc.oneof(fc.constant('X'), fc.string()),
    ts: fc.oneof(fc.double(), fc.string(), fc.constant(null)),
    dur: fc.oneof(fc.double(), fc.string(), fc.constant(null)),
    pid: fc.oneof(fc.nat(8), fc.constant('CPU functions'), fc.constant(-1)),
    args: fc.oneof(
      fc.constant(undefined),
      fc.record({ id: fc.string(), postedUs: fc.double() }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: [] },
);

const documents = fc.oneof(
  fc.array(fc.oneof(event, fc.anything())),
  fc.record(
    {
      traceEvents: fc.oneof(fc.array(event), fc.anything()),
      distributedInfo: fc.oneof(fc.record({ rank: fc.oneof(fc.integer(), fc.string()) }), fc.anything()),
      otherData: fc.oneof(fc.constant({ format: 'stagecraft chrome-trace' }), fc.anything()),
    },
    { requiredKeys: [] },
  ),
  fc.record({ format: fc.constant('stagecraft/measured-costs@1'), stages: fc.anything() }),
  fc.anything(),
);

describe('reading any measurement file', () => {
  it('answers a measured step, a stage table or errors with a path, and never throws', () => {
    fc.assert(
      fc.property(documents, fc.constantFrom('rank0.json', 'trace.json'), (doc, file) => {
        const r = readMeasurement(JSON.stringify(doc) ?? 'null', file);
        if (!r.ok) {
          expect(r.errors.length).toBeGreaterThan(0);
          for (const e of r.errors) expect(typeof e.path).toBe('string');
          return;
        }
        if (r.kind === 'trace')
          for (const d of r.step.devices)
            for (const s of d.spans) expect(s.endMs).toBeGreaterThanOrEqual(s.startMs);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any CSV text as a stage table or says which row and column is wrong', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.oneof(fc.double(), fc.string()), { maxLength: 5 }), { maxLength: 5 }),
        (rows) => {
          const text = `stage,F,BI,BW\n${rows.map((r) => r.join(',')).join('\n')}`;
          const r = readMeasurement(text, 'stages.csv');
          if (!r.ok) for (const e of r.errors) expect(e.path).toMatch(/^row \d+/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
