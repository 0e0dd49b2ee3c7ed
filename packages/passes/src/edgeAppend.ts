/**
 * Edges (and nodes) a pass adds after the existing ones. They are collected apart and joined to
 * the old columns with one exact-size copy each at the end, instead of copying the columns and
 * growing them by pushes: large designs have hundreds of thousands of edges, and every regrown
 * column is a large allocation the garbage collector pays for.
 */
import type { DagNode, EdgeKind, EdgeList } from '@stagecraft/ir';

export class EdgeAppend {
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private readonly kind: EdgeKind[] = [];
  private readonly bytes: number[] = [];

  add(u: number, v: number, kind: EdgeKind, bytes: number): void {
    this.from.push(u);
    this.to.push(v);
    this.kind.push(kind);
    this.bytes.push(bytes);
  }

  /** The old edges followed by the added ones (the old columns themselves when none were added). */
  onto(edges: EdgeList): EdgeList {
    if (this.from.length === 0) return edges;
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
