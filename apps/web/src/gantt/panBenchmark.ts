/**
 * The pan part of the UI frame-time benchmark, for a script that drives the page with Playwright
 * (`measurePan(page)` from bench/): zoom a timeline in, pan it with real mouse input (a drag from
 * the gutter beside the axis row, then shift+wheel), and read the frame times the timeline recorded
 * (frameMeter.ts). Nothing here runs in the app; the page is typed by what is used of it, so this
 * file needs neither Playwright's nor Node's types.
 */
import type { GanttFrames } from './frameMeter.ts';

/** What measurePan uses of a Playwright Page. */
export interface PanDriver {
  evaluate<R, A>(fn: (arg: A) => R, arg: A): Promise<R>;
  mouse: {
    move(x: number, y: number, options?: { steps?: number }): Promise<void>;
    down(): Promise<void>;
    up(): Promise<void>;
    wheel(deltaX: number, deltaY: number): Promise<void>;
  };
  keyboard: { down(key: string): Promise<void>; up(key: string): Promise<void> };
  waitForTimeout(ms: number): Promise<void>;
}

export interface PanOptions {
  /** Which `[data-testid=gantt]` of the page (default the first). */
  index?: number;
  /** Part of the step the zoomed window shows (default 0.1: a tenth). */
  windowFraction?: number;
  /** Pointer moves of the drag, 10 px each (default 60). */
  dragSteps?: number;
  /** Shift+wheel steps, 40 px each, about one per frame (default 30). */
  wheelSteps?: number;
}

export interface PanFigures {
  render: 'svg' | 'canvas';
  ops: number;
  /** Frames that redrew the timeline while it panned. */
  frames: number;
  /** Milliseconds from each redrawing frame to the next: 16.7 at 60 fps. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** 1000 / mean frame time. */
  fps: number;
  /** Milliseconds of the redraw itself (canvas paint or SVG translate/render), median and p95. */
  drawP50Ms: number;
  drawP95Ms: number;
}

export async function measurePan(page: PanDriver, options: PanOptions = {}): Promise<PanFigures> {
  const index = options.index ?? 0;
  const fraction = options.windowFraction ?? 0.1;
  const box = await page.evaluate(
    ({ index, fraction }) => {
      const root = document.querySelectorAll<HTMLElement>('[data-testid="gantt"]')[index];
      const handle = root?.stagecraftGantt;
      if (!root || !handle) throw new Error(`no timeline number ${index} on the page`);
      root.scrollIntoView({ block: 'start' });
      const whole = handle.window();
      const span = (whole.t1 - whole.t0) * fraction;
      const start = whole.t0 + (whole.t1 - whole.t0) * 0.2;
      handle.zoomTo(start, start + span);
      const r = root.getBoundingClientRect();
      return {
        x: r.left,
        y: r.top,
        width: r.width,
        render: handle.render,
        ops: Number(root.dataset.ops ?? 0),
      };
    },
    { index, fraction },
  );
  await page.waitForTimeout(300);
  await page.evaluate(() => {
    window.__stagecraftGanttFrames = { intervals: [], draws: [], gestures: 0 };
  }, null);
  // Pressed in the gutter beside the axis row: a drag there pans, never grabs an op and marks no
  // range (a drag on the axis itself does).
  const y = box.y + 10;
  const x0 = box.x + 40;
  await page.mouse.move(x0, y);
  await page.mouse.down();
  for (let i = 1; i <= (options.dragSteps ?? 60); i++) await page.mouse.move(x0 + i * 10, y);
  await page.mouse.up();
  await page.keyboard.down('Shift');
  for (let i = 0; i < (options.wheelSteps ?? 30); i++) {
    await page.mouse.wheel(0, 40);
    await page.waitForTimeout(16);
  }
  await page.keyboard.up('Shift');
  await page.waitForTimeout(400);
  const f = await page.evaluate((): GanttFrames | undefined => window.__stagecraftGanttFrames, null);
  await page.evaluate(() => {
    window.__stagecraftGanttFrames = undefined;
  }, null);
  const intervals = [...(f?.intervals ?? [])].sort((a, b) => a - b);
  const draws = [...(f?.draws ?? [])].sort((a, b) => a - b);
  const mean = intervals.reduce((t, v) => t + v, 0) / Math.max(1, intervals.length);
  return {
    render: box.render,
    ops: box.ops,
    frames: intervals.length,
    p50Ms: quantile(intervals, 0.5),
    p95Ms: quantile(intervals, 0.95),
    maxMs: intervals.at(-1) ?? 0,
    fps: intervals.length > 0 ? 1000 / mean : 0,
    drawP50Ms: quantile(draws, 0.5),
    drawP95Ms: quantile(draws, 0.95),
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}
