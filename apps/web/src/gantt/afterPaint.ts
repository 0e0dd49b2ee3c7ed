/**
 * Scheduling of work the screen does not wait for: it runs once the frame being prepared has been
 * painted and the page is idle, so that frame carries only what it shows. Where the browser has no
 * idle callbacks (test DOMs), a task after the frame stands in for the idle period.
 */

/** Longest wait for an idle period when the page stays busy. */
const IDLE_TIMEOUT_MS = 250;

/** Runs `run` after the next painted frame, when idle; the returned function cancels it. */
export function afterPaint(run: () => void): () => void {
  let idle: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    if (typeof requestIdleCallback === 'function')
      idle = requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS });
    else timer = setTimeout(run, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    if (idle !== undefined) cancelIdleCallback(idle);
    clearTimeout(timer);
  };
}
