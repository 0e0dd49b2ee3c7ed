import { describe, expect, test } from 'vitest';
import { parseServeArgs } from './serve.ts';

describe('stagecraft serve arguments', () => {
  test('defaults bind 127.0.0.1:4173 with the repository database', () => {
    const r = parseServeArgs([]);
    expect(r).toMatchObject({ ok: true, port: 4173, host: '127.0.0.1' });
    expect(r.ok && !r.help && r.db).toMatch(/\.stagecraft[/\\]designs\.sqlite$/);
  });

  test('port, host, db and max-ops are taken in either form', () => {
    expect(
      parseServeArgs(['--port', '8080', '--host=0.0.0.0', '--db', 'x.sqlite', '--max-ops=5000']),
    ).toEqual({
      ok: true,
      port: 8080,
      host: '0.0.0.0',
      db: 'x.sqlite',
      maxOps: 5000,
    });
    expect(parseServeArgs(['--port', '0'])).toMatchObject({ ok: true, port: 0 });
  });

  test.each([
    [['--port', 'http'], '--port: expected a port number 0..65535, got "http"'],
    [['--port', '70000'], '--port: expected a port number 0..65535, got "70000"'],
    [['--port'], '--port: needs a value'],
    [['--db', ''], '--db: needs a file name'],
    [['--max-ops', '0'], '--max-ops: expected a positive integer, got "0"'],
    [['--max-ops', '-1'], '--max-ops: expected a positive integer, got "-1"'],
    [['--verbose'], 'unknown option --verbose'],
    [['design.json'], 'serve: unexpected argument "design.json"'],
  ])('%j is a usage error', (argv, error) => {
    expect(parseServeArgs(argv)).toEqual({ ok: false, error });
  });
});
