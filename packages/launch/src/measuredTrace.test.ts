import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Plan, planFingerprint } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { RUNTIME_DIR } from './index.ts';
import { measuredTrace } from './measuredTrace.ts';

const PLAN = JSON.parse(readFileSync(join(RUNTIME_DIR, 'tests/plans/1f1b-p4-m8.json'), 'utf8')) as Plan;

describe("the runtime's measured trace", () => {
  it('records the fingerprint of the plan it ran, which the designer and calibrate check', () => {
    const trace = measuredTrace(PLAN, { 0: [['compute', 'F.b0.mb0', 1.0, 1.001]] });
    expect(trace.otherData).toMatchObject({
      format: 'stagecraft chrome-trace',
      planFingerprint: planFingerprint(PLAN),
    });
    expect(planFingerprint(PLAN)).toMatch(/^plan:4d:\d+i:[0-9a-f]{8}$/);
  });
});
