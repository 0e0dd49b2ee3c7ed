/**
 * `stagecraft run <design | plan.json> [--steps n] [--dtype float32|float64] [--json] [--trace out.json]`:
 * runs the plan for real on PyTorch (runtime/, package stagecraft_runtime), one process per device
 * on 127.0.0.1, and compares what every device holds, and the gradients of every step, with a
 * single-device run: exit 0 when they are equal within the dtype's tolerance, 1 naming the worst
 * tensors when not. The plan is validated here (`loadPlan`) before any process starts, so a plan
 * that cannot run never launches one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Plan, parseDesignText } from '@stagecraft/ir';
import { loadPlan } from '@stagecraft/passes';
import { chromeTrace, simulate, type TimelineEvent } from '@stagecraft/sim';
import { errorLine } from '../format.ts';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { compileDesign, readText, reportIssues } from '../load.ts';
import type { OptionValues } from './output.ts';

export interface RunCommand {
  kind: 'run';
  input: string;
  steps: number;
  dtype: 'float32' | 'float64';
  json: boolean;
  trace?: string;
  /** Width of the blocks' layers (the runtime's default 16 when absent). */
  hidden?: number;
  /** torch.distributed backend: auto (NCCL on CUDA when there, else gloo), gloo or nccl. */
  backend: 'auto' | 'gloo' | 'nccl';
}

export const RUN_OPTIONS = ['json', 'steps', 'dtype', 'trace', 'hidden', 'backend'] as const;

export const RUN_USAGE = `Usage: stagecraft run <design | plan.json> [--steps <n>] [--dtype float32|float64] [--hidden <n>] [--backend auto|gloo|nccl] [--json] [--trace <file>]

Runs the plan for real: one PyTorch process per device on 127.0.0.1, small MLP blocks, the
same data and seed as a single-device reference run, then compares them: every tensor each
device holds (each replica's copy, each ZeRO member's own chunk) and the gradients every step,
before the optimizer. Exits 0 when all are equal within the tolerance of the dtype (float64
1e-9, float32 1e-3, relative; docs/runtime.md), else 1, naming the worst tensors (device, tensor,
step, difference). The reference's batch is the design's (for a plan file, read off its
instructions), never the plan's header. A design is compiled
first; a plan file (hand-edited or not) runs as it is, after the same validation as "compile".
A design on device meshes (plan@3) runs each collective among its sub-group of the mesh.
Needs python3 with torch: /usr/bin/python3, or the interpreter in STAGECRAFT_PYTHON.

Options:
  --steps <n>        training steps (default 3)
  --dtype <t>        float64 (default) or float32
  --hidden <n>       width of every block's layers (default 16): larger blocks take longer, so
                     their measured times stand out from the runtime's per-instruction overhead
  --backend <b>      auto (default): NCCL with each process on its own GPU when CUDA is there,
                     else gloo on the CPU; gloo or nccl to insist (nccl without CUDA is refused)
  --json             print one JSON object as the last line: {"devices", "steps", "loss": [...],
                     "referenceLoss": [...], "maxAbsDiff", "maxRelDiff", "tolerance", "equal",
                     "worst": [{"device", "tensor", "step", "difference", "absolute"}],
                     "stepMs": [...], "predictedStepMs", "backend", "memory": [...]};
                     differences are per tensor held (parameters, gradients, loss), the
                     largest ‖x − x_ref‖ and ‖x − x_ref‖ / ‖x_ref‖;
                     memory: per device, the bytes of parameters, gradients and optimizer
                     state it held (ZeRO's shards show here)
  --trace <file>     write the last step's measured start and end of every instruction as a
                     Chrome trace, with the ids and tracks of "export --format chrome-trace"

Example:
  stagecraft run examples/1f1b-p4-m8.json --json`;

export function parseRunArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: RunCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'run: missing the design or plan file' };
  if (rest.length > 1) return { ok: false, error: `run: unexpected argument ${JSON.stringify(rest[1])}` };
  let steps = 3;
  const rawSteps = values.steps;
  if (typeof rawSteps === 'string') {
    if (!/^\d+$/.test(rawSteps) || Number(rawSteps) < 1 || Number(rawSteps) > 1000)
      return {
        ok: false,
        error: `--steps: expected an integer from 1 to 1000, got ${JSON.stringify(rawSteps)}`,
      };
    steps = Number(rawSteps);
  }
  const dtype = values.dtype ?? 'float64';
  if (dtype !== 'float32' && dtype !== 'float64')
    return { ok: false, error: `--dtype: expected float32 or float64, got ${JSON.stringify(dtype)}` };
  const backend = values.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'gloo' && backend !== 'nccl')
    return {
      ok: false,
      error: `--backend: expected auto, gloo or nccl, got ${JSON.stringify(backend)}`,
    };
  const command: RunCommand = {
    kind: 'run',
    input: rest[0]!,
    steps,
    dtype,
    backend,
    json: values.json === true,
  };
  // --trace is the one file run writes (calibrate reads several: the option takes many).
  const given = values.trace;
  if (given !== undefined) {
    const files = Array.isArray(given) ? given : [String(given)];
    if (files.length !== 1) return { ok: false, error: '--trace: names the one file to write' };
    if (files[0] === '') return { ok: false, error: '--trace: needs a file name' };
    command.trace = files[0]!;
  }
  const hidden = values.hidden;
  if (typeof hidden === 'string') {
    if (!/^\d+$/.test(hidden) || Number(hidden) < 1 || Number(hidden) > 65_536)
      return {
        ok: false,
        error: `--hidden: expected an integer from 1 to 65536, got ${JSON.stringify(hidden)}`,
      };
    command.hidden = Number(hidden);
  }
  return { ok: true, command };
}

