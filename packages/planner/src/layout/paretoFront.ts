/**
 * The Pareto front of step time against peak memory: the points no other point beats on both.
 * Only the front's points are kept, so a long search holds as many designs as the front has.
 */
export interface FrontPoint {
  stepMs: number;
  peakMemoryBytes: number;
}

export class ParetoFront<P extends FrontPoint> {
  private points: P[] = [];

  /** Adds `p` unless a point dominates it, dropping the points it dominates; whether it was added. */
  offer(p: P): boolean {
    if (this.dominated(p.stepMs, p.peakMemoryBytes)) return false;
    this.points = this.points.filter(
      (q) => !(p.stepMs <= q.stepMs && p.peakMemoryBytes <= q.peakMemoryBytes),
    );
    this.points.push(p);
    this.points.sort((a, b) => a.stepMs - b.stepMs || a.peakMemoryBytes - b.peakMemoryBytes);
    return true;
  }

  /** Whether a point at least this slow and this large could not join the front. */
  dominated(stepMs: number, peakMemoryBytes: number): boolean {
    return this.points.some((q) => q.stepMs <= stepMs && q.peakMemoryBytes <= peakMemoryBytes);
  }

  /** By step time, fastest first. */
  list(): P[] {
    return [...this.points];
  }

  get size(): number {
    return this.points.length;
  }
}
