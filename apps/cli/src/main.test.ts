import { describe, expect, test } from 'vitest';
import { asksForUsage } from './bin.ts';
import { GLOBAL_USAGE } from './globalUsage.ts';
import { bufferIo } from './io.ts';
import { main } from './main.ts';

function run(...argv: string[]) {
  const io = bufferIo();
  const code = main(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('main', () => {
  test.each([
    [['frobnicate'], 'error: unknown command "frobnicate"'],
    [['help', 'frobnicate'], 'error: unknown command "frobnicate"'],
    [['simulate', 'd.json', '--fast'], 'error: unknown option --fast'],
    [['simulate', 'd.json', '-x'], 'error: unknown option -x'],
    [['validate', 'd.json', '--json'], 'error: validate does not take --json'],
    [['validate'], 'error: validate: missing the design file'],
    [
      ['simulate', 'd.json', '--max-ops', 'many'],
      'error: --max-ops: expected a positive integer, got "many"',
    ],
    [['simulate', 'd.json', '--json=yes'], 'error: --json: takes no value'],
    [['validate', 'd.json', '--max-ops', '-1'], 'error: --max-ops: expected a positive integer, got "-1"'],
    [['simulate', 'd.json', '--width', '-80'], 'error: --width: expected a positive integer, got "-80"'],
    [
      ['compile', 'd.json', '-o', '-plan.json'],
      'error: --output: needs a value (for one starting with "-", write --output=<value>)',
    ],
    [['compile', 'd.json', '-o'], 'error: --output: needs a value'],
    [[], 'error: no command given'],
  ])('usage error %j exits 1 with the reason and a hint', (argv, first) => {
    const r = run(...argv);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const [line, hint, ...rest] = r.stderr.trimEnd().split('\n');
    expect(line).toBe(first);
    expect(hint).toMatch(/^run "stagecraft( \w+)? --help" for usage$/);
    expect(rest).toEqual([]);
  });

  test('a command given after a bad option still gets its own hint', () => {
    expect(run('--fast', 'compile', 'd.json').stderr).toMatch(/run "stagecraft compile --help"/);
  });
});

describe('the usage the bin prints without loading main', () => {
  test.each([[['--help']], [['-h']], [['help']]])('%j: what main prints for it', (argv) => {
    expect(asksForUsage(argv)).toBe(true);
    expect(run(...argv)).toEqual({ code: 0, stdout: `${GLOBAL_USAGE}\n`, stderr: '' });
  });

  test.each([[[]], [['help', 'simulate']], [['simulate', '--help']], [['--help', '--version']]])(
    '%j goes to main',
    (argv) => {
      expect(asksForUsage(argv)).toBe(false);
    },
  );
});
