/**
 * The closed loop on this machine (issue 21, docs/measured.md "The closed loop"): run 1F1B on the
 * runtime, calibrate the design from its measured trace, predict five other schedules with the
 * calibrated costs, then run those and compare. Runs go through the launcher `stagecraft run` uses
 * (@stagecraft/launch) and calibration through `stagecraft calibrate`, in this process; two
 * ranks, each pinned to its own core with one torch thread (STAGECRAFT_RUNTIME_CPUS, docs/runtime.md).
 * Every schedule runs several times, interleaved, so run-to-run noise is measured, not guessed;
 * other processes only ever add time, so each schedule's fastest run is reported beside its median.
 * Beside the six schedules, pairs whose predicted difference is large (recompute on and off, m = 2
 * against m = 8, ZB-H1 against 1F1B at m = p, offload, an uneven stage) are run too, so a ranking
 * can be seen above the noise: each pair is reported with its predicted and measured difference.
 * Not a test: it asserts nothing, it prints the table (Markdown) docs/measured.md quotes.
 *
 *   npx tsx bench/closed-loop.ts [--hidden 896] [--reps 4] [--steps 3] [--calibration-runs 3] [--cpus 0,1] [--quiet 0.3] [--quiet-wait 90] [--oversubscribe] [--schedules a,b,…]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Design, parseDesignText } from '@stagecraft/ir';
import { launchRuntime, measuredTrace } from '@stagecraft/launch';
import { compareMeasured, readTrace, stepTimesMs } from '@stagecraft/measure';
import { compile } from '@stagecraft/passes';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { calibrateCommand } from '../apps/cli/src/commands/calibrate.ts';
import { bufferIo } from '../apps/cli/src/io.ts';

const ROOT = join(import.meta.dirname, '..');
const DESIGNS = join(ROOT, 'bench', 'closed-loop');
const OUT = join(ROOT, 'node_modules', '.cache', 'closed-loop');
const ALL_SCHEDULES: readonly string[] = [
  '1f1b',
  'gpipe',
  'zb-h1',
  'interleaved-1f1b',
  'zbv',
  'dualpipev',
  '1f1b-m8',
  '1f1b-recompute',
  '1f1b-offload',
  '1f1b-uneven',
  '1f1b-m2',
  'zb-h1-m2',
];
const CALIBRATED = '1f1b';

/**
 * Pairs compared for a ranking: `a` against `b`, by step time, or by time per microbatch where
 * their microbatch counts differ (a step of 2 microbatches is shorter; its throughput is what a
 * user compares).
 */
const PAIRS: readonly { what: string; a: string; b: string; perMicrobatch?: boolean }[] = [
  { what: 'recompute on / off', a: '1f1b-recompute', b: '1f1b-m8' },
  { what: 'm = 2 / m = 8 (per microbatch)', a: '1f1b-m2', b: '1f1b-m8', perMicrobatch: true },
  { what: 'ZB-H1 / 1F1B at m = p = 2', a: 'zb-h1-m2', b: '1f1b-m2' },
  { what: 'offload on / off', a: '1f1b-offload', b: '1f1b-m8' },
  { what: 'uneven (3 + 1 blocks) / even stages', a: '1f1b-uneven', b: '1f1b-m8' },
];

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const hidden = Number(option('hidden', '896'));
const reps = Number(option('reps', '4'));
const steps = Number(option('steps', '3'));
const cpus = option('cpus', '0,1');
// `--schedules a,b,…` runs a subset (1F1B, the calibrated one, always runs); pairs need both members.
const chosen = option('schedules', '');
const SCHEDULES = chosen
  ? ALL_SCHEDULES.filter((s) => s === CALIBRATED || chosen.split(',').includes(s))
  : ALL_SCHEDULES;
for (const s of chosen ? chosen.split(',') : [])
  if (!ALL_SCHEDULES.includes(s))
    throw new Error(`--schedules: unknown schedule ${s} (known: ${ALL_SCHEDULES.join(', ')})`);
