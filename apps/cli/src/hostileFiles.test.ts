/**
 * Files of a few bytes to a few megabytes that once exhausted the heap, hung for minutes or
 * printed a million lines: each now gets its answer within the deadline, in at most the first
 * hundred issues and a line counting them all.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { HOSTILE_CASES } from '../test/hostileFiles.ts';
import { EXAMPLES, stagecraftWithin, TIMED_OUT } from '../test/run.ts';

/**
 * Each took from 25 s to past 300 s before, and takes 5 to 15 s now on a quiet machine (most of it
 * starting the CLI); the slack is for a machine busy with other work.
 */
const DEADLINE_MS = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'stagecraft-hostile-'));

// One at a time: each is timed against the deadline, which cases sharing two cores would blur.
describe('hostile files', () => {
  test.each(HOSTILE_CASES.map((c) => [c.name, c] as const))(
    '%s: answered within the deadline, in a bounded number of lines',
    async (_name, c) => {
      const r = await stagecraftWithin(DEADLINE_MS, ...c.make(dir, EXAMPLES));
      expect(r.code, 'the command hung').not.toBe(TIMED_OUT);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(r.stderr).not.toMatch(/internal|\n\s+at /);
      expect(lines.length).toBeLessThanOrEqual(c.maxLines);
      if (lines.length === 101)
        expect(lines[100]).toMatch(/^error: [^:]+: … and [\d,]+ more problems \([\d,]+ in all\)$/);
      if (r.code === 0) expect(r.stdout.split('\n')[0]).toMatch(c.firstLine);
      else {
        expect(r.code).toBe(1);
        expect(lines[0]).toMatch(c.firstLine);
      }
    },
    DEADLINE_MS + 5_000,
  );
});