/** The repository's runtime/ directory, from this file's place in apps/cli/src/commands. */
const RUNTIME_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../runtime');

/** The interpreter with torch: STAGECRAFT_PYTHON, else Debian's /usr/bin/python3, else python3. */
export function pythonInterpreter(): string {
  const env = process.env.STAGECRAFT_PYTHON;
  if (env) return env;
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

interface RuntimeResult {
  devices: number;
  steps: number;
  loss: number[];
  referenceLoss: number[];
  maxAbsDiff: number;
  maxRelDiff: number;
  tolerance: number;
  equal: boolean;
  worst: WorstTensor[];
  stepMs: number[];
  backend: string;
  memory: DeviceMemory[];
  trace?: Record<string, [stream: string, id: string, start: number, end: number][]> | null;
}

/** A tensor that differs from the reference beyond the tolerance (device null: the whole run's loss). */
interface WorstTensor {
  device: number | null;
  tensor: string;
  step: number;
  difference: number | null;
  absolute: number | null;
  problem?: string;
}

/** Bytes a device held in the last step, measured on its tensors (docs/runtime.md). */
interface DeviceMemory {
  device: number;
  params: number;
  grads: number;
  optimizer: number;
  paramsPeak: number;
}

export function runCommand(cmd: RunCommand & InputOptions, io: Io): number {
  const text = readText(cmd.input, io, cmd);
  if (text === undefined) return 1;
  const planned = planOf(text, cmd, io);
  if (!planned) return 1;
  const { plan, fromDesign } = planned;
  const predicted = simulate(plan, { keepTimeline: false });
  const predictedStepMs = predicted.ok ? predicted.sim.makespanMs : null;

  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-run-'));
  try {
    const planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));
    const python = pythonInterpreter();
    const args = [
      '-m',
      'stagecraft_runtime',
      planFile,
      '--json',
      '--steps',
      String(cmd.steps),
      '--dtype',
      cmd.dtype,
      '--backend',
      cmd.backend,
    ];
    if (cmd.trace) args.push('--trace');
    if (cmd.hidden !== undefined) args.push('--width', String(cmd.hidden));
    if (fromDesign && plan.batch) {
      // The reference runs the design's batch; a plan file's is read off its instructions.
      const { microbatches, microbatchSize, replicas } = plan.batch;
      args.push('--reference-batch', JSON.stringify({ microbatches, microbatchSize, replicas }));
    }
    const env = {
      ...process.env,
      PYTHONPATH: [RUNTIME_DIR, process.env.PYTHONPATH].filter(Boolean).join(':'),
    };
    const r = spawnSync(python, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (r.error) {
      io.err(
        errorLine({
          path: python,
          message: `cannot start the Python runtime (${r.error.message}); install python3 with torch (Debian: apt-get install python3-torch) or set STAGECRAFT_PYTHON`,
        }),
      );
      return 1;
    }
    // Exit 1 with results on stdout is the verdict "not equal", reported below with its figures.
    const last = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 && !(r.status === 1 && last.startsWith('{'))) {
      const lines = (r.stderr ?? '').split('\n').filter((l) => l.trim() !== '');
      const named = lines.filter((l) => l.startsWith('error'));
      const missingTorch = lines.some((l) => /No module named 'torch'/.test(l));
      io.err(
        missingTorch
          ? errorLine({
              path: python,
              message:
                'has no torch; install it (Debian: apt-get install python3-torch) or set STAGECRAFT_PYTHON',
            })
          : (named[named.length - 1] ??
              `error: the runtime exited with ${r.status}: ${lines[lines.length - 1] ?? ''}`),
      );
      return 1;
    }
    const result = JSON.parse(last) as RuntimeResult;
    if (cmd.trace && result.trace)
      writeFileSync(cmd.trace, JSON.stringify(measuredTrace(plan, result.trace)));
    const report = {
      devices: result.devices,
      steps: result.steps,
      loss: result.loss,
      referenceLoss: result.referenceLoss,
      maxAbsDiff: result.maxAbsDiff,
      maxRelDiff: result.maxRelDiff,
      tolerance: result.tolerance,
      equal: result.equal,
      worst: result.worst,
      stepMs: result.stepMs,
      predictedStepMs,
      backend: result.backend,
      memory: result.memory,
    };
    if (cmd.json) io.out(JSON.stringify(report));
    else io.out(runSummary(plan.name, report));
    if (result.equal) return 0;
    io.err(notEqual(result));
    return 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The verdict of a run that differs from the reference: one line per worst tensor. */
export function notEqual(r: Pick<RuntimeResult, 'tolerance' | 'worst'>): string {
  const lines = r.worst.map((w) => {
    const where = w.device === null ? 'all devices' : `device ${w.device}`;
    const what = w.problem ?? `relative difference ${(w.difference ?? 0).toExponential(2)}`;
    return `  ${where}, ${w.tensor}, step ${w.step}: ${what}`;
  });
  return [
    `error: the run differs from the single-device reference beyond ${r.tolerance} (relative); worst tensors:`,
    ...lines,
  ].join('\n');
}

/**
 * The plan of a design (compiled) or of a plan file (validated as it is), and whether it came
 * from a design; undefined after the errors.
 */
function planOf(
  text: string,
  cmd: RunCommand & InputOptions,
  io: Io,
): { plan: Plan; fromDesign: boolean } | undefined {
  let format: unknown;
  try {
    format = (JSON.parse(text) as { format?: unknown }).format;
  } catch {
    format = undefined;
  }
  if (typeof format === 'string' && format.startsWith('stagecraft/plan@')) {
    const loaded = loadPlan(text);
    if (!loaded.ok) {
      reportIssues(loaded.errors, cmd.input, io);
      return undefined;
    }
    return { plan: loaded.plan, fromDesign: false };
  }
  const parsed = parseDesignText(text, { defaultName: 'design' });
  if (!parsed.ok) {
    reportIssues(parsed.errors, cmd.input, io);
    return undefined;
  }
  const run = compileDesign(parsed.design, cmd.input, cmd, io);
  return run ? { plan: run.compiled.plan, fromDesign: true } : undefined;
}

/**
 * The measured step as the predicted export draws it: the same processes (devices), threads
 * (streams) and ids, times from the run's shared monotonic clock, starting at the earliest start.
 */
export function measuredTrace(
  plan: Plan,
  trace: Record<string, [string, string, number, number][]>,
): ReturnType<typeof chromeTrace> {
  const byId = new Map<string, Plan['devices'][number]['streams'][number]['instructions'][number]>();
  for (const d of plan.devices)
    for (const s of d.streams) for (const i of s.instructions) byId.set(`${d.device}|${i.id}`, i);
  let origin = Number.POSITIVE_INFINITY;
  for (const events of Object.values(trace)) for (const e of events) origin = Math.min(origin, e[2]);
  const timeline: TimelineEvent[] = [];
  let end = 0;
  for (const [rank, events] of Object.entries(trace))
    for (const [stream, id, start, stop] of events) {
      const ins = byId.get(`${rank}|${id}`);
      if (!ins) continue;
      const ev: TimelineEvent = {
        device: Number(rank),
        stream,
        id,
        op: ins.op,
        startMs: (start - origin) * 1000,
        endMs: (stop - origin) * 1000,
        tags: ins.tags,
      };
      if (ins.op === 'OVERLAP') ev.members = ins.members.map((m) => m.id);
      if (ins.op === 'SEND' || ins.op === 'RECV') ev.peer = ins.peer;
      if ('bytes' in ins) ev.bytes = ins.bytes;
      timeline.push(ev);
      end = Math.max(end, ev.endMs);
    }
  timeline.sort((a, b) => a.startMs - b.startMs);
  const sim = { makespanMs: end, timeline } as unknown as Parameters<typeof chromeTrace>[1];
  return chromeTrace(plan, sim);
}

function runSummary(
  name: string,
  r: {
    devices: number;
    steps: number;
    loss: number[];
    maxRelDiff: number;
    tolerance: number;
    equal: boolean;
    stepMs: number[];
    predictedStepMs: number | null;
    backend: string;
    memory: DeviceMemory[];
  },
): string {
  const fmt = (x: number) => x.toPrecision(6);
  const most = (k: 'params' | 'grads' | 'optimizer') => Math.max(0, ...r.memory.map((m) => m[k] ?? 0));
  return [
    `${name}: ${r.devices} devices, ${r.steps} steps on torch.distributed (${r.backend})`,
    `loss per step: ${r.loss.map(fmt).join(', ')}`,
    `largest difference from one device: ${r.maxRelDiff.toExponential(2)} (relative; tolerance ${r.tolerance}): ${r.equal ? 'equal' : 'NOT equal'}`,
    `measured step: ${r.stepMs.map((x) => x.toFixed(1)).join(', ')} ms${r.predictedStepMs !== null ? `; predicted ${r.predictedStepMs.toFixed(1)} ms` : ''}`,
    `most held by one device: ${most('params')} B of parameters, ${most('grads')} B of gradients, ${most('optimizer')} B of optimizer state`,
  ].join('\n');
}
