/** Milliseconds from a monotonic clock, on any platform the packages run on (Node, browser, worker). */
export function now(): number {
  return (globalThis as unknown as { performance: { now(): number } }).performance.now();
}
