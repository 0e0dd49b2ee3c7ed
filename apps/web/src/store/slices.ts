/**
 * The app's state in slices: `design` (the document: undoable, saved), `result` (the last
 * compile/simulate), `selection`, `view` (never saved), `compare` pins and `history`, and the
 * commands that change them. React Flow nodes and Gantt bars are derived from these, never the
 * source of truth. Each slice starts from its own initial value below.
 */
import type { Dag, Design, Directive, Issue, Plan } from '@stagecraft/ir';
import type { Action, Confirmation } from '../core/action.ts';
import type { ComputeOk } from '../core/computeDesign.ts';
import type { DagGraph, GraphNodeData } from '../core/dagGraph.ts';
import type { DropTarget } from '../core/dropTarget.ts';
import { emptyHistory, type History } from '../core/history.ts';
import type { Pin as CorePin, PinBoard, PinsAction } from '../core/pins.ts';
import type { TimelinePlan } from '../gantt/timelinePlan.ts';

/**
 * A result as the page holds it: its plan as an outline (or whole, in a pin), its DAG and whole
 * plan arriving separately (see PostedResult).
 */
export type ResultView = Omit<ComputeOk, 'dag' | 'graph' | 'plan'> & { plan: TimelinePlan };

export interface DesignSlice {
  design: Design;
  /** Bumped on every change of the design; results carry the revision they were computed for. */
  revision: number;
  designId: string | null;
  /**
   * Bumped when another document opens (a saved design, a version, an example): a save still in
   * flight for the document before it must not mark this one saved or dirty.
   */
  document: number;
  savedVersion: number | null;
  /** `invalid`: held back, the design schema refuses the design (the API would answer 400). */
  saveStatus: 'clean' | 'dirty' | 'saving' | 'saved' | 'error' | 'offline' | 'invalid';
  saveMessage: string;
}

export interface ResultSlice {
  /** The last valid result: it stays on screen while the design has errors. */
  result: ResultView | null;
  resultRevision: number;
  /** The final DAG laid out for the canvas (it follows its result). */
  graph: DagGraph | null;
  /**
   * The result revision `graph` lays out: it arrives after its result, so until it equals
   * `resultRevision` the canvas still shows the previous result's DAG.
   */
  graphRevision: number;
  /** The final DAG of the result of `dagRevision`: for timeline moves and hover details. */
  dag: Dag | null;
  /** The whole plan of the result of `dagRevision`: for timeline moves and op details. */
  plan: Plan | null;
  dagRevision: number;
  /** Errors of the latest revision (empty when it compiled). */
  errors: Issue[];
  /**
   * The directives the user edited since the design last compiled, by identity: the errors they
   * caused elsewhere are shown at them too (core/errorCause.ts).
   */
  suspects: Directive[];
  status: 'computing' | 'ok' | 'error';
  /** Edit to result, in ms (worker round trip included). */
  lastLatencyMs: number;
  /** Of which the worker's compile + simulate + layout. */
  lastWorkerMs: number;
}

export interface SelectionSlice {
  selectedDirective: number | null;
  hovered: GraphNodeData | null;
  /** The DAG node or timeline op last clicked: a palette item clicked (not dragged) applies to it. */
  target: DropTarget | null;
}

export type Tab = 'design' | 'compare' | 'planner';
export interface ViewSlice {
  tab: Tab;
  expandedStages: string[];
  /** Pass inspector: the DAG after this pass instead of the final one. */
  passView: { pass: string; graph: DagGraph | null } | null;
  /**
   * A refused action's reason (error), a passing word (info), or what an edit changed beyond what
   * was asked (warning: it stays until dismissed or the next edit, so it is not missed).
   */
  notice: { kind: NoticeKind; text: string } | null;
  /** A question an action asked before going ahead; `go` performs it confirmed (with the choice made). */
  confirm: { question: Confirmation; go: (choice?: string) => void } | null;
}

export type NoticeKind = 'error' | 'info' | 'warning';

export type Pin = CorePin<ResultView>;
export type CompareSlice = PinBoard<ResultView>;

export interface HistorySlice {
  history: History;
}

export interface Commands {
  /** Performs an action; one that asks first waits in `confirm` for `answer`. */
  dispatch<A extends object>(action: Action<A>, args: A): boolean;
  /** The user's answer to the question in `confirm`: yes with one of its `choices`, if it has them. */
  answer(yes: boolean, choice?: string): void;
  /** Puts back a design from the history (undo and redo are actions: core/actions.ts). */
  restore(design: Design, history: History): void;
  select(index: number | null): void;
  hover(node: GraphNodeData | null): void;
  setTarget(target: DropTarget | null): void;
  setTab(tab: Tab): void;
  toggleStage(key: string): void;
  setExpandedStages(keys: string[]): void;
  inspectPass(pass: string | null): void;
  /** Pins the current result for comparison, or says why it cannot be (a notice). */
  pin(name?: string): void;
  /** Performs an action on the pins; a refused one leaves its reason as a notice. */
  dispatchPins<A>(action: PinsAction<A>, args: A): boolean;
  /**
   * The result's DAG and whole plan are needed (an op hovered, selected or about to be moved, a
   * pin): a big result asks the worker for them now (see LAZY_COMPILED_OPS).
   */
  wantCompiled(): void;
  notify(kind: NoticeKind, text: string): void;
  setSave(p: Partial<Pick<DesignSlice, 'designId' | 'savedVersion' | 'saveStatus' | 'saveMessage'>>): void;
}

export type State = DesignSlice &
  ResultSlice &
  SelectionSlice &
  ViewSlice &
  CompareSlice &
  HistorySlice &
  Commands;

/** The errors of a design that compiled: one array, so panels reading `errors` keep their render. */
export const NO_ERRORS: Issue[] = [];

export function initialDesign(design: Design): DesignSlice {
  return {
    design,
    revision: 0,
    document: 0,
    designId: null,
    savedVersion: null,
    saveStatus: 'clean',
    saveMessage: '',
  };
}

export const INITIAL_RESULT: ResultSlice = {
  result: null,
  resultRevision: -1,
  graph: null,
  graphRevision: -1,
  dag: null,
  plan: null,
  dagRevision: -1,
  errors: NO_ERRORS,
  suspects: [],
  status: 'computing',
  lastLatencyMs: 0,
  lastWorkerMs: 0,
};

export const INITIAL_SELECTION: SelectionSlice = { selectedDirective: null, hovered: null, target: null };

export const INITIAL_VIEW: ViewSlice = {
  tab: 'design',
  expandedStages: [],
  passView: null,
  notice: null,
  confirm: null,
};

export const INITIAL_COMPARE: CompareSlice = { pins: [], baseline: null, pinCount: 0 };

export const INITIAL_HISTORY: HistorySlice = { history: emptyHistory };
