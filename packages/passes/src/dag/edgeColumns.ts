/**
 * A mutable copy of a DAG's edge columns that a pass edits (retargets, appends to) and returns
 * as the new EdgeList. The columns double when full, so read them through `from` and `to` after
 * a push.
 */
import { EDGE_DATA, type EdgeKind, type EdgeList, firstEdges } from '@stagecraft/ir';
import { grown } from './edgeAppend.ts';

export class EdgeColumns {
  private cols: EdgeList;
  private count: number;
  constructor(e: EdgeList) {
    this.count = e.from.length;
    this.cols = grown(e, Math.max(16, Math.ceil(this.count * 1.25)));
  }
  get from(): Int32Array {
    return this.cols.from;
  }
  get to(): Int32Array {
    return this.cols.to;
  }
  get bytes(): Float64Array {
    return this.cols.bytes;
  }
  push(u: number, v: number, bytes = 0, kind: EdgeKind = EDGE_DATA): void {
    if (this.count === this.cols.from.length) this.cols = grown(this.cols, 2 * this.count);
    const i = this.count++;
    this.cols.from[i] = u;
    this.cols.to[i] = v;
    this.cols.kind[i] = kind;
    this.cols.bytes[i] = bytes;
  }
  /** Points edge j at a new target (the edge now ends at `v`). */
  retarget(j: number, v: number): void {
    this.cols.to[j] = v;
  }
  list(): EdgeList {
    return firstEdges(this.cols, this.count);
  }
}
