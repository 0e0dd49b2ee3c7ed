/**
 * `stagecraft run <design | plan.json> [--steps n] [--dtype float32|float64] [--json] [--trace out.json]`:
 * runs the plan for real on PyTorch (runtime/, package stagecraft_runtime), one process per device
 * on 127.0.0.1, and compares what every device holds, and the gradients of every step, with a
 * single-device run: exit 0 when they are equal within the dtype's tolerance, 1 naming the worst
 * tensors when not. The plan is validated here (`loadPlan`) before any process starts, so a plan
 * that cannot run never launches one.
 */
import { writeFileSync } from 'node:fs';
import { type Plan, parseDesignText } from '@stagecraft/ir';
import {
  checkOutputFile,
  type DeviceMemory,
  type LaunchOutcome,
  launchRuntime,
  measuredTrace,
  type RuntimeResult,
} from '@stagecraft/launch';
import { loadPlan } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';
import { errorLine } from '../format.ts';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { compileDesign, readText, reportIssues, sizedDesign } from '../load.ts';
import { describeSystemError } from '../systemErrors.ts';
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
  /** Start more processes than the machine has CPUs (GPUs with NCCL). */
  oversubscribe?: boolean;
  /** Keep the run's folders and name them. */
  keep?: boolean;
}

export const RUN_OPTIONS = [
  'json',
  'steps',
  'dtype',
  'trace',
  'hidden',
  'backend',
  'oversubscribe',
  'keep',
] as const;

export const RUN_USAGE = `Usage: stagecraft run <design | plan.json> [--steps <n>] [--dtype float32|float64] [--hidden <n>] [--backend auto|gloo|nccl] [--json] [--trace <file>] [--oversubscribe] [--keep]

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
Refused before anything starts: more devices than this machine has CPUs (GPUs with NCCL), or
tensors (from the plan's sizes and --hidden) larger than its available memory. Ctrl-C stops
the run and says "interrupted".

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
                     (checked before the run starts)
  --oversubscribe    start one process per device even when there are more devices than CPUs
  --keep             keep the run's folders (the plan, the devices' files) and print where;
                     a failed run keeps the devices' files and names the folder anyway

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
  if (values.oversubscribe === true) command.oversubscribe = true;
  if (values.keep === true) command.keep = true;
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

export function runCommand(cmd: RunCommand & InputOptions, io: Io): number {
  const text = readText(cmd.input, io, cmd);
  if (text === undefined) return 1;
  if (cmd.trace !== undefined) {
    const unwritable = checkOutputFile(cmd.trace);
    if (unwritable !== undefined) {
      io.err(errorLine({ path: cmd.trace, message: unwritable }));
      return 1;
    }
  }
  const planned = planOf(text, cmd, io);
  if (!planned) return 1;
  const { plan, fromDesign } = planned;
  const predicted = simulate(plan, { keepTimeline: false });
  const predictedStepMs = predicted.ok ? predicted.sim.makespanMs : null;

  const outcome = launchRuntime(plan, {
    steps: cmd.steps,
    dtype: cmd.dtype,
    backend: cmd.backend,
    trace: cmd.trace !== undefined,
    ...(cmd.hidden !== undefined ? { hidden: cmd.hidden } : {}),
    ...(cmd.oversubscribe ? { oversubscribe: true } : {}),
    ...(cmd.keep ? { keep: true } : {}),
    // The reference runs the design's batch; a plan file's is read off its instructions.
    ...(fromDesign && plan.batch
      ? {
          referenceBatch: {
            microbatches: plan.batch.microbatches,
            microbatchSize: plan.batch.microbatchSize,
            replicas: plan.batch.replicas,
          },
        }
      : {}),
  });
  if (outcome.kind !== 'done') {
    io.err(outcomeLine(outcome));
    return outcome.kind === 'interrupted' ? 130 : 1;
  }
  for (const note of outcome.notes) io.err(note);
  const result = outcome.result;
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
  if (cmd.trace && result.trace) {
    try {
      writeFileSync(cmd.trace, JSON.stringify(measuredTrace(plan, result.trace)));
    } catch (e) {
      // Checked before the run; a disk that filled meanwhile still leaves the run's report above.
      io.err(errorLine({ path: cmd.trace, message: describeSystemError(e, 'write') }));
      return 1;
    }
  }
  if (result.equal) return 0;
  io.err(notEqual(result));
  return 1;
}

/** One line for a run that did not finish with a result. */
function outcomeLine(o: Exclude<LaunchOutcome, { kind: 'done' }>): string {
  switch (o.kind) {
    case 'failed':
      return `error: ${o.message}`;
    case 'no-python':
      return errorLine({
        path: o.python,
        message: `cannot start the Python runtime (${o.reason}); install python3 with torch (Debian: apt-get install python3-torch) or set STAGECRAFT_PYTHON`,
      });
    case 'no-torch':
      return errorLine({
        path: o.python,
        message: 'has no torch; install it (Debian: apt-get install python3-torch) or set STAGECRAFT_PYTHON',
      });
    case 'interrupted':
      return 'interrupted';
    case 'timed-out':
      return `error: the runtime did not end within ${Math.round(o.limitMs / 1000)} s and was stopped`;
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
  const design = sizedDesign(parsed.design, cmd.input, cmd, io);
  const run = design && compileDesign(design, cmd.input, cmd, io);
  return run ? { plan: run.compiled.plan, fromDesign: true } : undefined;
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
