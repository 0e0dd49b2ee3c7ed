/**
 * Output that cannot be written: a full disk (`> /dev/full`, `-o /dev/full`) fails the command
 * with one error line naming stdout or the file, and a reader that stops early (`| head -1`) ends
 * the output without a word. Never a stack trace.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { EXAMPLES, stagecraft, stagecraftWritingTo } from '../../test/run.ts';

const EXAMPLE = join(EXAMPLES, '1f1b-p4-m8.json');
const unix = process.platform !== 'win32';

const WRITERS: [string, string[]][] = [
  ['validate', ['validate', EXAMPLE]],
  ['compile', ['compile', EXAMPLE]],
  ['simulate', ['simulate', EXAMPLE, '--json']],
  ['export', ['export', EXAMPLE, '--format', 'chrome-trace']],
  ['compare', ['compare', EXAMPLE, EXAMPLE]],
];

describe.runIf(unix).concurrent('output that cannot be written', () => {
  const full = unix ? openSync('/dev/full', 'w') : -1;
  afterAll(() => closeSync(full));

  test.each(WRITERS)('%s on a full stdout says so in one line and exits 1', async (_name, argv) => {
    const r = await stagecraftWritingTo(full, ...argv);
    expect(r.stderr).toBe('error: stdout: no space left on device\n');
    expect(r.code).toBe(1);
  });

  test.each([
    ['compile', ['compile', EXAMPLE]],
    ['export', ['export', EXAMPLE, '--format', 'plan']],
  ])('%s -o on a full disk names the file and exits 1', async (_name, argv) => {
    const r = await stagecraft(...argv, '-o', '/dev/full');
    expect(r.stderr).toBe('error: /dev/full: no space left on device\n');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  test.each(WRITERS)('%s into a pipe its reader has closed ends quietly', async (_name, argv) => {
    const r = await stagecraftWritingTo('closed pipe', ...argv);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
