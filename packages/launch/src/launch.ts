/**
 * Starting the Python runtime on a plan, for `stagecraft run` and the benches alike: the plan goes
 * into a scratch folder, `python3 -m stagecraft_runtime` runs it from runtime/ (one process per
 * device, then the single-device reference; its own checks refuse what this machine cannot hold),
 * and the outcome comes back as one of a few kinds, never a half-read line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plan } from '@stagecraft/ir';
import { pythonInterpreter, RUNTIME_DIR } from './python.ts';
import { type RuntimeResult, RuntimeResultSchema } from './result.ts';

export interface LaunchOptions {
  steps: number;
  dtype: 'float32' | 'float64';
  /** torch.distributed backend: auto (NCCL on CUDA when there, else gloo), gloo or nccl. */
  backend: 'auto' | 'gloo' | 'nccl';
  /** Width of the blocks' layers (the runtime's default 16 when absent). */
  hidden?: number;
  /** Record every instruction's measured start and end (the result's `trace`). */
  trace?: boolean;
  /** Start more processes than the machine has CPUs (GPUs with NCCL). */
  oversubscribe?: boolean;
  /** Keep the run's folders (the plan, the devices' files) and name them. */
  keep?: boolean;
  /** How long to wait for the runtime before stopping it (default RUNTIME_LIMIT_MS). */
  timeoutMs?: number;
  /**
   * The batch the single-device reference runs: the design's, never the plan's header under test
   * (a plan file alone: read off its instructions by the runtime).
   */
  referenceBatch?: { microbatches: number; microbatchSize: number; replicas: number };
  /** The runtime/ folder to start in (default: this checkout's); a bench alternates two checkouts'. */
  runtimeDir?: string;
}

/**
 * The runtime's own limits (runtime/stagecraft_runtime/launch.py): the devices get 4 × the
 * 30 s no-progress timeout + 60 s, the single-device reference as long again; one more minute
 * for starting Python and torch. Past that the runtime is stuck, and is stopped.
 */
export const RUNTIME_LIMIT_MS = (2 * (4 * 30 + 60) + 60) * 1000;

export type LaunchOutcome =
  | { kind: 'done'; result: RuntimeResult; notes: string[] }
  /** The runtime refused the plan or the run failed: its one-line reason. */
  | { kind: 'failed'; message: string }
  | { kind: 'no-python'; python: string; reason: string }
  | { kind: 'no-torch'; python: string }
  | { kind: 'interrupted' }
  | { kind: 'timed-out'; limitMs: number };

export function launchRuntime(plan: Plan, options: LaunchOptions): LaunchOutcome {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-run-'));
  const notes: string[] = [];
  try {
    const planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));
    const python = pythonInterpreter();
    const limitMs = options.timeoutMs ?? RUNTIME_LIMIT_MS;
    const r = withCtrlCForTheChild(() =>
      spawnSync(python, [...runtimeArgs(options), planFile], {
        cwd: options.runtimeDir ?? RUNTIME_DIR,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        timeout: limitMs,
        // The launcher stops its devices on SIGTERM (and removes its folder) before it exits.
        killSignal: 'SIGTERM',
      }),
    );
    if (options.keep) notes.push(`the plan is kept in ${dir}`);
    const stderr = (r.stderr ?? '').split('\n').filter((l) => l.trim() !== '');
    notes.push(...stderr.filter((l) => l.startsWith('the run')));
    if (r.error) {
      const code = (r.error as NodeJS.ErrnoException).code;
      if (code === 'ETIMEDOUT') return { kind: 'timed-out', limitMs };
      return { kind: 'no-python', python, reason: r.error.message };
    }
    if (r.signal === 'SIGINT' || r.status === 130) return { kind: 'interrupted' };
    // Exit 1 with a result on stdout is the verdict "not equal", read below with its figures.
    const last = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 && !(r.status === 1 && last.startsWith('{'))) {
      if (stderr.some((l) => /No module named 'torch'/.test(l))) return { kind: 'no-torch', python };
      const named = stderr.filter((l) => l.startsWith('error'));
      const line =
        named[named.length - 1] ??
        `error: the runtime exited with ${r.status ?? `signal ${r.signal}`}: ${stderr[stderr.length - 1] ?? 'no output'}`;
      // The runtime names the plan file of each reason; here there is one, this folder's.
      return { kind: 'failed', message: line.replace(/^error: (plan\.json: )?/, '') };
    }
    let value: unknown;
    try {
      value = JSON.parse(last);
    } catch {
      return { kind: 'failed', message: `the runtime's last line is not JSON: ${last.slice(0, 200)}` };
    }
    const parsed = RuntimeResultSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return {
        kind: 'failed',
        message: `the runtime's result: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      };
    }
    return { kind: 'done', result: parsed.data, notes };
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

function runtimeArgs(o: LaunchOptions): string[] {
  const args = ['-m', 'stagecraft_runtime', '--json', '--steps', String(o.steps), '--dtype', o.dtype];
  args.push('--backend', o.backend);
  if (o.trace) args.push('--trace');
  if (o.hidden !== undefined) args.push('--width', String(o.hidden));
  if (o.oversubscribe) args.push('--oversubscribe');
  if (o.keep) args.push('--keep');
  if (o.referenceBatch) args.push('--reference-batch', JSON.stringify(o.referenceBatch));
  return args;
}

/**
 * Ctrl-C reaches the runtime with this process (one foreground process group): the runtime stops
 * its devices and exits 130, and this process lives to say so in one line instead of dying
 * mid-run. While the child runs, SIGINT here is only noted.
 */
function withCtrlCForTheChild<T>(run: () => T): T {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return run();
  } finally {
    process.off('SIGINT', ignore);
  }
}
