/**
 * What a pass did to the DAG, by node id: the nodes it added, removed, or changed (a node whose
 * fields differ from the one of the same id before it). Recorded once, on the pass's snapshot,
 * for every reader (the API's pass list, the web's pass inspector). Worked out on first read:
 * a compile that keeps snapshots but never shows them pays nothing.
 */
import type { Dag, DagNode } from '@stagecraft/ir';
import type { NodeDiff, PassSnapshot } from './compileTypes.ts';

/**
 * The snapshot of a pass that turned `before` (none: the first DAG) into `after`. Its diff is a
 * getter and the DAG before a private field: a copy or a comparison of the snapshot sees the
 * fields every snapshot has.
 */
export class ChangedSnapshot implements PassSnapshot {
  readonly #before: Dag | undefined;
  #diff: NodeDiff | undefined;

  constructor(
    readonly pass: string,
    readonly ms: number,
    before: Dag | undefined,
    readonly dag: Dag,
  ) {
    this.#before = before;
  }

  get diff(): NodeDiff {
    this.#diff ??= nodeDiff(this.#before, this.dag);
    return this.#diff;
  }
}

export function nodeDiff(prev: Dag | undefined, next: Dag): NodeDiff {
  const added: string[] = [];
  const changed: string[] = [];
  if (!prev) return { added: next.nodes.map((n) => n.id), removed: [], changed };
  const p = prev.nodes;
  const q = next.nodes;
  // Passes keep the order of the nodes they do not add or drop: walk both lists side by side
  // while the ids line up (node ids are unique in a DAG), the general case only past that point.
  const m = Math.min(p.length, q.length);
  let i = 0;
  for (; i < m; i++) {
    const a = p[i]!;
    const b = q[i]!;
    if (a === b) continue;
    if (a.id !== b.id) break;
    if (!sameFields(a, b)) changed.push(b.id);
  }
  if (i === m) {
    for (let j = m; j < q.length; j++) added.push(q[j]!.id);
    return { added, removed: p.slice(m).map((n) => n.id), changed };
  }
  const before = new Map<string, DagNode>();
  for (let j = i; j < p.length; j++) before.set(p[j]!.id, p[j]!);
  const seen = new Set<string>();
  for (let j = i; j < q.length; j++) {
    const n = q[j]!;
    seen.add(n.id);
    const old = before.get(n.id);
    if (old === undefined) added.push(n.id);
    // Passes share the nodes they do not rewrite, so an unchanged reference is an unchanged node.
    else if (old !== n && !sameFields(old, n)) changed.push(n.id);
  }
  const removed: string[] = [];
  for (let j = i; j < p.length; j++) if (!seen.has(p[j]!.id)) removed.push(p[j]!.id);
  return { added, removed, changed };
}

/** Nodes are flat records of scalars, small arrays (dims) and small records (provenance). */
function sameFields(a: object, b: object): boolean {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  for (const k of keys) {
    const x = ra[k];
    const y = rb[k];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const j of kx) {
      if ((x as Record<string, unknown>)[j] !== (y as Record<string, unknown>)[j]) return false;
    }
  }
  return true;
}
