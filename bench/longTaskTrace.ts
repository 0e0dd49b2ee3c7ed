/**
 * What the page's long tasks were made of, from a DevTools trace (bench/web-frames.ts --trace): a
 * long task counted by a PerformanceObserver says how long, not why. Each main-thread task over
 * 50 ms is listed with the events inside it (script, garbage collection, message deserialization,
 * layout, paint) over a few ms, nested as the trace nests them, and the sampled profile's functions
 * that took the most of it.
 */
import type { CDPSession } from '@playwright/test';

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  tid: number;
  pid: number;
  args?: { name?: string; data?: Record<string, unknown> };
}

/** Categories that show tasks, script, GC, (de)serialization, style/layout/paint and CPU samples. */
const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.gc',
  'blink',
  'disabled-by-default-v8.cpu_profiler',
].join(',');

export async function startTrace(cdp: CDPSession): Promise<void> {
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReturnAsStream' });
}

export async function stopTrace(cdp: CDPSession): Promise<TraceEvent[]> {
  const done = new Promise<string>((resolve) =>
    cdp.once('Tracing.tracingComplete', (e) => resolve((e as { stream: string }).stream)),
  );
  await cdp.send('Tracing.end');
  const stream = await done;
  let text = '';
  for (;;) {
    const chunk = (await cdp.send('IO.read', { handle: stream })) as { data: string; eof: boolean };
    text += chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(text) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  return Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
}

function label(e: TraceEvent): string {
  const d = e.args?.data;
  if (!d) return e.name;
  const fn = (d.functionName as string | undefined) ?? '';
  const url = String(d.url ?? '')
    .split('/')
    .pop();
  const type = d.type as string | undefined;
  return [e.name, type, fn && `${fn}()`, url].filter(Boolean).join(' ');
}

/** The id of the sampled profile of a thread (its 'Profile' event is on that thread). */
function profileOf(events: TraceEvent[], pid: number, tid: number): string | undefined {
  return (
    events.find((e) => e.name === 'Profile' && e.pid === pid && e.tid === tid) as { id?: string } | undefined
  )?.id;
}

/** Self time (ms) per function of a profile's CPU samples taken between t0 and t1 (trace µs). */
export function sampledFunctions(
  events: TraceEvent[],
  id: string,
  t0: number,
  t1: number,
): [string, number][] {
  const nodes = new Map<number, string>();
  const self = new Map<string, number>();
  let time = 0;
  for (const e of events) {
    if ((e as { id?: string }).id !== id) continue;
    if (e.name === 'Profile') time = (e.args?.data?.startTime as number) ?? time;
    if (e.name !== 'ProfileChunk') continue;
    const data = e.args?.data as {
      cpuProfile?: {
        nodes?: { id: number; callFrame: { functionName: string; url?: string; lineNumber?: number } }[];
        samples?: number[];
      };
      timeDeltas?: number[];
    };
    for (const n of data.cpuProfile?.nodes ?? [])
      nodes.set(
        n.id,
        `${n.callFrame.functionName || `(anonymous:${(n.callFrame.lineNumber ?? -1) + 1})`} ${(n.callFrame.url ?? '').split('/').pop() ?? ''}`.trim(),
      );
    const samples = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i++) {
      time += deltas[i] ?? 0;
      if (time < t0 || time > t1) continue;
      const key = nodes.get(samples[i]!);
      if (key) self.set(key, (self.get(key) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
    }
  }
  return [...self.entries()].sort((a, b) => b[1] - a[1]);
}

/** Lines describing each main-thread task over `longMs`. */
export function describeLongTasks(events: TraceEvent[], longMs = 50, detailMs = 5): string[] {
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  if (!main) return ['no renderer main thread in the trace'];
  const onMain = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && typeof e.dur === 'number')
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const profile = profileOf(events, main.pid, main.tid);
  const tasks = onMain.filter((e) => e.name === 'RunTask' && e.dur! / 1000 > longMs);
  const out: string[] = [];
  for (const task of tasks) {
    const end = task.ts + task.dur!;
    out.push(
      `task at ${((task.ts - tasks[0]!.ts) / 1000).toFixed(0)} ms: ${(task.dur! / 1000).toFixed(0)} ms`,
    );
    const stack: number[] = [];
    for (const e of onMain) {
      if (e === task || e.ts < task.ts || e.ts >= end || e.dur! / 1000 < detailMs) continue;
      while (stack.length && e.ts >= stack[stack.length - 1]!) stack.pop();
      out.push(`${'  '.repeat(stack.length + 1)}${(e.dur! / 1000).toFixed(0).padStart(5)} ms  ${label(e)}`);
      stack.push(e.ts + e.dur!);
    }
    const fns = profile ? sampledFunctions(events, profile, task.ts, end).slice(0, 12) : [];
    if (fns.length)
      out.push(`  sampled self time: ${fns.map(([f, ms]) => `${f} ${ms.toFixed(0)}`).join('; ')}`);
  }
  return out;
}

/** The compile worker's busiest functions over the whole trace. */
export function describeWorker(events: TraceEvent[]): string[] {
  const worker = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'DedicatedWorker thread',
  );
  const profile = worker && profileOf(events, worker.pid, worker.tid);
  if (!profile) return [];
  const fns = sampledFunctions(events, profile, 0, Number.POSITIVE_INFINITY);
  const total = fns.reduce((t, [, ms]) => t + ms, 0);
  return [
    `worker: ${total.toFixed(0)} ms sampled; ${fns
      .slice(0, 15)
      .map(([f, ms]) => `${f} ${ms.toFixed(0)}`)
      .join('; ')}`,
  ];
}

/**
 * The page's main thread over the whole trace: its busiest sampled functions, so work spread over
 * many short tasks shows beside the long ones.
 */
export function describeMain(events: TraceEvent[], top = 25): string[] {
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  const profile = main && profileOf(events, main.pid, main.tid);
  if (!profile) return [];
  const fns = sampledFunctions(events, profile, 0, Number.POSITIVE_INFINITY).filter(([f]) => f !== '(idle)');
  const total = fns.reduce((t, [, ms]) => t + ms, 0);
  return [
    `main thread: ${total.toFixed(0)} ms sampled (idle left out); ${fns
      .slice(0, top)
      .map(([f, ms]) => `${f} ${ms.toFixed(0)}`)
      .join('; ')}`,
  ];
}
