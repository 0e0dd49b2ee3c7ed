/**
 * The timeline's layout without a long task. Up to SLICED_LAYOUT_EVENTS events it is laid out in
 * the render, as it always was; a bigger timeline is laid out a few lanes at a time in tasks of
 * about SLICE_MS, the page answering input and painting between them (DeepSeek-V3's 70k events took
 * 100–270 ms in one task on this 2-core machine, and the time grows with the events). Until the new
 * layout is done the timeline keeps showing the one before, marked pending.
 */
import { useEffect, useMemo, useState } from 'react';
import { afterPaint } from './afterPaint.ts';
import type { GanttLayout } from './layout.ts';

/** Qwen3-30B-A3B's 16k events took 100–215 ms in one task on this machine under load. */
export const SLICED_LAYOUT_EVENTS = 8_000;
/** Work per task: well within the 200 ms of a long task, few enough tasks to pay little for them. */
const SLICE_MS = 40;

/**
 * The next task: a message to itself, which the browser runs without the 4 ms that nested timers
 * wait (hundreds of slices of a cold first layout added seconds); a timer where there is no channel.
 */
function nextTask(run: () => void): () => void {
  if (typeof MessageChannel !== 'function') {
    const timer = setTimeout(run, 0);
    return () => clearTimeout(timer);
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = run;
  channel.port2.postMessage(null);
  return () => {
    channel.port1.onmessage = null;
    channel.port1.close();
  };
}

/** Layouts under way, and what waits for them to be drawn. */
const underWay = new Set<object>();
let waiting: (() => void)[] = [];

function finished(job: object): void {
  if (!underWay.delete(job) || underWay.size > 0) return;
  const run = waiting;
  waiting = [];
  afterPaint(() => {
    // A paint begun since (the layout just finished, painted in slices) keeps them waiting.
    if (underWay.size > 0) waiting.push(...run);
    else for (const f of run) f();
  });
}

/**
 * Timeline work other than a layout (gantt/painter.ts: a new layout painted in slices): what
 * whenTimelinesLaidOut runs waits for its end too. Every begin must be ended.
 */
export function beginTimelineWork(job: object): void {
  underWay.add(job);
}

export function endTimelineWork(job: object): void {
  finished(job);
}

/**
 * Runs `run` once no timeline is being laid out, after the frame that draws it: the DAG and the
 * whole plan a result asks the worker for then do not compete with the timeline for the page.
 */
export function whenTimelinesLaidOut(run: () => void): void {
  if (underWay.size === 0) run();
  else waiting.push(run);
}

function run(steps: Generator<void, GanttLayout, void>): GanttLayout {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

/**
 * The layout for `deps`: `steps` lays it out, `empty` is what shows while the first one of a big
 * timeline is under way (the lanes without ops). `pending`: the layout shown is not yet that of `deps`.
 */
export function useGanttLayout(
  events: number,
  steps: () => Generator<void, GanttLayout, void>,
  empty: () => GanttLayout,
  deps: readonly unknown[],
): { layout: GanttLayout; pending: boolean } {
  const sliced = events > SLICED_LAYOUT_EVENTS;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps say when to lay out again
  const inRender = useMemo(() => (sliced ? null : run(steps())), [sliced, ...deps]);
  const [done, setDone] = useState<{ deps: readonly unknown[]; layout: GanttLayout; job: object } | null>(
    null,
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps say when to lay out again
  useEffect(() => {
    if (!sliced) return;
    const gen = steps();
    const job = {};
    underWay.add(job);
    let cancel = () => {};
    const step = () => {
      const until = performance.now() + SLICE_MS;
      for (;;) {
        const r = gen.next();
        if (r.done) {
          // The job ends when this layout has been committed (below), or when it is dropped.
          setDone({ deps, layout: r.value, job });
          return;
        }
        if (performance.now() >= until) break;
      }
      cancel = nextTask(step);
    };
    cancel = nextTask(step);
    return () => {
      cancel();
      finished(job);
    };
  }, [sliced, ...deps]);
  const current = done !== null && sameDeps(done.deps, deps);
  useEffect(() => {
    if (done) finished(done.job);
  }, [done]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps say when to lay out again
  const placeholder = useMemo(
    () => (sliced && done === null ? empty() : null),
    [sliced, done === null, ...deps],
  );
  if (inRender) return { layout: inRender, pending: false };
  return { layout: done?.layout ?? placeholder!, pending: !current };
}
