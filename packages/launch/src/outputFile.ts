/**
 * A file a run will write once it has finished (its measured trace), checked before the run
 * starts: a run takes minutes, and finding then that the folder is missing loses it. Nothing is
 * created or truncated here; the reason comes back in the words of the CLI's other outputs.
 */
import { accessSync, constants, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function checkOutputFile(file: string): string | undefined {
  const path = resolve(file);
  const at = statOf(path);
  if (at === 'missing') {
    const folder = statOf(dirname(path));
    if (folder === 'missing') return 'no such directory';
    if (typeof folder === 'string') return folder;
    if (!folder.isDirectory()) return 'a part of the path is not a directory';
    return writable(dirname(path));
  }
  if (typeof at === 'string') return at;
  if (at.isDirectory()) return 'is a directory';
  // A device (/dev/full, a terminal) or a pipe would take the trace only to lose it or mix it
  // with other output; a trace is a file to open later.
  if (!at.isFile()) return 'is a socket or a device, not a regular file';
  return writable(path);
}

function statOf(path: string): Stats | string {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'a part of the path is not a directory';
    return `cannot write (${code ?? String(e)})`;
  }
}

function writable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch {
    return 'permission denied';
  }
}
