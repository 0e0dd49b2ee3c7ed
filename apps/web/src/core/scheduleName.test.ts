import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScheduleDirective, scheduleRanks } from '@stagecraft/ir';
import { getBuilder } from '@stagecraft/passes';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { isScheduleName, scheduleName } from './scheduleName.ts';

const examples = readdirSync(join(dirname(fileURLToPath(import.meta.url)), '../../../../examples'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => example(f.replace(/\.json$/, '')));

describe('names that follow the schedule', () => {
  test('every example named after its schedule is named as the switch would name it', () => {
    const generated = examples.filter((d) => isScheduleName(d.name));
    expect(generated.map((d) => d.name)).toContain('DualPipeV, p=4, m=10');
    for (const d of generated) {
      const s = d.directives.find((x): x is ScheduleDirective => x.op === 'schedule')!;
      const chunks = s.chunks ?? getBuilder(s.builder).defaultChunks;
      const ranks = scheduleRanks(s, d.cluster);
      expect(scheduleName({ builder: s.builder, ranks, chunks, microbatches: s.microbatches })).toBe(d.name);
    }
  });

  test('a name the user typed is not taken for a generated one', () => {
    expect(isScheduleName('Manual 1F1B, p=2, m=4')).toBe(false);
    expect(isScheduleName('Llama-3-70B PP4 x DP8, ZeRO-1, 1F1B, 32 H100')).toBe(false);
    expect(isScheduleName('1F1B, p=4, m=8 (tuned)')).toBe(false);
  });

  test('a generated name whose numbers are out of date still counts as generated', () => {
    expect(isScheduleName('1F1B, p=4, m=8')).toBe(true);
    expect(isScheduleName('ZB-V, p=16, m=64')).toBe(true);
  });
});
