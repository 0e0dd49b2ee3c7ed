/**
 * What a measurement says, whatever it was read from: per device, when each instruction of the
 * plan ran. Traces name instructions by their plan ids (the runtime writes them, users wrap their
 * own ops in `record_function("<id>")`), so a span is matched to the plan by id and device alone.
 */

/** One run of one instruction on one device. Times in milliseconds on the device's clock. */
export interface MeasuredSpan {
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
  /** Which step of the trace it belongs to: the n-th run of this id on this device (0-based). */
  readonly step: number;
}

export interface MeasuredDevice {
  readonly device: number;
  readonly spans: readonly MeasuredSpan[];
}

export type TraceSource = 'stagecraft' | 'kineto' | 'legacy-profiler' | 'stage-table';

export interface MeasuredStep {
  /** Where each device's spans came from (several files may be merged). */
  readonly sources: readonly TraceSource[];
  /**
   * Whether the devices' clocks share an origin, so one device's times compare with another's:
   * true for Stagecraft's runtime (one host clock) and Kineto (epoch microseconds); false for the
   * legacy profiler, whose times start at each process's own profiler start.
   */
  readonly alignedClocks: boolean;
  readonly devices: readonly MeasuredDevice[];
  /** Names that look like instruction ids but that no plan instruction has, per device. */
  readonly foreignIds?: readonly { device: number; id: string }[];
  /**
   * The fingerprint of the plan the step ran (`planFingerprint`), when the trace records it
   * (Stagecraft's runtime does, in `otherData.planFingerprint`): a design of another plan refuses it.
   */
  readonly planFingerprint?: string;
}

/** Steps in the trace: the most runs any instruction had on any device. */
export function stepCount(m: MeasuredStep): number {
  let steps = 0;
  for (const d of m.devices) for (const s of d.spans) if (s.step + 1 > steps) steps = s.step + 1;
  return steps;
}

/**
 * Wall time of each step: from the first instruction's start to the last one's end over all
 * devices when clocks are aligned, else the longest single device's span (which undercounts the
 * skew between devices: say so where it is reported).
 */
export function stepTimesMs(m: MeasuredStep): number[] {
  const n = stepCount(m);
  // One pass over the spans, not one per step: an id repeated 100,000 times is as many steps.
  const lo = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const hi = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  const longest = new Float64Array(n);
  for (const d of m.devices) {
    const own = new Map<number, { lo: number; hi: number }>();
    for (const s of d.spans) {
      const w = own.get(s.step);
      if (!w) own.set(s.step, { lo: s.startMs, hi: s.endMs });
      else {
        if (s.startMs < w.lo) w.lo = s.startMs;
        if (s.endMs > w.hi) w.hi = s.endMs;
      }
    }
    for (const [k, w] of own) {
      if (w.hi < w.lo) continue;
      lo[k] = Math.min(lo[k]!, w.lo);
      hi[k] = Math.max(hi[k]!, w.hi);
      longest[k] = Math.max(longest[k]!, w.hi - w.lo);
    }
  }
  const out: number[] = [];
  for (let k = 0; k < n; k++) if (hi[k]! >= lo[k]!) out.push(m.alignedClocks ? hi[k]! - lo[k]! : longest[k]!);
  return out;
}

/** Spans with a running step index per (device, id), in start order: how repeated ids become steps. */
export function numberSteps(spans: { id: string; startMs: number; endMs: number }[]): MeasuredSpan[] {
  const sorted = [...spans].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  const seen = new Map<string, number>();
  return sorted.map((s) => {
    const step = seen.get(s.id) ?? 0;
    seen.set(s.id, step + 1);
    return { id: s.id, startMs: s.startMs, endMs: s.endMs, step };
  });
}
