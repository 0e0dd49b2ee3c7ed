/**
 * `stagecraft plan <design> [--max-memory GiB] [--global-batch N] [--budget s] [--json] [-o best.json]`:
 * the planner. A transformer on GPUs gets the layout search (the Pareto front of step time against
 * peak memory, the fastest point that fits written out); a design of fixed stages (a synthetic model
 * or an ideal cluster) gets the order search (the per-device order minimising the step under the
 * memory limit). Long-running and async (worker threads), so handled apart from the one-shot commands.
 */
import { parseArgs } from 'node:util';
import type { Design } from '@stagecraft/ir';
import {
  type LayoutPoint,
  LayoutRequestError,
  type LayoutSearchResult,
  type SearchProgress,
  searchLayouts,
  searchOrder,
} from '@stagecraft/planner';
import { describeAmbiguousValue, joinNegativeValues } from '../dashValues.ts';
import type { Io } from '../io.ts';
import { loadDesign, reportIssues } from '../load.ts';
import { writeOutput } from './output.ts';

export const PLAN_USAGE = `Usage: stagecraft plan <design> [--max-memory <GiB>] [--global-batch <n>] [--budget <s>] [--json] [-o <file>]

Searches for the fastest way to run the design that fits in memory.
A transformer on GPUs (a preset or custom cluster): the layout search tries pipeline, data,
tensor and expert degrees, microbatch count and size for the global batch, schedule builder,
ZeRO level, recompute and offload, and prints the Pareto front of step time against peak memory.
Any other design with a schedule: the order search keeps its stages and placement and finds the
per-device order (F, input and weight backward of every microbatch) with the shortest simulated
step within the memory limit, beside every builder that applies.
The chosen design is written with -o (the designer opens it; "stagecraft export" exports it).
A progress bar is shown on a terminal; Ctrl-C stops the search with the best found so far.

Options:
  --max-memory <GiB>     memory per GPU (default: the GPU's; for the order search, 1F1B's stash)
  --global-batch <n>     sequences per step (layout search; default: the design's)
  --budget <s>           seconds the search may take (default 60)
  --times-1f1b <k>       order search: k times the stash 1F1B holds, instead of --max-memory
  --workers <n>          simulation threads (default: one per core but one; 0: none)
  --seed <n>             order of equally promising candidates (default 1)
  --json                 print one JSON object: the front (or the order search's candidates)
  -o, --output <file>    write the chosen design to <file>

Examples:
  stagecraft plan examples/llama3-70b-tp8-pp4-dp2.json --global-batch 32 --budget 60 -o best.json
  stagecraft plan examples/zb-h1-p4-m8.json --times-1f1b 1 --json`;

export interface PlanArgs {
  design: string;
  maxMemoryGiB?: number;
  globalBatch?: number;
  budgetS: number;
  times1F1B?: number;
  workers?: number;
  seed: number;
  json: boolean;
  output?: string;
}

const OPTIONS = {
  'max-memory': { type: 'string' },
  'global-batch': { type: 'string' },
  budget: { type: 'string' },
  'times-1f1b': { type: 'string' },
  workers: { type: 'string' },
  seed: { type: 'string' },
  json: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parsePlanArgs(
  argv: readonly string[],
): { ok: true; help: true } | { ok: true; args: PlanArgs } | { ok: false; error: string } {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: joinNegativeValues(argv, OPTIONS),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const unknown = /^Unknown option '([^']+)'/.exec(msg);
    const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
    return {
      ok: false,
      error: unknown
        ? `unknown option ${unknown[1]}`
        : missing
          ? `${missing[1]}: needs a value`
          : (describeAmbiguousValue(msg) ?? msg.split('\n')[0]!),
    };
  }
  if (values.help) return { ok: true, help: true };
  if (positionals.length === 0) return { ok: false, error: 'plan: missing the design file' };
  if (positionals.length > 1)
    return { ok: false, error: `plan: unexpected argument ${JSON.stringify(positionals[1])}` };
  const number = (name: string, integer: boolean, min: number, max: number): number | string | undefined => {
    const raw = values[name];
    if (typeof raw !== 'string') return undefined;
    const n = Number(raw);
    const ok =
      raw.trim() !== '' && Number.isFinite(n) && (!integer || Number.isInteger(n)) && n >= min && n <= max;
    return ok
      ? n
      : `--${name}: expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(raw)}`;
  };
  const args: PlanArgs = { design: positionals[0]!, budgetS: 60, seed: 1, json: values.json === true };
  const fields: [string, keyof PlanArgs, boolean, number, number][] = [
    ['max-memory', 'maxMemoryGiB', false, 0.001, 1e6],
    ['global-batch', 'globalBatch', true, 1, 1e9],
    ['budget', 'budgetS', false, 0, 86_400],
    ['times-1f1b', 'times1F1B', false, 0.001, 1_000],
    ['workers', 'workers', true, 0, 256],
    ['seed', 'seed', true, -(2 ** 31), 2 ** 31 - 1],
  ];
  for (const [name, key, integer, min, max] of fields) {
    const n = number(name, integer, min, max);
    if (typeof n === 'string') return { ok: false, error: n };
    if (n !== undefined) (args as unknown as Record<string, number>)[key] = n;
  }
  if (args.maxMemoryGiB !== undefined && args.times1F1B !== undefined)
    return { ok: false, error: '--max-memory and --times-1f1b both set the limit: give one' };
  if (values.output === '') return { ok: false, error: '--output: needs a file name' };
  if (typeof values.output === 'string') args.output = values.output;
  return { ok: true, args };
}