// Start every rank even where the machine has fewer CPUs than ranks (the launcher refuses otherwise).
const oversubscribe = process.argv.includes('--oversubscribe');
process.env.STAGECRAFT_RUNTIME_CPUS = cpus;
process.env.OMP_NUM_THREADS = '1';
mkdirSync(OUT, { recursive: true });

const load = () =>
  execFileSync('uptime', { encoding: 'utf8' })
    .trim()
    .replace(/.*load average: /, '');
const designFile = (s: string) => join(DESIGNS, `${s}.json`);
function design(s: string): Design {
  const parsed = parseDesignText(readFileSync(designFile(s), 'utf8'));
  if (!parsed.ok) throw new Error(`${s}: ${parsed.errors[0]!.message}`);
  return parsed.design;
}

/** Busy share of all CPUs over `seconds`, from /proc/stat (user + nice + system + irq + softirq + steal). */
function busyShare(seconds: number): number {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3]! + f[4]!;
    return { idle, total: f.reduce((t, x) => t + x, 0) };
  };
  const a = read();
  execFileSync('sleep', [String(seconds)]);
  const b = read();
  return b.total > a.total ? 1 - (b.idle - a.idle) / (b.total - a.total) : 0;
}

/**
 * The machine is shared: before each run, wait (up to `quietWaitS`) until the other processes
 * leave both cores mostly idle, so a run starts on a quiet machine when there is one. What was
 * waited and the busy share at the start are reported with the table.
 */
const quietBelow = Number(option('quiet', '0.3'));
const quietWaitS = Number(option('quiet-wait', '90'));
const starts: { busy: number; waitedS: number }[] = [];
function waitForQuiet(): void {
  const t0 = Date.now();
  let busy = busyShare(1);
  while (busy > quietBelow && (Date.now() - t0) / 1000 < quietWaitS) busy = busyShare(2);
  starts.push({ busy, waitedS: (Date.now() - t0) / 1000 });
}

/** One run of a schedule: its trace file and the measured step (first start to last end, ms). */
function run(s: string, tag: string): { trace: string; stepMs: number } {
  waitForQuiet();
  const trace = join(OUT, `${s}-${tag}.trace.json`);
  const parsed = parseDesignText(readFileSync(designFile(s), 'utf8'));
  if (!parsed.ok) throw new Error(`${s}: ${parsed.errors[0]!.message}`);
  const compiled = compile(parsed.design);
  if (!compiled.ok) throw new Error(`${s}: ${compiled.errors[0]!.message}`);
  const outcome = launchRuntime(compiled.plan, {
    steps,
    dtype: 'float32',
    trace: true,
    hidden,
    backend: 'gloo',
    oversubscribe,
  });
  if (outcome.kind !== 'done' || !outcome.result.trace) throw new Error(`${s}: ${JSON.stringify(outcome)}`);
  writeFileSync(trace, JSON.stringify(measuredTrace(compiled.plan, outcome.result.trace)));
  const read = readTrace(readFileSync(trace, 'utf8'), trace);
  if (!read.ok) throw new Error(`${s}: the trace does not read`);
  return { trace, stepMs: stepTimesMs(read.step).at(-1)! };
}

