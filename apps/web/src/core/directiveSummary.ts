/** Directives in a line of words: the program list, and notices naming what an edit changed. */
import type { Directive, Filter } from '@stagecraft/ir';

export function filterText(f: Filter): string {
  const parts = Object.entries(f).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(' ') : 'all';
}

/** One line for the program list (without the op). */
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

/** The op and its summary, as a notice names a directive. */
export function directiveText(d: Directive): string {
  return `${d.op} ${directiveSummary(d)}`;
}
