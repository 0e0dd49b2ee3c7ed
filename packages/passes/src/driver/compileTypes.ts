/** What a compile takes and answers, apart from the driver so formats can name it without the passes. */
import type { Dag, Directive, Issue, PathSegment, Plan } from '@stagecraft/ir';

export interface CompileOptions {
  /** Refuse designs whose DAG would exceed this many ops (default 2,000,000). */
  maxOps?: number;
  /** Keep the DAG after every pass (default true; the snapshots share unchanged nodes). */
  keepSnapshots?: boolean;
}

/** A directive of the program after macro expansion, with where it came from in the document. */
export interface ExpandedDirective {
  directive: Directive;
  /** Index of the user's directive it is or came from. */
  source: number;
  /** Path of this directive in the document, e.g. ['directives', 0, 'expansion', 5]. */
  path: PathSegment[];
}

/** What a pass did to the DAG, by node id (changed: the fields of the node of that id differ). */
export interface NodeDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

export interface PassSnapshot {
  pass: string;
  ms: number;
  /** DAG after the pass (absent for passes that do not change the DAG, or with keepSnapshots off). */
  dag?: Dag;
  /** With `dag`: the nodes the pass added, removed or changed (passDiff.ts), read on demand. */
  readonly diff?: NodeDiff;
}

export type CompileResult =
  | {
      ok: true;
      plan: Plan;
      dag: Dag;
      program: ExpandedDirective[];
      snapshots: PassSnapshot[];
      /** Instructions in the plan (each overlap member counted). */
      ops: number;
      compileMs: number;
    }
  | { ok: false; errors: Issue[]; snapshots: PassSnapshot[] };