export async function plan(
  argv: readonly string[],
  io: Io,
  tty = process.stderr.isTTY === true,
): Promise<number> {
  const parsed = parsePlanArgs(argv);
  if (!parsed.ok) {
    io.err(`error: ${parsed.error}`);
    io.err('run "stagecraft plan --help" for usage');
    return 1;
  }
  if ('help' in parsed) {
    io.out(PLAN_USAGE);
    return 0;
  }
  const args = parsed.args;
  const design = loadDesign(args.design, io);
  if (!design) return 1;
  const layouts = design.model.kind === 'transformer' && design.cluster.kind !== 'ideal';
  return layouts ? planLayouts(design, args, io, tty) : planOrder(design, args, io);
}

const GIB = 2 ** 30;

async function planLayouts(design: Design, args: PlanArgs, io: Io, tty: boolean): Promise<number> {
  if (args.times1F1B !== undefined) {
    io.err('error: --times-1f1b: the layout search takes --max-memory (the order search takes --times-1f1b)');
    return 1;
  }
  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  process.once('SIGINT', onInterrupt);
  let result: LayoutSearchResult;
  try {
    result = await searchLayouts(
      {
        design,
        budgetMs: args.budgetS * 1_000,
        seed: args.seed,
        ...(args.globalBatch !== undefined ? { globalBatch: args.globalBatch } : {}),
        ...(args.maxMemoryGiB !== undefined ? { maxMemoryBytes: args.maxMemoryGiB * GIB } : {}),
      },
      {
        signal: abort.signal,
        ...(args.workers !== undefined ? { workers: args.workers } : {}),
        ...(tty ? { onProgress: (p: SearchProgress) => process.stderr.write(`\r${progressBar(p)}`) } : {}),
      },
    );
  } catch (e) {
    if (e instanceof LayoutRequestError) {
      reportIssues(e.issues, args.design, io);
      return 1;
    }
    throw e;
  } finally {
    process.off('SIGINT', onInterrupt);
    if (tty) process.stderr.write('\r\x1b[K');
  }
  if (args.output !== undefined && !writeOutput(JSON.stringify(result.best.design, null, 2), args.output, io))
    return 1;
  if (args.json) {
    const point = ({ design: d, ...p }: LayoutPoint) => ({ name: d.name, ...p });
    io.out(
      JSON.stringify({
        spaceSize: result.spaceSize,
        tried: result.tried,
        pruned: result.pruned,
        stoppedEarly: result.stoppedEarly,
        best: point(result.best),
        front: result.front.map(point),
      }),
    );
    return 0;
  }
  io.out(
    `${result.spaceSize.toLocaleString('en-US')} layouts: ${result.pruned.toLocaleString('en-US')} pruned, ${result.tried} simulated${result.stoppedEarly ? ' (stopped early: the budget ran out or Ctrl-C)' : ''}`,
  );
  io.out(frontTable(result.front));
  io.out(`chosen: ${result.best.design.name}${args.output ? ` (written to ${args.output})` : ''}`);
  return 0;
}

function planOrder(design: Design, args: PlanArgs, io: Io): number {
  const memoryLimit =
    args.maxMemoryGiB !== undefined ? { bytes: args.maxMemoryGiB * GIB } : { times1F1B: args.times1F1B ?? 1 };
  const r = searchOrder(design, { memoryLimit, budgetMs: args.budgetS * 1_000, seed: args.seed });
  if (!r.ok) {
    reportIssues(r.errors, args.design, io);
    return 1;
  }
  if (args.output !== undefined && !writeOutput(JSON.stringify(r.design, null, 2), args.output, io)) return 1;
  if (args.json) {
    const { design: _d, ...figures } = r;
    io.out(JSON.stringify(figures));
    return 0;
  }
  const rows = [...r.baselines, r.best].map((c) => [
    c === r.best ? `${c.source} (chosen)` : c.source,
    c.stepMs.toFixed(3),
    (Math.max(...c.peakMemoryBytes) / GIB).toFixed(2),
    c.fits ? 'yes' : 'no',
  ]);
  io.out(table(['order', 'step ms', 'peak GiB', 'fits'], rows));
  io.out(`limit: ${(Math.max(...r.limitBytes) / GIB).toFixed(2)} GiB on the fullest device`);
  for (const line of r.log) io.out(`  ${line}`);
  return 0;
}

export function frontTable(front: readonly LayoutPoint[]): string {
  return table(
    ['step ms', 'tokens/s/GPU', 'peak GiB', 'layout'],
    front.map((p) => [
      p.stepMs.toFixed(1),
      p.tokensPerSecPerGpu === undefined ? '-' : p.tokensPerSecPerGpu.toFixed(0),
      (p.peakMemoryBytes / GIB).toFixed(1),
      p.design.name,
    ]),
  );
}

/** Columns of figures right-aligned, the name column (first or last) left-aligned. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const text = (i: number) =>
    i === 0 ? head[0] !== 'step ms' : i === head.length - 1 && head[i] === 'layout';
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (text(i) ? (i === cells.length - 1 ? c : c.padEnd(widths[i]!)) : c.padStart(widths[i]!)))
      .join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

export function progressBar(p: SearchProgress, width = 24): string {
  const total = p.elapsedMs + p.timeLeftMs;
  const done = total > 0 ? Math.min(1, p.elapsedMs / total) : 1;
  const filled = Math.round(done * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.tried} simulated, ${p.pruned} pruned, front ${p.frontSize}, ${Math.ceil(p.timeLeftMs / 1000)} s left`;
}
