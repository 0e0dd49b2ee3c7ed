/** Numbers as the panels print them. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/**
 * A whole number with a comma between thousands, as en-US writes it. Not `toLocaleString`: its
 * first call in a page loads ICU's number formats, 26 ms of CPU in Node 22 and 57–66 ms of the
 * designer's first render of a result in traces at load 8–19 (`bench/web-frames.ts --trace on`,
 * the self time of Metrics, which printed the op count).
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const digits = BigInt(Math.round(Math.abs(n))).toString();
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 && out !== '0' ? `-${out}` : out;
}

export function formatPercent(r: number): string {
  return Number.isFinite(r) ? `${(r * 100).toFixed(1)}%` : '—';
}

export function formatBytes(b: number): string {
  if (!Number.isFinite(b)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v >= 100 || u === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

export function formatRate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M/s`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)} k/s`;
  return `${perSecond.toFixed(0)} /s`;
}

export function formatTags(tags: Readonly<Record<string, number | string>>): string {
  return Object.entries(tags)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
