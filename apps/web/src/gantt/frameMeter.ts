/**
 * Frame times while a timeline is zoomed or panned, for the UI benchmark. During a gesture every
 * animation frame that redrew the timeline records the time until the next frame (what the redraw
 * cost the page, layout and compositing included), and every redraw its own duration. Collected in
 * `window.__stagecraftGanttFrames` when a Gantt has `measureFrames` on; the benchmark reads it and
 * resets it by assigning undefined.
 */
export interface GanttFrames {
  /** Milliseconds from each frame that redrew the timeline to the next frame. */
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

/** A gesture made of separate events (wheel steps) counts as one while they come this close. */
const SETTLE_MS = 200;

export class FrameMeter {
  private raf = 0;
  /** Timestamp of the frame whose redraw waits to be timed by the next frame. */
  private drawnAt: number | undefined;
  private settle: ReturnType<typeof setTimeout> | undefined;

  start(): void {
    clearTimeout(this.settle);
    this.settle = undefined;
    if (this.raf !== 0) return;
    frames().gestures++;
    this.drawnAt = undefined;
    const tick = (now: number) => {
      if (this.drawnAt !== undefined && now > this.drawnAt) {
        frames().intervals.push(now - this.drawnAt);
        this.drawnAt = undefined;
      }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  /** The gesture ended: keep watching a little, in case the next step of it follows. */
  end(): void {
    clearTimeout(this.settle);
    this.settle = setTimeout(() => this.stop(), SETTLE_MS);
  }

  stop(): void {
    clearTimeout(this.settle);
    this.settle = undefined;
    if (this.raf !== 0) cancelAnimationFrame(this.raf);
    this.raf = 0;
  }

  /** A redraw took `ms` in the animation frame of timestamp `frameTime`. */
  draw(ms: number, frameTime: number): void {
    if (this.raf !== 0) this.drawnAt = frameTime;
    frames().draws.push(ms);
  }
}
