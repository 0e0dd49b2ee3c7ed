/**
 * Filter matching over compute nodes. A filter is resolved to block sets, pass slots and split
 * indices, then looked up in a dense table keyed by (block, pass, split indices), so the tens of
 * thousands of fully specified filters a schedule expands into cost one lookup each.
 */
import { CompileError, type Dag, type Filter, formatPath, type PathSegment } from '@stagecraft/ir';

const PASS_SLOTS = ['F', 'B', 'BI', 'BW', 'RECOMPUTE'] as const;
const SLOT_OF: Record<string, number> = { F: 0, B: 1, BI: 2, BW: 3, RECOMPUTE: 4 };

export class NodeIndex {
  private readonly table: Int32Array;
  private readonly radix: number[];
  private readonly blockTagValues = new Map<string, Set<number>>();
  private readonly blockSetCache = new Map<string, number[]>();
  private readonly dimIndex = new Map<string, number>();

  constructor(private readonly dag: Dag) {
    for (const b of dag.blocks) {
      for (const [k, v] of Object.entries(b.tags)) {
        let s = this.blockTagValues.get(k);
        if (!s) this.blockTagValues.set(k, (s = new Set()));
        s.add(v);
      }
    }
    dag.dims.forEach((d, i) => {
      this.dimIndex.set(d.name, i);
    });
    this.radix = dag.dims.map((d) => d.size + 1);
    const size = dag.blocks.length * PASS_SLOTS.length * this.radix.reduce((a, b) => a * b, 1);
    this.table = new Int32Array(size).fill(-1);
    dag.nodes.forEach((n, i) => {
      if (n.kind !== 'compute' || n.block < 0) return;
      const slot = SLOT_OF[n.op];
      if (slot === undefined) return;
      this.table[this.key(n.block, slot, n.dims)] = i;
    });
  }

  private key(block: number, slot: number, dims: readonly number[]): number {
    let k = block * PASS_SLOTS.length + slot;
    for (let i = 0; i < this.radix.length; i++) k = k * this.radix[i]! + ((dims[i] ?? -1) + 1);
    return k;
  }

  /** Node at exactly this block, pass and split indices, or -1. */
  at(block: number, pass: string, dims: readonly number[]): number {
    const slot = SLOT_OF[pass];
    return slot === undefined ? -1 : this.table[this.key(block, slot, dims)]!;
  }

  /** Tag names a filter may use here, for error messages. */
  knownTags(): string[] {
    return [...this.blockTagValues.keys(), ...this.dag.dims.map((d) => d.name), 'PASS'];
  }

  /**
   * Compute nodes matching `filter`, in table order. Throws a CompileError naming `path` (the
   * filter's place in the document) when the filter names a tag or index that does not exist.
   */
  match(filter: Filter, path: readonly PathSegment[]): number[] {
    const blockPart: [string, number | '*'][] = [];
    const dimChoice: (number | null)[] = this.dag.dims.map(() => null);
    let slots: readonly number[] = [0, 1, 2, 3, 4];
    for (const [k, v] of Object.entries(filter)) {
      if (k === 'PASS') {
        if (v !== '*') slots = [SLOT_OF[v as string]!];
        continue;
      }
      const di = this.dimIndex.get(k);
      if (di !== undefined) {
        if (v === '*') continue;
        const size = this.dag.dims[di]!.size;
        if (typeof v !== 'number' || v >= size) {
          throw new CompileError({
            path: formatPath([...path, k]),
            message: `${k} has ${size} ${size === 1 ? 'index' : 'indices'} (0..${size - 1}), not ${v}`,
          });
        }
        dimChoice[di] = v;
        continue;
      }
      const values = this.blockTagValues.get(k);
      if (!values) {
        throw new CompileError({
          path: formatPath([...path, k]),
          message: `no block has tag ${k} (tags here: ${this.knownTags().join(', ')})`,
        });
      }
      if (v !== '*' && !values.has(v as number)) {
        const sorted = [...values].sort((a, b) => a - b);
        throw new CompileError({
          path: formatPath([...path, k]),
          message: `no block has tag ${k}=${v} (${k} takes ${rangeText(sorted)})`,
        });
      }
      blockPart.push([k, v as number | '*']);
    }
    const blocks = this.blocksMatching(blockPart);
    const out: number[] = [];
    const choices = dimChoice.map((c, i) =>
      c === null ? Array.from({ length: this.radix[i]! }, (_, j) => j - 1) : [c],
    );
    const dims = new Array<number>(choices.length).fill(-1);
    const visit = (block: number, slot: number, level: number): void => {
      if (level === choices.length) {
        const n = this.table[this.key(block, slot, dims)]!;
        if (n >= 0) out.push(n);
        return;
      }
      for (const c of choices[level]!) {
        dims[level] = c;
        visit(block, slot, level + 1);
      }
    };
    for (const b of blocks) for (const s of slots) visit(b, s, 0);
    return out;
  }

  private blocksMatching(part: [string, number | '*'][]): number[] {
    const key = JSON.stringify(part);
    let hit = this.blockSetCache.get(key);
    if (!hit) {
      hit = [];
      this.dag.blocks.forEach((b, i) => {
        if (part.every(([k, v]) => (v === '*' ? k in b.tags : b.tags[k] === v))) hit!.push(i);
      });
      this.blockSetCache.set(key, hit);
    }
    return hit;
  }
}

function rangeText(sorted: number[]): string {
  const first = sorted[0]!;
  const last = sorted[sorted.length - 1]!;
  return last - first + 1 === sorted.length && sorted.length > 2 ? `${first}..${last}` : sorted.join(', ');
}
