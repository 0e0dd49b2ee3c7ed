/**
 * Reading a file the user names, so that no path can hang or exhaust the CLI: `/dev/zero` (or a
 * symlink to it) never ends, a FIFO blocks until a writer comes, a huge file fills the memory.
 * The file is opened without blocking and judged by fstat on that very descriptor (no window in
 * which the path could be swapped), then read up to the limit and one byte more, which catches
 * files that grow, or lie about their size, after the fstat.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { formatBytes } from './format.ts';
import { describeSystemError } from './systemErrors.ts';

/** Designs of millions of ops stay well below this; anything larger is a mistake or an attack. */
export const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** Where a command's input-size limit comes from: `--max-input-bytes`, or the default. */
export interface InputOptions {
  maxInputBytes?: number;
}

export type InputText = { ok: true; text: string } | { ok: false; reason: string };

// O_NONBLOCK does not exist on Windows, where opening a named pipe does not wait for a writer.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const CHUNK_BYTES = 1024 * 1024;

function notRegular(stats: Stats): string {
  if (stats.isDirectory()) return 'is a directory, not a file';
  if (stats.isFIFO()) return 'is a named pipe (FIFO), not a regular file';
  if (stats.isSocket()) return 'is a socket, not a regular file';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'is a device, not a regular file';
  return 'is not a regular file';
}

function bytes(n: number): string {
  return n < 1024 ? `${n} bytes` : `${formatBytes(n)} (${n} bytes)`;
}

function tooLarge(maxBytes: number, size?: number): string {
  const what = size === undefined ? 'is larger than' : `is ${bytes(size)}, over`;
  return `${what} the input limit of ${bytes(maxBytes)}; raise it with --max-input-bytes`;
}

/** Reads at most `maxBytes + 1` bytes from `fd`: the extra byte tells an oversize file from a full one. */
function readBounded(fd: number, expected: number, maxBytes: number): Buffer[] | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  let want = Math.min(expected + 1, maxBytes + 1);
  while (want > 0) {
    const chunk = Buffer.allocUnsafe(want);
    const n = readSync(fd, chunk, 0, want, null);
    if (n === 0) return chunks;
    chunks.push(chunk.subarray(0, n));
    total += n;
    want = Math.min(CHUNK_BYTES, maxBytes + 1 - total);
  }
  return undefined;
}

/**
 * The UTF-8 text of the regular file `file` (a leading byte-order mark dropped, as editors on
 * Windows write one), or the reason it is refused.
 */
export function readInputFile(file: string, maxBytes = DEFAULT_MAX_INPUT_BYTES): InputText {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (e) {
    return { ok: false, reason: describeSystemError(e, 'read') };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: notRegular(stats) };
    if (stats.size > maxBytes) return { ok: false, reason: tooLarge(maxBytes, stats.size) };
    const chunks = readBounded(fd, stats.size, maxBytes);
    if (!chunks) return { ok: false, reason: tooLarge(maxBytes) };
    // TextDecoder drops a leading BOM; readFileSync(…, 'utf8') would keep it as U+FEFF.
    return { ok: true, text: new TextDecoder('utf-8').decode(Buffer.concat(chunks)) };
  } catch (e) {
    return { ok: false, reason: describeSystemError(e, 'read') };
  } finally {
    closeSync(fd);
  }
}

/** Options every command takes. */
export interface GlobalOptions extends InputOptions {
  /** Op limit passed to the compiler. */
  maxOps?: number;
}
