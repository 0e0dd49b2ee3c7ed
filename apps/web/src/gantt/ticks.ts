import { scaleLinear } from 'd3-scale';
import { formatMs } from './label.ts';
import type { TimeView } from './view.ts';

/** Round-numbered time ticks across the visible window. */
export function axisTicks(view: TimeView, count = 8): { x: number; label: string }[] {
  const scale = scaleLinear().domain([view.t0, Math.max(view.t1, view.t0 + 1e-6)]);
  return scale.ticks(count).map((t) => ({ x: view.x(t), label: formatMs(t) }));
}
