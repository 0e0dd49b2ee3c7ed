import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readInputFile } from './inputFile.ts';
import { bufferIo } from './io.ts';
import { main } from './main.ts';

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-input-'));
const EXAMPLE = new URL('../../../examples/1f1b-p4-m8.json', import.meta.url);
const BOM = '\uFEFF';

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function run(...argv: string[]) {
  const io = bufferIo();
  const code = main(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('input files', () => {
  test('a file of exactly the limit is read; one byte more is refused', () => {
    expect(readInputFile(file('ten.txt', '0123456789'), 10)).toEqual({ ok: true, text: '0123456789' });
    expect(readInputFile(file('eleven.txt', '0123456789X'), 10)).toEqual({
      ok: false,
      reason: 'is 11 bytes, over the input limit of 10 bytes; raise it with --max-input-bytes',
    });
  });

  test('a design with a UTF-8 byte-order mark validates', () => {
    const design = file('bom-design.json', BOM + readFileSync(EXAMPLE, 'utf8'));
    expect(run('validate', design)).toEqual({
      code: 0,
      stdout: 'ok: 1F1B, p=4, m=8 (1 directive)\n',
      stderr: '',
    });
  });

  test('a torch CSV and a --model JSON with a UTF-8 byte-order mark import', () => {
    const csv = file('bom.csv', `${BOM}0F0,0B0\n1F0,1B0\n`);
    const model = file('bom-model.json', BOM + readFileSync(EXAMPLE, 'utf8'));
    const r = run('import', csv, '--format', 'torch-csv', '--model', model);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'bom.csv (imported from torch-csv)' });
  });

  test('only a leading byte-order mark is dropped', () => {
    expect(readInputFile(file('inner.txt', `a${BOM}b`))).toEqual({ ok: true, text: `a${BOM}b` });
  });
});
