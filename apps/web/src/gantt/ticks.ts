import { scaleLinear } from 'd3-scale';
import { formatMs } from './label.ts';
import type { TimeView } from './view.ts';

/** Round-numbered time ticks across the visible window. */
export function axisTicks(
  view: TimeView,
  count = 8,
  t0 = view.t0,
  t1 = view.t1,
): { x: number; label: string }[] {
  // Tick spacing follows the visible window; [t0, t1] may extend beyond it (SVG pan margin).
  const step = scaleLinear()
    .domain([view.t0, Math.max(view.t1, view.t0 + 1e-6)])
    .ticks(count);
  const d = step.length > 1 ? step[1]! - step[0]! : Math.max(1e-6, view.t1 - view.t0);
  const out: { x: number; label: string }[] = [];
  const first = Math.max(0, Math.ceil(t0 / d));
  for (let i = first; i * d <= t1 + 1e-9 && out.length < 400; i++) {
    const t = Number((i * d).toPrecision(12));
    out.push({ x: view.x(t), label: formatMs(t) });
  }
  return out;
}
