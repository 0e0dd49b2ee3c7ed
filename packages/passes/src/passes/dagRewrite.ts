/**
 * Where a pass that adds nodes and edges for its directives starts (shard, shard_tensor,
 * recompute, offload): the program's directives of its kind and, when there are any, the DAG's
 * node table, the rows and edges it will append, and the DAG's adjacency. The adjacency is built
 * on first read, as not every such pass walks it.
 */
import type { Dag, DirectiveOp, NodeTable } from '@stagecraft/ir';
import { tableOf } from '@stagecraft/ir';
import { type Adjacency, inEdges, outEdges } from '../dag/adjacency.ts';
import { EdgeColumns } from '../dag/edgeColumns.ts';
import { RowAppend } from '../dag/rowAppend.ts';
import type { PassContext } from '../driver/pass.ts';
import { directivesOf } from '../program/program.ts';

export class DagRewrite<K extends DirectiveOp> {
  readonly t: NodeTable;
  readonly rows: RowAppend;
  readonly edges: EdgeColumns;
  private incoming: Adjacency | undefined;
  private outgoing: Adjacency | undefined;

  private constructor(
    private readonly dag: Dag,
    pass: string,
    readonly directives: ReturnType<typeof directivesOf<K>>,
  ) {
    this.t = tableOf(dag);
    this.rows = new RowAppend(this.t, pass);
    this.edges = new EdgeColumns(dag.edges);
  }

  /** The rewrite of `dag` by pass `pass` for the program's `op` directives; undefined when it has none. */
  static of<K extends DirectiveOp>(
    dag: Dag,
    ctx: PassContext,
    op: K,
    pass: string,
  ): DagRewrite<K> | undefined {
    const directives = directivesOf(ctx.program, op);
    return directives.length === 0 ? undefined : new DagRewrite(dag, pass, directives);
  }

  /** Each node's incoming edges, of the DAG as it came in. */
  get inc(): Adjacency {
    this.incoming ??= inEdges(this.t.length, this.dag.edges);
    return this.incoming;
  }

  /** Each node's outgoing edges, of the DAG as it came in. */
  get out(): Adjacency {
    this.outgoing ??= outEdges(this.t.length, this.dag.edges);
    return this.outgoing;
  }
}
