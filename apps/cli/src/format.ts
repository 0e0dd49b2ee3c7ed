/** Text the CLI prints: error lines, human units, the simulate summary. */
import { formatIssue, type Issue } from '@stagecraft/ir';
import { exposedCommPerDeviceMs, type Simulation } from '@stagecraft/sim';

/**
 * `error: <path>: <reason>`. An issue about the whole document (empty path) is reported against
 * the file it came from, so every line names where to look.
 */
export function errorLine(issue: Issue, file?: string): string {
  const i = issue.path === '' && file !== undefined ? { ...issue, path: file } : issue;
  // One problem, one line: a reason that quotes input (a JSON parser's excerpt) may hold newlines.
  return `error: ${formatIssue(i).replace(/\s*\n\s*/g, ' ')}`;
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (Math.abs(ms) >= 100) return `${ms.toFixed(1)} ms`;
  return `${Number(ms.toFixed(3))} ms`;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(bytes: number): string {
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${BYTE_UNITS[u]}`;
}

export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(2)}%`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** Left-aligned first column, right-aligned others, two spaces apart. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `label  value` lines with the values in one column. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const w = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(w + 2)} ${v}`).join('\n');
}

export interface SummaryInput {
  name: string;
  file: string;
  sim: Simulation;
  ops: number;
  timings: { compileMs: number; simulateMs: number };
  /** What each pipeline stage holds, for transformer models (formatStageLayers). */
  layersPerStage?: string;
  /** The ASCII timeline, when the design is small enough to draw. */
  timeline?: string;
  /** With --steps: the steady step time over that many steps in a row. */
  steady?: { steps: number; steadyStepMs: number };
}

/** The readable form of `simulate`: headline metrics, a per-device table and, when small, the timeline. */
export function simulationSummary(s: SummaryInput): string {
  const { sim } = s;
  const metrics: [string, string][] = [
    ['makespan', formatMs(sim.makespanMs)],
    ...(s.steady
      ? ([[`steady step (${s.steady.steps} steps)`, formatMs(s.steady.steadyStepMs)]] as [string, string][])
      : []),
    ['bubble (of total)', formatPercent(sim.bubbleRatio)],
    ['bubble (of ideal, Megatron)', formatPercent(sim.bubbleOverIdeal)],
    ['exposed comm. per GPU', formatMs(exposedCommPerDeviceMs(sim))],
  ];
  if (sim.tokensPerSecond !== undefined)
    metrics.push(['tokens/s', formatCount(Math.round(sim.tokensPerSecond))]);
  if (sim.mfu !== undefined) metrics.push(['MFU', formatPercent(sim.mfu)]);
  metrics.push(['ops', formatCount(s.ops)]);
  if (s.layersPerStage !== undefined) metrics.push(['layers per stage', s.layersPerStage]);

  const devices = table(
    ['device', 'busy', 'idle', 'peak memory', 'peak activations'],
    sim.devices.map((d) => [
      String(d.device),
      formatMs(d.busyMs),
      formatMs(d.idleMs),
      formatBytes(d.peakMemoryBytes),
      formatBytes(d.peakActivationBytes),
    ]),
  );

  const parts = [`${s.name}  (${s.file})`, fields(metrics), devices];
  // Out-of-memory predictions, one line each (the first few: 2,048 devices can all be out).
  const warnings = sim.warnings ?? [];
  if (warnings.length > 0)
    parts.push(
      [
        ...warnings.slice(0, 8).map((w) => `warning: ${w}`),
        ...(warnings.length > 8 ? [`warning: … and ${warnings.length - 8} more devices out of memory`] : []),
      ].join('\n'),
    );
  if (s.timeline !== undefined) parts.push(s.timeline.trimEnd());
  else parts.push(`(no timeline: ${formatCount(s.ops)} ops is too many to draw in a terminal)`);
  parts.push(`compiled in ${formatMs(s.timings.compileMs)}, simulated in ${formatMs(s.timings.simulateMs)}`);
  return parts.join('\n\n');
}
