/**
 * A measured step in the shape the timeline draws (a Simulation with its timeline), so the
 * measured lanes use the same component as the predicted ones. Busy time and bubbles are the
 * measured ones; memory was not measured, so no memory strip is drawn.
 */
import type { MeasuredTimeline } from '@stagecraft/measure';
import type { DeviceMetrics, Simulation } from '@stagecraft/sim';

const COMPUTE = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP']);

export function measuredSimulation(t: MeasuredTimeline, devices: readonly number[]): Simulation {
  const makespanMs = t.makespanMs;
  const metrics: DeviceMetrics[] = devices.map((device) => {
    const compute = t.events.filter((e) => e.device === device && COMPUTE.has(e.op));
    const busyMs = compute.reduce((s, e) => s + (e.endMs - e.startMs), 0);
    const firstStartMs = compute.length ? Math.min(...compute.map((e) => e.startMs)) : 0;
    const lastEndMs = compute.length ? Math.max(...compute.map((e) => e.endMs)) : 0;
    return {
      device,
      busyMs,
      idleMs: makespanMs - busyMs,
      firstStartMs,
      lastEndMs,
      spanBubbleMs: Math.max(0, lastEndMs - firstStartMs - busyMs),
      peakMemoryBytes: 0,
      peakActivationBytes: 0,
    };
  });
  const busy = metrics.reduce((s, d) => s + d.busyMs, 0);
  const idle = metrics.reduce((s, d) => s + d.idleMs, 0);
  return {
    makespanMs,
    bubbleRatio: makespanMs > 0 && metrics.length ? idle / (metrics.length * makespanMs) : 0,
    bubbleOverIdeal: busy > 0 ? idle / busy : 0,
    ops: t.events.reduce((n, e) => n + (e.members?.length ?? 1), 0),
    devices: metrics,
    timeline: t.events,
    exposedCommMs: 0,
  };
}
