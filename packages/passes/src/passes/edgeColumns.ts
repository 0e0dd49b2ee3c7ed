/** Mutable copies of a DAG's edge columns that a pass appends to, returned as the new EdgeList. */
import { EDGE_DATA, type EdgeKind, type EdgeList } from '@stagecraft/ir';

export class EdgeColumns {
  readonly from: number[];
  readonly to: number[];
  readonly kind: EdgeKind[];
  readonly bytes: number[];
  constructor(e: EdgeList) {
    this.from = e.from.slice();
    this.to = e.to.slice();
    this.kind = e.kind.slice();
    this.bytes = e.bytes.slice();
  }
  push(u: number, v: number, bytes = 0, kind: EdgeKind = EDGE_DATA): void {
    this.from.push(u);
    this.to.push(v);
    this.kind.push(kind);
    this.bytes.push(bytes);
  }
  /** Points edge j at a new target (the edge now ends at `v`). */
  retarget(j: number, v: number): void {
    this.to[j] = v;
  }
  list(): EdgeList {
    return { from: this.from, to: this.to, kind: this.kind, bytes: this.bytes };
  }
}
