import { describe, expect, it } from 'vitest';
import { stepVertices } from './scene.ts';
import { timeView } from './view.ts';

describe('memory curve on canvas', () => {
  const view = timeView(1000, 1088, 88, { k: 1, x: 0 });
  const yOf = (bytes: number) => 100 - bytes;

  it('keeps at most four vertices per pixel column however many allocations fall into it', () => {
    // 10,000 steps over 1,000 ms on a 992-pixel plot: about ten per column.
    const points: [number, number][] = Array.from({ length: 10_000 }, (_, i) => [i / 10, i % 50]);
    const v = stepVertices(points, view, yOf, 1000);
    const columns = new Map<number, number>();
    // The last vertex closes the curve at the end of the step.
    for (const [x] of v.slice(0, -1)) columns.set(x, (columns.get(x) ?? 0) + 1);
    expect(Math.max(...columns.values())).toBeLessThanOrEqual(4);
    expect(v.length).toBeLessThan(4 * 1000);
    // Highs and lows survive: the curve still spans the full range of values.
    const ys = v.map(([, y]) => y);
    expect(Math.min(...ys)).toBe(yOf(49));
    expect(Math.max(...ys)).toBe(yOf(0));
    // The curve ends at the end of the step at the last value.
    expect(v.at(-1)).toEqual([view.x(1000), yOf(9_999 % 50)]);
  });

  it('draws a plain step function when the points are far apart', () => {
    const v = stepVertices(
      [
        [0, 10],
        [500, 30],
      ],
      view,
      yOf,
      1000,
    );
    expect(v).toEqual([
      [view.x(0), yOf(10)],
      [view.x(0), yOf(10)],
      [view.x(500), yOf(10)],
      [view.x(500), yOf(30)],
      [view.x(1000), yOf(30)],
    ]);
  });
});
