import type { Directive, Filter } from '@stagecraft/ir';

export function filterText(f: Filter): string {
  const parts = Object.entries(f).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(' ') : 'all';
}

/** One line for the program list. */
export function directiveSummary(d: Directive): string {
  switch (d.op) {
    case 'schedule':
      return `${d.builder} · m=${d.microbatches}${d.ranks ? ` · p=${d.ranks}` : ''}${d.chunks ? ` · v=${d.chunks}` : ''}`;
    case 'split':
      return `${filterText(d.filter)} · ${d.dim_name}×${d.num_microbatches}`;
    case 'place':
    case 'replicate':
    case 'shard':
    case 'shard_tensor':
      return `${filterText(d.filter)} → [${d.devices.join(', ')}]`;
    case 'order':
      return `${d.filters.length} slots`;
    case 'stream':
      return d.name;
    default:
      return filterText(d.filter);
  }
}
