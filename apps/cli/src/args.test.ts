import { describe, expect, test } from 'vitest';
import { parseCommandLine } from './args.ts';

describe('parseCommandLine', () => {
  test('options may come before or after the design file', () => {
    expect(parseCommandLine(['simulate', '--json', 'd.json', '--max-ops', '500'])).toEqual({
      ok: true,
      command: { kind: 'simulate', design: 'd.json', json: true, maxOps: 500 },
    });
    expect(parseCommandLine(['--max-ops=7', 'validate', 'd.json'])).toEqual({
      ok: true,
      command: { kind: 'validate', design: 'd.json', maxOps: 7 },
    });
  });

  test('compile takes -o and --output alike', () => {
    const short = parseCommandLine(['compile', 'd.json', '-o', 'p.json']);
    const long = parseCommandLine(['compile', 'd.json', '--output=p.json']);
    expect(short).toEqual(long);
    expect(short).toEqual({ ok: true, command: { kind: 'compile', design: 'd.json', output: 'p.json' } });
  });

  test('help for a command is asked with --help or the help command', () => {
    expect(parseCommandLine(['compile', '-h'])).toEqual({
      ok: true,
      command: { kind: 'help', command: 'compile' },
    });
    expect(parseCommandLine(['help', 'compile'])).toEqual({
      ok: true,
      command: { kind: 'help', command: 'compile' },
    });
    expect(parseCommandLine(['--help'])).toEqual({ ok: true, command: { kind: 'help' } });
  });

  test('an option of another command is a usage error naming the command', () => {
    expect(parseCommandLine(['simulate', 'd.json', '-o', 'p.json'])).toEqual({
      ok: false,
      error: 'simulate does not take --output',
      command: 'simulate',
    });
  });

  test('a second design file is a usage error', () => {
    const r = parseCommandLine(['validate', 'a.json', 'b.json']);
    expect(r).toMatchObject({ ok: false, error: 'validate: unexpected argument "b.json"' });
  });

  test('every command that reads files takes --max-input-bytes', () => {
    for (const argv of [
      ['validate', 'd.json'],
      ['export', 'd.json', '--format', 'plan'],
      ['import', 'a.csv', '--format', 'torch-csv'],
      ['compare', 'a.json', 'b.json'],
    ]) {
      const r = parseCommandLine([...argv, '--max-input-bytes', '4096']);
      expect(r.ok && r.command).toMatchObject({ maxInputBytes: 4096 });
    }
    expect(parseCommandLine(['validate', 'd.json', '--max-input-bytes=0'])).toMatchObject({
      ok: false,
      error: '--max-input-bytes: expected a positive integer, got "0"',
    });
  });

  test.each(['0', '-3', '1.5', '1e3', ''])('--max-ops %j is not a positive integer', (value) => {
    const r = parseCommandLine(['validate', 'd.json', `--max-ops=${value}`]);
    expect(r.ok).toBe(false);
  });
});
