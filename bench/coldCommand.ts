/**
 * The cold run as a user gets it: `stagecraft simulate <design> --json` through the bin
 * (apps/cli/bin/stagecraft.mjs), from the build (apps/cli/dist), in a new process each time, with
 * whatever V8 flags and loading the bin itself applies and none of the bench's own (no tsx, no
 * `--max-*`). The compile and simulate times are the ones the command reports (its `timings`,
 * measured around `runDesign` and `simulateRun` as the bench's warm runs are); the CPU time is the
 * whole command's (all its threads: Node's start, loading the build, parsing the design, the
 * compiler's and the collector's background threads, the output).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Design } from '@stagecraft/ir';
import { buildState, ensureBuilt } from '../scripts/build.mjs';
import { childrenCpuMs } from './processCpu.ts';

const BIN = join(import.meta.dirname, '..', 'apps', 'cli', 'bin', 'stagecraft.mjs');

export interface ColdRun {
  compileMs: number;
  simulateMs: number;
  /** User + system CPU of the whole command; NaN off Linux. */
  cpuMs: number;
}

/** `runs` commands, one process each; builds first when the build is missing or stale. */
export async function coldCommandRuns(design: Design, runs: number): Promise<ColdRun[]> {
  // From a stale build the bin would run the sources through tsx: not what a user runs.
  await ensureBuilt();
  if (!buildState().fresh) throw new Error('the build (apps/cli/dist) is still stale after building');
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-cold-'));
  try {
    const file = join(dir, 'target.json');
    writeFileSync(file, JSON.stringify(design));
    return Array.from({ length: runs }, () => coldCommand(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function coldCommand(file: string): ColdRun {
  const cpuBefore = childrenCpuMs() ?? Number.NaN;
  const r = spawnSync(process.execPath, [BIN, 'simulate', file, '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const cpuMs = (childrenCpuMs() ?? Number.NaN) - cpuBefore;
  if (r.status !== 0) throw new Error(`stagecraft simulate exited ${r.status}: ${r.stderr.trim()}`);
  const { timings } = JSON.parse(r.stdout) as { timings: { compileMs: number; simulateMs: number } };
  return { compileMs: timings.compileMs, simulateMs: timings.simulateMs, cpuMs };
}
