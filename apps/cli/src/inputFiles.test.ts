/**
 * Every command that reads a file refuses, at once and in one error line, what is not a regular
 * file of a sane size: a device never ends, a named pipe blocks until a writer comes, a huge file
 * exhausts the memory. Each run has a deadline, so a command that hangs fails here instead.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EXAMPLES, stagecraftWithin, TIMED_OUT, tempFile, tempPath } from '../test/run.ts';

const DEADLINE_MS = 20_000;
const EXAMPLE = join(EXAMPLES, '1f1b-p4-m8.json');
const TORCH_CSV = tempFile('0F0,0B0\n1F0,1B0\n', 'two-ranks.csv');
const LIMIT = 1000;

/** How each command is given the file under test. */
const COMMANDS: [string, (file: string) => string[]][] = [
  ['validate', (file) => ['validate', file]],
  ['compile', (file) => ['compile', file]],
  ['simulate', (file) => ['simulate', file, '--json']],
  ['export', (file) => ['export', file, '--format', 'plan']],
  ['compare', (file) => ['compare', EXAMPLE, file]],
  ['import', (file) => ['import', file, '--format', 'torch-csv']],
  ['import --model', (file) => ['import', TORCH_CSV, '--format', 'torch-csv', '--model', file]],
];

function deviceLink(): string {
  const path = tempPath('zero.json');
  symlinkSync('/dev/zero', path);
  return path;
}

function namedPipe(): string {
  const path = tempPath('pipe.json');
  execFileSync('mkfifo', [path]);
  return path;
}

function directory(): string {
  const path = tempPath('folder.json');
  mkdirSync(path);
  return path;
}

function oversizeFile(): string {
  const path = tempPath('oversize.json');
  writeFileSync(path, ' '.repeat(LIMIT + 500));
  return path;
}

const unix = process.platform !== 'win32';
const KINDS: [string, string, string, string[]][] = unix
  ? [
      ['a symlink to /dev/zero', deviceLink(), 'is a device, not a regular file', []],
      ['a named pipe (FIFO)', namedPipe(), 'is a named pipe (FIFO), not a regular file', []],
      ['a directory', directory(), 'is a directory, not a file', []],
      [
        'a file over --max-input-bytes',
        oversizeFile(),
        `is 1.46 KiB (${LIMIT + 500} bytes), over the input limit of ${LIMIT} bytes; raise it with --max-input-bytes`,
        ['--max-input-bytes', String(LIMIT)],
      ],
    ]
  : [];

describe.runIf(unix).concurrent('input files that are not regular files of a sane size', () => {
  const cases = COMMANDS.flatMap(([command, argv]) =>
    KINDS.map(([kind, path, reason, extra]) => [command, kind, argv(path), path, reason, extra] as const),
  );
  test.each(cases)(
    '%s refuses %s at once, naming the file and why',
    async (_c, _k, argv, path, reason, extra) => {
      const r = await stagecraftWithin(DEADLINE_MS, ...argv, ...extra);
      expect(r.code, 'the command hung').not.toBe(TIMED_OUT);
      expect(r.stderr).toBe(`error: ${path}: ${reason}\n`);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    },
  );
});
