/**
 * Frame times while a timeline is zoomed or panned, for the UI benchmark: every animation frame
 * between the start and the end of a gesture records the time since the previous one, and every
 * canvas redraw its own duration. Collected in `window.__stagecraftGanttFrames` when a Gantt has
 * `measureFrames` on; the benchmark reads and resets it.
 */
export interface GanttFrames {
  /** Milliseconds between consecutive animation frames during gestures. */
  intervals: number[];
  /** Milliseconds each redraw took (canvas paint, or the SVG render's commit). */
  draws: number[];
  /** Gestures seen (zoom or pan start events). */
  gestures: number;
}

declare global {
  interface Window {
    __stagecraftGanttFrames?: GanttFrames;
  }
}

export function frames(): GanttFrames {
  if (!window.__stagecraftGanttFrames)
    window.__stagecraftGanttFrames = { intervals: [], draws: [], gestures: 0 };
  return window.__stagecraftGanttFrames;
}

export class FrameMeter {
  private raf = 0;
  private last = 0;

  start(): void {
    if (this.raf !== 0) return;
    frames().gestures++;
    this.last = performance.now();
    const tick = (now: number) => {
      frames().intervals.push(now - this.last);
      this.last = now;
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  stop(): void {
    if (this.raf !== 0) cancelAnimationFrame(this.raf);
    this.raf = 0;
  }

  draw(ms: number): void {
    frames().draws.push(ms);
  }
}
