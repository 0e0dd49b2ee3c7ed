/**
 * Opening a saved design as a user does (its link, `/#design=<id>`), timed in the page: from the
 * navigation's start to the first frame painted with its own timeline laid out, and every
 * main-thread task over 50 ms a PerformanceObserver of long tasks saw from the page's start to
 * `settleMs` after that frame (the DAG, the whole plan and the hit layer follow the timeline and
 * count too). Issue 30 §5's measure: no task over 100 ms, the timeline within 2 s.
 */
import type { CDPSession, Page } from '@playwright/test';

export interface Opening {
  /** From the navigation's start to the first frame painted with the design's timeline. */
  firstPaintMs: number;
  /** Durations of the main-thread tasks over 50 ms, longest first. */
  longTasks: number[];
  ops: number;
  /**
   * CPU time of the page's main thread from its start to `settleMs` after the painted timeline
   * (Chromium's `ThreadTime` metric): unlike the wall times it hardly moves with the machine's load.
   */
  mainCpuMs: number;
  /** Results of the worker the page took before its design's own was painted, that one included. */
  results: number;
}

/**
 * Installed before any script of the page: the long-task observer and a per-frame watch for the
 * timeline of the opened design's result (not the placeholder, not a layout still in slices). Plain
 * JavaScript text: tsx would wrap a named function of a callback in a helper the page does not have.
 * It tells the paint by a console message: waiting with page.waitForFunction would evaluate
 * Playwright's injected script in the page, a task of 0.1 s of its own counted as the page's.
 */
const PAINTED = 'stagecraft-bench: timeline painted';
const OPENING_PROBE = `
  window.__opening = { long: [], paintedMs: null, ops: 0, results: 0 };
  let lastResult = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__opening.long.push(e.duration);
  }).observe({ type: 'longtask' });
  const opened = decodeURIComponent((location.hash.match(/design=([^&]+)/) || [])[1] || '');
  function watch() {
    const st = window.stagecraft && window.stagecraft.store.getState();
    if (st && st.result && st.result !== lastResult) {
      lastResult = st.result;
      window.__opening.results++;
    }
    // The opened design's own result: not the default example's, computed while it loads.
    const sim = st && st.designId === opened && st.resultRevision === st.revision && st.result?.simulation;
    const gantt = document.querySelector('[data-testid="gantt"]');
    if (
      sim &&
      gantt &&
      gantt.getAttribute('data-layout') !== 'pending' &&
      // A new layout's rows are painted in slices over several tasks (gantt/painter.ts): all of them.
      !gantt.hasAttribute('data-painting') &&
      gantt.getAttribute('data-makespan-ms') === String(sim.makespanMs)
    ) {
      window.__opening.ops = sim.ops;
      // This callback runs before the frame that shows the timeline; the task after it, after
      // that frame's paint.
      requestAnimationFrame(() =>
        setTimeout(() => {
          window.__opening.paintedMs = performance.now();
          console.log('${PAINTED}');
        }, 0),
      );
      return;
    }
    requestAnimationFrame(watch);
  }
  requestAnimationFrame(watch);
`;

export async function installOpeningProbe(page: Page): Promise<void> {
  await page.addInitScript({ content: OPENING_PROBE });
}

/** Opens `url` (a design's link) on a page with the probe installed and reads the figures. */
export async function measureOpening(page: Page, url: string, settleMs: number): Promise<Opening> {
  await page.goto('about:blank');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const cpuBefore = await threadTimeMs(cdp);
  const painted = page.waitForEvent('console', {
    predicate: (m) => m.text() === PAINTED,
    timeout: 60_000,
  });
  await page.goto(url);
  try {
    await painted;
  } catch (e) {
    const seen = await page.evaluate(() => {
      const w = window as unknown as {
        stagecraft?: {
          store: {
            getState(): { status: string; result: { simulation: { makespanMs: number } } | null };
          };
        };
      };
      const s = w.stagecraft?.store.getState();
      const gantt = document.querySelector('[data-testid="gantt"]');
      return `status ${s?.status}, result makespan ${s?.result?.simulation.makespanMs}, timeline ${gantt?.getAttribute('data-layout')} at ${gantt?.getAttribute('data-makespan-ms')}`;
    });
    throw new Error(`${url}: no painted timeline of its result within 60 s (${seen})`, { cause: e });
  }
  await page.waitForTimeout(settleMs);
  const mainCpuMs = (await threadTimeMs(cdp)) - cpuBefore;
  await cdp.detach();
  const o = await page.evaluate(() => {
    const w = window as unknown as {
      __opening: { long: number[]; paintedMs: number; ops: number; results: number };
    };
    return { ...w.__opening, long: [...w.__opening.long] };
  });
  return {
    firstPaintMs: o.paintedMs,
    longTasks: o.long.sort((a, b) => b - a),
    ops: o.ops,
    mainCpuMs,
    results: o.results,
  };
}

/** The CPU time the page's main thread has used so far (Chromium reports seconds). */
async function threadTimeMs(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const t = metrics.find((m) => m.name === 'ThreadTime');
  if (!t) throw new Error('Chromium reported no ThreadTime metric');
  return t.value * 1000;
}
