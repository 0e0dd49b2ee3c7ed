/** Directives in a line of words: the program list, and notices naming what an edit changed. */
import { type Directive, type Filter, type MeshSpec, meshDevices } from '@stagecraft/ir';

export function filterText(f: Filter): string {
  const parts = Object.entries(f).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(' ') : 'all';
}

/** A mesh in a few words: its axes and sizes, e.g. `dp×tp mesh 2×8 from 16`. */
function meshText(m: MeshSpec): string {
  const r = meshDevices(m);
  if (!r.ok) return `${m.axes.join('×')} mesh`;
  return `${m.axes.join('×')} mesh ${r.mesh.shape.join('×')} from ${Math.min(...r.devices)}`;
}

/** One line for the program list (without the op). */
export function directiveSummary(d: Directive): string {
  switch (d.op) {
    case 'schedule':
      return `${d.builder} · m=${d.microbatches}${d.ranks ? ` · p=${d.ranks}` : ''}${d.chunks ? ` · v=${d.chunks}` : ''}`;
    case 'split':
      return `${filterText(d.filter)} · ${d.dim_name}×${d.num_microbatches}`;
    case 'place':
      return `${filterText(d.filter)} → ${d.mesh ? meshText(d.mesh) : `[${d.devices?.join(', ') ?? ''}]`}`;
    case 'replicate':
    case 'shard':
    case 'shard_tensor':
    case 'shard_sequence':
      return d.axis !== undefined
        ? `${filterText(d.filter)} over ${[d.axis].flat().join(' × ')}`
        : `${filterText(d.filter)} → [${d.devices?.join(', ') ?? ''}]`;
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
