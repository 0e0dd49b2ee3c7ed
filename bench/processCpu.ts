/**
 * CPU time from /proc (Linux): a process's own (all its threads) and that of the children it has
 * waited for. Unlike wall time, a machine busy with other jobs barely changes it.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux: proc(5)). */
const TICKS = 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU ms of process `pid`, all threads (a server's workers included); undefined off Linux. */
export function cpuMs(pid: number | undefined): number | undefined {
  const f = pid === undefined ? undefined : statFields(pid);
  // utime and stime are the 14th and 15th fields of proc(5), the 12th and 13th after the name.
  return f && ((Number(f[11]) + Number(f[12])) * 1000) / TICKS;
}

/** User + system CPU ms of this process's children that have ended and been waited for. */
export function childrenCpuMs(): number | undefined {
  const f = statFields('self');
  // cutime and cstime, the 16th and 17th fields of proc(5).
  return f && ((Number(f[13]) + Number(f[14])) * 1000) / TICKS;
}
