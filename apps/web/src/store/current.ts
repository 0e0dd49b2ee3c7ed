/**
 * Whether what the store holds belongs to the design as it is now. A result is computed for one
 * revision and stays on screen while newer revisions compute or fail; its DAG and whole plan arrive
 * after it. An edit that reads a result (a schedule's expansion, a timeline move, a pin) must only
 * trust one of the design it edits, so every reader asks here and "current" means one thing.
 */
import type { Dag, Plan } from '@stagecraft/ir';
import type { DesignSlice, ResultSlice, ResultView } from './slices.ts';

type Revisions = Pick<DesignSlice, 'revision'> & Pick<ResultSlice, 'result' | 'resultRevision'>;

/** The result when it was computed from the current design, else null (pending, or the design has errors). */
export function currentResult(s: Revisions): ResultView | null {
  return s.result && s.resultRevision === s.revision ? s.result : null;
}

/**
 * The final DAG and whole plan of the result on screen, once they have arrived (they come in one
 * reply, after the result's outline); null before, or while they still belong to an older result.
 */
export function compiledOfResult(
  s: Pick<ResultSlice, 'dag' | 'plan' | 'dagRevision' | 'resultRevision'>,
): { dag: Dag; plan: Plan } | null {
  return s.dag && s.plan && s.dagRevision === s.resultRevision ? { dag: s.dag, plan: s.plan } : null;
}