function predictedMs(d: Design): number {
  const r = runDesign(d, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors[0]!.message);
  const sim = simulateRun(r, false).result;
  if (!sim.ok) throw new Error(sim.errors[0]!.message);
  return sim.sim.makespanMs;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pct = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
const ms = (x: number) => x.toFixed(1);

const loadBefore = load();
const started = new Date().toISOString();

// 1. Run 1F1B a few times and calibrate from the fastest run. Other processes on the shared cores
// only ever add time (a preempted op takes longer, never shorter), so the fastest run is the one
// they disturbed least; the same rule reads every schedule below (its fastest run beside the median).
const calibrationRuns = Array.from({ length: Number(option('calibration-runs', '3')) }, (_, i) =>
  run(CALIBRATED, `calibration${i}`),
);
const calibration = calibrationRuns.reduce((a, b) => (b.stepMs < a.stepMs ? b : a));
const calibratedFile = join(OUT, 'calibrated.json');
const io = bufferIo();
if (
  calibrateCommand(
    {
      kind: 'calibrate',
      design: designFile(CALIBRATED),
      traces: [calibration.trace],
      output: calibratedFile,
      json: true,
    },
    io,
  ) !== 0
)
  throw new Error(io.stderr);
const fit = JSON.parse(io.stdout.trim().split('\n').pop()!) as {
  before: { stepErrorPct: number };
  after: {
    stepErrorPct: number;
    predictedStepMs: number;
    measuredStepMs: number;
    opErrorPct: { p50: number };
  };
  fits: {
    overlapFactor?: { ms: number; samples: number };
    p2p?: { latencyUs: number; samples: number };
    dispatch?: { ms: number; samples: number };
    blocks: { name: string; F?: { ms: number }; BI?: { ms: number }; BW?: { ms: number } }[];
  };
};
const calibrated = parseDesignText(readFileSync(calibratedFile, 'utf8'));
if (!calibrated.ok) throw new Error('the calibrated design does not read');
const calibratedDesign = calibrated.design;
/**
 * A schedule's design with the calibrated costs: the calibrated model and cluster, except that a
 * design with its own chain of blocks (the uneven stage) keeps its blocks' tags, so its placement,
 * and takes each block's fitted times by position (the same 4 runtime MLPs in the same order).
 */
function withCosts(s: string): Design {
  const own = design(s);
  const fitted = calibratedDesign.model;
  if (own.model.kind !== 'synthetic' || !('blocks' in own.model) || !('blocks' in fitted))
    return { ...own, model: fitted, cluster: calibratedDesign.cluster };
  if (own.model.blocks.length !== fitted.blocks.length)
    throw new Error(
      `${s}: ${own.model.blocks.length} blocks, the calibrated model has ${fitted.blocks.length}`,
    );
  const blocks = own.model.blocks.map((b, i) => ({ ...fitted.blocks[i]!, tags: b.tags }));
  return { ...own, model: { ...fitted, blocks }, cluster: calibratedDesign.cluster };
}

// 2. Predict every schedule with the calibrated costs (and, to show what dispatch adds, without it).
const predicted = new Map<string, number>();
const withoutDispatch = new Map<string, number>();
for (const s of SCHEDULES) {
  predicted.set(s, predictedMs(withCosts(s)));
  const { dispatchMs: _, ...cluster } = calibrated.design.cluster as { dispatchMs?: number };
  withoutDispatch.set(s, predictedMs({ ...withCosts(s), cluster } as Design));
}

// 3. Run each schedule `reps` times, interleaved, and compare.
const measured = new Map<string, { stepMs: number; opP50: number }[]>(SCHEDULES.map((s) => [s, []]));
for (let r = 0; r < reps; r++)
  for (const s of SCHEDULES) {
    const m = run(s, `rep${r}`);
    const read = readTrace(readFileSync(m.trace, 'utf8'), m.trace);
    const c = read.ok ? compareMeasured(withCosts(s), read.step) : undefined;
    measured.get(s)!.push({ stepMs: m.stepMs, opP50: c?.ok ? c.replay.opErrorPct.p50 : Number.NaN });
    process.stderr.write(`${s} rep ${r}: ${ms(m.stepMs)} ms\n`);
  }
const loadAfter = load();

const rows = SCHEDULES.map((s) => {
  const runs = measured.get(s)!;
  const xs = runs.map((x) => x.stepMs);
  const fastest = runs.reduce((a, b) => (b.stepMs < a.stepMs ? b : a));
  const p = predicted.get(s)!;
  const med = median(xs);
  const min = Math.min(...xs);
  return {
    s,
    name: design(s)
      .name!.replace(/^closed loop: /, '')
      .replace(/, p=2, m=8$/, ''),
    predicted: p,
    withoutDispatch: withoutDispatch.get(s)!,
    median: med,
    min,
    max: Math.max(...xs),
    errorPct: ((p - med) / med) * 100,
    errorMinPct: ((p - min) / min) * 100,
    opP50: fastest.opP50,
    runs: xs,
  };
});
type Row = (typeof rows)[number];
const ranks = (key: 'predicted' | 'median' | 'min') => {
  const order = [...rows].sort((a, b) => a[key] - b[key]).map((r) => r.s);
  return (s: string) => order.indexOf(s) + 1;
};
const rankP = ranks('predicted');
const rankMed = ranks('median');
const rankMin = ranks('min');

// Ranking: every pair whose measured ranges (min–max over the runs) do not overlap must be
// predicted in the measured order; pairs within the noise are not decided by the measurement.
let decided = 0;
const swapped: string[] = [];
for (let i = 0; i < rows.length; i++)
  for (let j = i + 1; j < rows.length; j++) {
    const a = rows[i]!;
    const b = rows[j]!;
    if (a.max >= b.min && b.max >= a.min) continue;
    decided++;
    if (Math.sign(a.median - b.median) !== Math.sign(a.predicted - b.predicted))
      swapped.push(`${a.name} / ${b.name}`);
  }
// The same for the fastest runs, whose noise is how far a schedule's second-fastest run lies from
// its fastest: a pair is decided when their fastest runs differ by more than either's.
const second = (r: Row) => [...r.runs].sort((a, b) => a - b)[1] ?? r.min;
let decidedFast = 0;
const swappedFast: string[] = [];
for (let i = 0; i < rows.length; i++)
  for (let j = i + 1; j < rows.length; j++) {
    const a = rows[i]!;
    const b = rows[j]!;
    if (Math.abs(a.min - b.min) <= Math.max(second(a) - a.min, second(b) - b.min)) continue;
    decidedFast++;
    if (Math.sign(a.min - b.min) !== Math.sign(a.predicted - b.predicted))
      swappedFast.push(`${a.name} / ${b.name}`);
  }
const others = rows.filter((r) => r.s !== CALIBRATED);
const spreadPct = (r: Row) => ((r.max - r.min) / r.median) * 100;
const self = rows.find((r) => r.s === CALIBRATED)!;
const abs = (xs: readonly number[]) => xs.map(Math.abs);

const out: string[] = [];
out.push(
  `Measured ${started} → ${new Date().toISOString()}; load average ${loadBefore} before, ${loadAfter} after (2 cores).`,
  `\`npx tsx bench/closed-loop.ts --hidden ${hidden} --reps ${reps} --steps ${steps} --calibration-runs ${calibrationRuns.length} --quiet ${quietBelow} --quiet-wait ${quietWaitS}${chosen ? ` --schedules ${chosen}` : ''}${oversubscribe ? ' --oversubscribe' : ''}\`: 2 ranks pinned to cores ${cpus}, one torch thread each, the last of ${steps} steps traced per run.`,
  '',
  `Calibrated from the fastest of ${calibrationRuns.length} 1F1B runs (steps ${calibrationRuns.map((r) => ms(r.stepMs)).join(', ')} ms): per block F / BI / BW ${fit.fits.blocks
    .map(
      (b) => `${ms(b.F?.ms ?? Number.NaN)} / ${ms(b.BI?.ms ?? Number.NaN)} / ${ms(b.BW?.ms ?? Number.NaN)}`,
    )
    .join(
      ', ',
    )} ms; F&B overlap factor ${fit.fits.overlapFactor?.ms.toFixed(3) ?? '—'} (${fit.fits.overlapFactor?.samples ?? 0} pairs); point-to-point ${fit.fits.p2p ? `${(fit.fits.p2p.latencyUs / 1e3).toFixed(3)} ms per transfer` : '—'}; dispatch ${fit.fits.dispatch ? `${(fit.fits.dispatch.ms * 1e3).toFixed(0)} µs per instruction (${fit.fits.dispatch.samples} gaps)` : '—'}.`,
  `Replay of the calibration run itself: step ${pct(fit.after.stepErrorPct)} (before calibration ${pct(fit.before.stepErrorPct)}), op error p50 ${fit.after.opErrorPct.p50.toFixed(1)}%.`,
  '',
  '| schedule | predicted ms | without dispatch | measured fastest ms | median ms | spread (max−min)/median | error vs fastest | error vs median | op error p50 | rank predicted / fastest / median |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| ${r.name}${r.s === CALIBRATED ? ' (calibrated)' : ''} | ${ms(r.predicted)} | ${ms(r.withoutDispatch)} | ${ms(r.min)} | ${ms(r.median)} | ${spreadPct(r).toFixed(1)}% | ${pct(r.errorMinPct)} | ${pct(r.errorPct)} | ${r.opP50.toFixed(1)}% | ${rankP(r.s)} / ${rankMin(r.s)} / ${rankMed(r.s)} |`,
  ),
  '',
  `- Calibrated schedule (1F1B) against its ${reps} runs: ${pct(self.errorMinPct)} vs the fastest, ${pct(self.errorPct)} vs the median.`,
  `- The other ${others.length}: median |error| ${median(abs(others.map((r) => r.errorMinPct))).toFixed(1)}% vs the fastest runs (largest ${Math.max(...abs(others.map((r) => r.errorMinPct))).toFixed(1)}%), ${median(abs(others.map((r) => r.errorPct))).toFixed(1)}% vs the medians (largest ${Math.max(...abs(others.map((r) => r.errorPct))).toFixed(1)}%).`,
  `- Run-to-run noise: median spread ${median(rows.map(spreadPct)).toFixed(1)}% of the step over ${reps} runs per schedule; the fastest runs of all ${rows.length} lie within ${ms(Math.min(...rows.map((r) => r.min)))}–${ms(Math.max(...rows.map((r) => r.min)))} ms.`,
  `- Ranking by the medians: ${decided} pairs of schedules differ by more than their runs' ranges; ${swapped.length === 0 ? 'all predicted in the measured order' : `swapped: ${swapped.join(', ')}`}.`,
  `- Ranking by the fastest runs: ${decidedFast} pairs differ by more than either schedule's gap between its two fastest runs (median gap ${ms(median(rows.map((r) => second(r) - r.min)))} ms); ${swappedFast.length === 0 ? 'all predicted in the measured order' : `swapped: ${swappedFast.join(', ')}`}.`,
  `- Quiet gate (busy share of both cores under ${quietBelow} before each run, waiting up to ${quietWaitS} s): median busy share at the runs' starts ${median(starts.map((x) => x.busy)).toFixed(2)} (largest ${Math.max(...starts.map((x) => x.busy)).toFixed(2)}), ${starts.filter((x) => x.busy > quietBelow).length} of ${starts.length} runs started without a quiet moment; ${starts.reduce((t, x) => t + x.waitedS, 0).toFixed(0)} s waited in all.`,
  `- Runs (ms): ${rows.map((r) => `${r.name} ${r.runs.map(ms).join(', ')}`).join('; ')}.`,
);

