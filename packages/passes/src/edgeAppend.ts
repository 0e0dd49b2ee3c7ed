/**
 * Edges (and nodes) a pass adds after the existing ones. They are collected apart and joined to
 * the old columns with one exact-size copy each at the end, instead of copying the columns and
 * growing them by pushes: large designs have hundreds of thousands of edges, and every regrown
 * column is a large allocation the garbage collector pays for.
 */
import type { DagNode, EdgeKind, EdgeList } from '@stagecraft/ir';

export class EdgeAppend {
  private readonly from: number[];
  private readonly to: number[];
  private readonly kind: EdgeKind[];
  private readonly bytes: number[];
  private count = 0;

  /** `expected`: about how many edges will be added, so the columns are allocated once. */
  constructor(expected = 0) {
    this.from = new Array(expected);
    this.to = new Array(expected);
    this.kind = new Array(expected);
    this.bytes = new Array(expected);
  }

  add(u: number, v: number, kind: EdgeKind, bytes: number): void {
    const i = this.count++;
    this.from[i] = u;
    this.to[i] = v;
    this.kind[i] = kind;
    this.bytes[i] = bytes;
  }

  /** The old edges followed by the added ones (the old columns themselves when none were added). */
  onto(edges: EdgeList): EdgeList {
    if (this.count === 0) return edges;
    // Fewer edges than expected leave room at the end: cut it before joining.
    this.from.length = this.to.length = this.kind.length = this.bytes.length = this.count;
    return {
      from: edges.from.concat(this.from),
      to: edges.to.concat(this.to),
      kind: edges.kind.concat(this.kind),
      bytes: edges.bytes.concat(this.bytes),
    };
  }
}

/** The old nodes followed by `added` (the old array itself when nothing was added). */
export function withNodes(nodes: readonly DagNode[], added: readonly DagNode[]): readonly DagNode[] {
  return added.length === 0 ? nodes : nodes.concat(added);
}
