/**
 * Operating-system errors in the words a user reads after `error: <file>: `. Node's own messages
 * ("ENOSPC: no space left on device, write") repeat the syscall and the code; users need the reason.
 */

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the file name is too long',
  ENXIO: 'is a socket or a device, not a regular file',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is too large for its file system',
  EROFS: 'the file system is read-only',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  EBADF: 'not open (bad file descriptor)',
};

/** The reason behind a failed read or write; `doing` names the attempt when the code is unknown. */
export function describeSystemError(e: unknown, doing: 'read' | 'write'): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && REASONS[code] !== undefined) return REASONS[code];
  const detail = code ?? (e instanceof Error ? e.message.split('\n')[0] : String(e));
  return `cannot ${doing} (${detail})`;
}
