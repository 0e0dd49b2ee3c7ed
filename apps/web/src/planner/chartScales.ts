/**
 * The planner's two charts (the front, the sweep) share one frame: d3 linear scales over the data
 * with a margin for the axes, and round-numbered ticks on both.
 */
import { extent } from 'd3-array';
import { type ScaleLinear, scaleLinear } from 'd3-scale';

export interface ChartFrame {
  width: number;
  height: number;
  x: ScaleLinear<number, number>;
  y: ScaleLinear<number, number>;
  xTicks: number[];
  yTicks: number[];
}

/** Room for the tick labels: left for the y axis's, below for the x axis's and its title. */
export const MARGIN = { left: 64, right: 16, top: 12, bottom: 40 };

/** Room beyond the extreme values, as a fraction of their span, so no mark sits on an axis. */
const PAD = 0.05;

/** One value alone still gets an axis: a span around it. */
function spanOf(values: readonly number[], zero: boolean): [number, number] {
  const [lo = 0, hi = 1] = extent(values) as [number | undefined, number | undefined];
  const low = zero ? Math.min(0, lo) : lo;
  if (hi <= low) return [low - Math.max(1, Math.abs(low) * 0.1), hi + Math.max(1, Math.abs(hi) * 0.1)];
  const pad = (hi - low) * PAD;
  return [zero && low === 0 ? 0 : low - pad, hi + pad];
}

export function chartFrame(
  xs: readonly number[],
  ys: readonly number[],
  width: number,
  height: number,
  options: { yFromZero?: boolean } = {},
): ChartFrame {
  const x = scaleLinear()
    .domain(spanOf(xs, false))
    .nice()
    .range([MARGIN.left, width - MARGIN.right]);
  const y = scaleLinear()
    .domain(spanOf(ys, options.yFromZero ?? false))
    .nice()
    .range([height - MARGIN.bottom, MARGIN.top]);
  return { width, height, x, y, xTicks: x.ticks(6), yTicks: y.ticks(5) };
}
