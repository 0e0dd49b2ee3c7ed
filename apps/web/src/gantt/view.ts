import type { ZoomTransform } from 'd3-zoom';

/** The horizontal view of a timeline: which time is at which pixel, and which times are visible. */
export interface TimeView {
  /** Pixel of a time. */
  x(t: number): number;
  /** Time of a pixel. */
  t(x: number): number;
  /** Visible time window (the part right of the gutter). */
  t0: number;
  t1: number;
  width: number;
  /** End of the time axis. */
  domainMs: number;
}

/** Right margin of the plot, so the last op does not touch the edge. */
export const RIGHT_MARGIN = 8;

/**
 * The base scale puts [0, domain] on the plot between the gutter and the right margin; the zoom
 * transform then acts on those pixels as d3-zoom defines it (x·k + tx), so wheel zoom stays
 * anchored under the pointer.
 */
export function timeView(
  domainMs: number,
  width: number,
  gutter: number,
  transform: Pick<ZoomTransform, 'k' | 'x'>,
): TimeView {
  const span = Math.max(1, width - gutter - RIGHT_MARGIN);
  const d = domainMs > 0 ? domainMs : 1;
  const { k, x: tx } = transform;
  const px = (t: number) => (gutter + (t / d) * span) * k + tx;
  const tm = (x: number) => (((x - tx) / k - gutter) / span) * d;
  return { x: px, t: tm, t0: Math.max(0, tm(gutter)), t1: Math.min(d, tm(width)), width, domainMs: d };
}

/** Keep the plot filled: no panning left of time 0 or right of the domain's end. */
export function clampTranslate(k: number, tx: number, width: number, gutter: number): number {
  const span = Math.max(1, width - gutter - RIGHT_MARGIN);
  const max = gutter * (1 - k);
  const min = (gutter + span) * (1 - k);
  return Math.min(max, Math.max(min, tx));
}