// Pairs predicted far apart: does the measurement rank them as the prediction does?
const rowOf = (s: string) => rows.find((r) => r.s === s)!;
const microbatches = (s: string) =>
  (design(s).directives.find((d) => d.op === 'schedule') as { microbatches: number }).microbatches;
const pairRows = PAIRS.filter((p) => SCHEDULES.includes(p.a) && SCHEDULES.includes(p.b)).map((p) => {
  const a = rowOf(p.a);
  const b = rowOf(p.b);
  const per = (s: string) => (p.perMicrobatch ? microbatches(s) : 1);
  const diff = (key: 'predicted' | 'median' | 'min') => a[key] / per(p.a) / (b[key] / per(p.b)) - 1;
  const predictedDiff = diff('predicted');
  // One run per schedule measures no noise: no pair is then known to be apart.
  const noise = reps > 1 ? Math.max(spreadPct(a), spreadPct(b)) / 100 : Number.NaN;
  // Paired: a's and b's runs of the same round start within a minute of each other, so a load that
  // comes and goes over minutes stretches both; their ratio round by round cancels it, and the
  // scatter of those ratios is the noise of the difference itself (a robust σ: 1.4826 × the
  // median absolute deviation of the log-ratios, the normal distribution's consistency constant).
  const logs = a.runs.map((x, r) => Math.log(x / per(p.a) / (b.runs[r]! / per(p.b))));
  const pairedDiff = Math.exp(median(logs)) - 1;
  const pairedNoise =
    reps > 2 ? Math.exp(1.4826 * median(logs.map((l) => Math.abs(l - median(logs))))) - 1 : Number.NaN;
  return {
    ...p,
    predictedDiff,
    medianDiff: diff('median'),
    fastestDiff: diff('min'),
    pairedDiff,
    noise,
    pairedNoise,
    apart: Number.isFinite(noise) && Math.abs(predictedDiff) > 2 * noise,
    pairedApart: Number.isFinite(pairedNoise) && Math.abs(predictedDiff) > 2 * pairedNoise,
    keptMedian: Math.sign(diff('median')) === Math.sign(predictedDiff),
    keptFastest: Math.sign(diff('min')) === Math.sign(predictedDiff),
    keptPaired: Math.sign(pairedDiff) === Math.sign(predictedDiff),
  };
});
const apart = pairRows.filter((p) => p.apart);
const yesNo = (x: boolean) => (x ? 'yes' : 'no');
out.push(
  '',
  '| pair (a / b) | predicted a/b − 1 | measured, medians | measured, fastest runs | measured, paired by round | noise (larger spread of the two) | paired noise (robust σ) | predicted apart by > 2 × noise / paired | same order: medians / fastest / paired |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...pairRows.map(
    (p) =>
      `| ${p.what} | ${pct(100 * p.predictedDiff)} | ${pct(100 * p.medianDiff)} | ${pct(100 * p.fastestDiff)} | ${pct(100 * p.pairedDiff)} | ${Number.isFinite(p.noise) ? `${(100 * p.noise).toFixed(1)}%` : '— (one run each)'} | ${Number.isFinite(p.pairedNoise) ? `${(100 * p.pairedNoise).toFixed(1)}%` : '— (fewer than 3 rounds)'} | ${yesNo(p.apart)} / ${yesNo(p.pairedApart)} | ${yesNo(p.keptMedian)} / ${yesNo(p.keptFastest)} / ${yesNo(p.keptPaired)} |`,
  ),
  '',
  `- Pairs predicted apart by more than twice their noise: ${apart.length} of ${pairRows.length}; measured in the predicted order on ${apart.filter((p) => p.keptMedian).length} of them by the medians and ${apart.filter((p) => p.keptFastest).length} by the fastest runs${
    apart.some((p) => !p.keptMedian)
      ? ` (reversed by the medians: ${apart
          .filter((p) => !p.keptMedian)
          .map((p) => p.what)
          .join(', ')})`
      : ''
  }.`,
  `- Paired by round (a/b each round, median of the rounds): ${pairRows.filter((p) => p.pairedApart).length} of ${pairRows.length} pairs predicted apart by more than twice the paired noise; measured in the predicted order on ${pairRows.filter((p) => p.pairedApart && p.keptPaired).length} of them.`,
  `- Median step error over all ${others.length} predicted (not calibrated) schedules: ${median(abs(others.map((r) => r.errorPct))).toFixed(1)}% against their medians, ${median(abs(others.map((r) => r.errorMinPct))).toFixed(1)}% against their fastest runs.`,
);
console.log(out.join('\n'));
