import { describe, expect, test } from 'vitest';
import { errorLine, formatBytes, formatMs, table } from './format.ts';

describe('format', () => {
  test('an issue about the whole document is reported against the file', () => {
    expect(errorLine({ path: '', message: 'invalid JSON at line 1, column 2' }, 'd.json')).toBe(
      'error: d.json: invalid JSON at line 1, column 2',
    );
    expect(errorLine({ path: 'directives[3].filter.PP', message: 'no block has tag PP=9' }, 'd.json')).toBe(
      'error: directives[3].filter.PP: no block has tag PP=9',
    );
  });

  test('a reason that quotes several lines of input is printed on one line', () => {
    expect(
      errorLine({ path: '', message: 'invalid JSON: token \'}\', "{\n  "a": \n}\n" is not valid' }, 'd.json'),
    ).toBe('error: d.json: invalid JSON: token \'}\', "{ "a": } " is not valid');
  });

  test('bytes are printed in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(3 * 2 ** 30)).toBe('3.00 GiB');
    expect(formatBytes(160 * 2 ** 20)).toBe('160 MiB');
  });

  test('milliseconds keep what precision matters and switch to seconds past 10 s', () => {
    expect(formatMs(33)).toBe('33 ms');
    expect(formatMs(28.5)).toBe('28.5 ms');
    expect(formatMs(0.123456)).toBe('0.123 ms');
    expect(formatMs(1234.56)).toBe('1234.6 ms');
    expect(formatMs(12_345)).toBe('12.35 s');
  });

  test('tables left-align the first column and right-align the rest', () => {
    expect(
      table(
        ['device', 'busy'],
        [
          ['0', '24 ms'],
          ['10', '3 ms'],
        ],
      ),
    ).toBe(['device   busy', '0       24 ms', '10       3 ms'].join('\n'));
  });
});
