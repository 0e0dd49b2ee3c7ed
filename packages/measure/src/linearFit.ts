/**
 * Latency and bandwidth of a link from measured transfers: least squares of time against bytes.
 * When every transfer had the same size the two cannot be told apart; the fit then says so and
 * keeps the one number the data supports, the time of that size.
 */
export interface LinkFit {
  /** Fixed cost per transfer, microseconds. */
  readonly latencyUs: number;
  /** GB/s (10⁹ bytes per second); Infinity when the sizes do not separate it from latency. */
  readonly bandwidthGBps: number;
  readonly samples: number;
  /** Whether the sizes varied enough to fit both. */
  readonly separable: boolean;
  /** The median transfer size, bytes. */
  readonly medianBytes: number;
}

export function fitLink(points: readonly { bytes: number; ms: number }[]): LinkFit | undefined {
  const n = points.length;
  if (n === 0) return undefined;
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += p.bytes;
    sy += p.ms;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.bytes - mx) ** 2;
    sxy += (p.bytes - mx) * (p.ms - my);
  }
  // Sizes within 5% of each other carry no slope worth fitting.
  const spread = Math.sqrt(sxx / n);
  if (n < 3 || spread <= 0.05 * mx) {
    const ms = median(points.map((p) => p.ms));
    return {
      latencyUs: ms * 1e3,
      bandwidthGBps: Number.POSITIVE_INFINITY,
      samples: n,
      separable: false,
      medianBytes: median(points.map((p) => p.bytes)),
    };
  }
  const slope = Math.max(sxy / sxx, 0); // ms per byte
  const intercept = Math.max(my - slope * mx, 0);
  return {
    latencyUs: intercept * 1e3,
    bandwidthGBps: slope > 0 ? 1e-6 / slope : Number.POSITIVE_INFINITY,
    samples: n,
    separable: true,
    medianBytes: median(points.map((p) => p.bytes)),
  };
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The q-th quantile (0..1) by linear interpolation. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
}
