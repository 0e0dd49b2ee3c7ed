import type { TimelineEvent } from '@stagecraft/sim';

/** The microbatch an op belongs to, as printed on it: `3`, or `3/5` for an overlapped pair. */
export function mbLabel(ev: TimelineEvent, memberTags?: Record<string, number | string>[]): string {
  if (memberTags && memberTags.length > 0) return memberTags.map(mbOf).join('/');
  return mbOf(ev.tags);
}

function mbOf(tags: Record<string, number | string>): string {
  const mb = tags.MB;
  if (mb === undefined) return '';
  // DualPipe's two directions both count microbatches from 0: mark the second one.
  return tags.DIR === 1 ? `${mb}′` : String(mb);
}

/** The pass of each member of an overlapped unit, from its id (`F.b0.mb3` → `F`). */
export function memberOp(id: string): string {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : id;
}

export function formatBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(n >= 10 * 2 ** 30 ? 1 : 2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} B`;
}

export function formatMs(ms: number): string {
  if (ms === 0) return '0 ms';
  if (Math.abs(ms) >= 100) return `${ms.toFixed(0)} ms`;
  if (Math.abs(ms) >= 1) return `${Number(ms.toFixed(2))} ms`;
  return `${Number((ms * 1000).toFixed(1))} µs`;
}
