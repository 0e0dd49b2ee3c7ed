/**
 * The app's state in zustand slices: `design` (the document: undoable, saved), `result` (the last
 * compile/simulate), `selection`, `view` (never saved), `compare` pins and `history`. React Flow
 * nodes and Gantt bars are derived from these, never the source of truth.
 */
import type { Dag, Design, Directive, Issue, Plan } from '@stagecraft/ir';
import { create, type StateCreator } from 'zustand';
import type { Action, Confirmable, Confirmation } from '../core/action.ts';
import type { ComputeOk } from '../core/computeDesign.ts';

/**
 * A result as the page holds it: its plan as an outline (or whole, in a pin), its DAG and whole
 * plan arriving separately (see PostedResult).
 */
export type ResultView = Omit<ComputeOk, 'dag' | 'graph' | 'plan'> & { plan: TimelinePlan };

import type { DagGraph, GraphNodeData } from '../core/dagGraph.ts';
import type { DropTarget } from '../core/dropTarget.ts';
import { touchedDirective } from '../core/errorCause.ts';
import { unpackGraph } from '../core/graphWire.ts';
import { emptyHistory, type History, record } from '../core/history.ts';
import { unpackEvents } from '../core/timelineWire.ts';
import { whenTimelinesLaidOut } from '../gantt/slicedLayout.ts';
import type { TimelinePlan } from '../gantt/timelinePlan.ts';
import type { WorkerReply } from '../workerProtocol.ts';
import { compiledOfResult, currentResult } from './current.ts';
import { connectMeasured, receiveMeasured, remeasure } from './measured.ts';
import { Recompute } from './recompute.ts';
import { TimelineParts } from './timelineParts.ts';

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

export type Tab = 'design' | 'compare';
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

export interface Pin {
  id: string;
  name: string;
  design: Design;
  result: ResultView;
}
export interface CompareSlice {
  pins: Pin[];
  /** The pin the others are compared against (its id); the first pin when null or unpinned. */
  baseline: string | null;
}

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
  pin(name?: string): void;
  unpin(index: number): void;
  /** Renames a pin; an empty name is refused with a notice. */
  renamePin(id: string, name: string): void;
  setBaseline(id: string): void;
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

export const MAX_PINS = 4;

/**
 * Above this many ops a result's DAG and whole plan are only fetched from the worker when needed:
 * their structured clone and the garbage after it cost DeepSeek-V3's page 0.1–0.4 s in one task
 * after every edit, for op details the user may never open. Smaller results fetch them at once.
 */
export const LAZY_COMPILED_OPS = 25_000;

/** The revision whose DAG and whole plan were last asked for. */
let compiledAskedFor = -1;

/** Edits remembered as suspects while the design does not compile: the latest ones. */
const MAX_SUSPECTS = 20;

/** The errors of a design that compiled: one array, so panels reading `errors` keep their render. */
const NO_ERRORS: Issue[] = [];

let recompute: Pick<Recompute, 'send'> | undefined;
const timelineParts = new TimelineParts();
let editStartedAt = 0;
let pinCounter = 0;

const createDesignSlice =
  (initial: Design): StateCreator<State, [], [], DesignSlice> =>
  () => ({
    design: initial,
    revision: 0,
    document: 0,
    designId: null,
    savedVersion: null,
    saveStatus: 'clean',
    saveMessage: '',
  });

const createResultSlice: StateCreator<State, [], [], ResultSlice> = () => ({
  result: null,
  resultRevision: -1,
  graph: null,
  dag: null,
  plan: null,
  dagRevision: -1,
  errors: NO_ERRORS,
  suspects: [],
  status: 'computing',
  lastLatencyMs: 0,
  lastWorkerMs: 0,
});

const createSelectionSlice: StateCreator<State, [], [], SelectionSlice> = () => ({
  selectedDirective: null,
  hovered: null,
  target: null,
});

const createViewSlice: StateCreator<State, [], [], ViewSlice> = () => ({
  tab: 'design',
  expandedStages: [],
  passView: null,
  notice: null,
  confirm: null,
});

const createCompareSlice: StateCreator<State, [], [], CompareSlice> = () => ({ pins: [], baseline: null });

/** Longest pin name: it heads a column of the compare table. */
export const MAX_PIN_NAME = 60;
const createHistorySlice: StateCreator<State, [], [], HistorySlice> = () => ({ history: emptyHistory });

const createCommands: StateCreator<State, [], [], Commands> = (set, get) => {
  const changed = (design: Design, extra: Partial<State>) => {
    const revision = get().revision + 1;
    // An opened document is clean until edited; every other change is saved.
    const saveStatus = extra.saveStatus ?? 'dirty';
    set({ design, revision, status: 'computing', ...extra, saveStatus });
    editStartedAt = performance.now();
    requestCompute();
  };
  return {
    dispatch<A extends object>(action: Action<A>, args: A) {
      const s = get();
      const out = action.perform(s.design, args);
      if (!out.ok) {
        if (out.confirm) {
          const confirmed: A & Confirmable = { ...args, confirmed: true };
          // The yes answers the question about this design: should it have changed meanwhile
          // (a key binding under the dialog), the action asks again about the new one.
          const asked = s.design;
          const go = (choice?: string) =>
            get().dispatch(
              action,
              get().design !== asked ? args : choice === undefined ? confirmed : { ...confirmed, choice },
            );
          set({ confirm: { question: out.confirm, go } });
        } else set({ notice: { kind: 'error', text: out.error } });
        return false;
      }
      if (out.design === s.design) return true;
      const history = action.history === 'record' ? record(s.history, s.design) : emptyHistory;
      const extra: Partial<State> = {
        history,
        notice: out.notice ? { kind: 'warning', text: out.notice } : null,
      };
      // A new document has no edits to blame; an edit adds the directive it touched.
      const touched = touchedDirective(s.design, out.design, out.select);
      if (action.history === 'replace') extra.suspects = [];
      else if (touched) extra.suspects = [...s.suspects.slice(-(MAX_SUSPECTS - 1)), touched];
      if (out.select !== undefined) extra.selectedDirective = out.select;
      else if (action.history === 'replace') extra.selectedDirective = null;
      if (action.history === 'replace') {
        extra.document = s.document + 1;
        extra.expandedStages = [];
        extra.passView = null;
      }
      changed(out.design, extra);
      return true;
    },
    answer(yes, choice) {
      const pending = get().confirm;
      set({ confirm: null });
      if (yes) pending?.go(choice);
    },
    restore(design, history) {
      changed(design, { history });
    },
    select: (index) => set({ selectedDirective: index }),
    hover: (node) => set({ hovered: node }),
    setTarget: (target) => set({ target }),
    setTab: (tab) => set({ tab }),
    toggleStage(key) {
      const cur = get().expandedStages;
      const next = cur.includes(key) ? cur.filter((k) => k !== key) : [...cur, key];
      get().setExpandedStages(next);
    },
    setExpandedStages(keys) {
      set({ expandedStages: keys });
      const pv = get().passView;
      if (pv) recompute?.send({ type: 'pass', pass: pv.pass, expanded: keys });
      else recompute?.send({ type: 'layout', expanded: keys });
    },
    inspectPass(pass) {
      if (pass === null) {
        set({ passView: null });
        recompute?.send({ type: 'layout', expanded: get().expandedStages });
        return;
      }
      set({ passView: { pass, graph: null } });
      recompute?.send({ type: 'pass', pass, expanded: get().expandedStages });
    },
    pin(name) {
      const s = get();
      const current = currentResult(s);
      if (!current) {
        set({ notice: { kind: 'error', text: 'only a design that compiles can be pinned' } });
        return;
      }
      if (s.pins.length >= MAX_PINS) {
        set({
          notice: { kind: 'error', text: `at most ${MAX_PINS} variants can be compared: unpin one first` },
        });
        return;
      }
      const label = name ?? pinName(s);
      pinCounter += 1;
      // With the whole plan once it has arrived (else receive completes the pin), for op details.
      const plan = compiledOfResult(s)?.plan;
      if (!plan) get().wantCompiled();
      const result = plan ? { ...current, plan } : current;
      set({
        pins: [...s.pins, { id: `pin-${pinCounter}`, name: label, design: s.design, result }],
      });
    },
    unpin(index) {
      const { pins, baseline } = get();
      const gone = pins[index];
      set({
        pins: pins.filter((_, i) => i !== index),
        ...(gone && gone.id === baseline ? { baseline: null } : {}),
      });
    },
    renamePin(id, name) {
      const label = name.trim();
      if (label === '' || label.length > MAX_PIN_NAME) {
        set({
          notice: {
            kind: 'error',
            text: label === '' ? 'a pin needs a name' : `a pin's name is at most ${MAX_PIN_NAME} characters`,
          },
        });
        return;
      }
      set({ pins: get().pins.map((p) => (p.id === id ? { ...p, name: label } : p)) });
    },
    setBaseline(id) {
      if (get().pins.some((p) => p.id === id)) set({ baseline: id });
    },
    wantCompiled() {
      const s = get();
      if (!s.result || compiledAskedFor === s.resultRevision || compiledOfResult(s)) return;
      compiledAskedFor = s.resultRevision;
      recompute?.send({ type: 'compiled' });
    },
    notify: (kind, text) => set({ notice: { kind, text } }),
    setSave: (p) => set(p),
  };
};

/** A pin is named after what distinguishes it: the schedule and the directives added to it. */
function pinName(s: State): string {
  const sched = s.design.directives.find((d) => d.op === 'schedule' && d.enabled !== false);
  const parts = [sched?.op === 'schedule' ? sched.builder : s.design.name];
  const extra = s.design.directives.filter((d) => d.op !== 'schedule' && d.enabled !== false);
  const kinds = [...new Set(extra.map((d) => d.op))];
  if (kinds.length) parts.push(`+ ${kinds.join(', ')}`);
  const name = parts.join(' ');
  return s.pins.some((p) => p.name === name) ? `${name} #${s.pins.length + 1}` : name;
}

function requestCompute(): void {
  const s = useStore.getState();
  recompute?.send({ type: 'compute', revision: s.revision, design: s.design, expanded: s.expandedStages });
}

/** The page's side of a worker reply (exported for tests that play the worker). */
export function receive(msg: WorkerReply): void {
  const s = useStore.getState();
  if (msg.type === 'timeline') {
    if (msg.revision === s.revision) timelineParts.add(msg.revision, unpackEvents(msg.events));
    return;
  }
  if (msg.type === 'computed') {
    if (msg.revision !== s.revision) return;
    const latency = performance.now() - editStartedAt;
    let result = msg.result;
    if (result.ok && msg.timelineParts !== undefined) {
      const timeline = timelineParts.take(msg.revision, msg.timelineParts);
      result = timeline
        ? { ...result, simulation: { ...result.simulation, timeline } }
        : {
            ok: false,
            errors: [{ path: '', message: 'internal error: parts of the timeline did not arrive' }],
          };
    }
    if (result.ok) {
      useStore.setState({
        result,
        resultRevision: msg.revision,
        errors: NO_ERRORS,
        suspects: [],
        status: 'ok',
        lastLatencyMs: latency,
        lastWorkerMs: msg.workerMs,
      });
      remeasure();
      // After the frame that draws the new timeline (a big one laid out over several tasks: once it
      // is): the canvas, then the DAG and the whole plan for moves and hover details.
      requestAnimationFrame(() =>
        setTimeout(
          () =>
            whenTimelinesLaidOut(() => {
              const now = useStore.getState();
              if (now.resultRevision !== msg.revision) return;
              if (now.passView)
                recompute?.send({ type: 'pass', pass: now.passView.pass, expanded: now.expandedStages });
              else recompute?.send({ type: 'layout', expanded: now.expandedStages });
              if (result.ok && result.simulation.ops <= LAZY_COMPILED_OPS) {
                compiledAskedFor = msg.revision;
                recompute?.send({ type: 'compiled' });
              }
            }),
          0,
        ),
      );
    } else
      useStore.setState({
        errors: result.errors,
        status: 'error',
        lastLatencyMs: latency,
        lastWorkerMs: msg.workerMs,
      });
  } else if (msg.type === 'compiled') {
    // A pin taken before the whole plan arrived holds the result's outline: it gets the plan too.
    const pinned = msg.revision === s.resultRevision && s.pins.some((p) => p.result === s.result);
    useStore.setState({
      dag: msg.dag,
      plan: msg.plan,
      dagRevision: msg.revision,
      ...(pinned
        ? {
            pins: s.pins.map((p) =>
              p.result === s.result && s.result ? { ...p, result: { ...s.result, plan: msg.plan } } : p,
            ),
          }
        : {}),
    });
  } else if (msg.type === 'layout') {
    // A layout of the latest valid result (a compute's own, or after expanding a stage).
    if (msg.revision === s.resultRevision || msg.revision === s.revision)
      useStore.setState({ graph: unpackGraph(msg.graph) });
  } else if (msg.type === 'measured') {
    receiveMeasured(msg.id, msg.overlay);
  } else if (msg.type === 'pass') {
    if (s.passView?.pass === msg.pass)
      useStore.setState({ passView: { pass: msg.pass, graph: msg.graph && unpackGraph(msg.graph) } });
  }
}

export let useStore: ReturnType<typeof createAppStore>;

export function createAppStore(initial: Design) {
  return create<State>()((...a) => ({
    ...createDesignSlice(initial)(...a),
    ...createResultSlice(...a),
    ...createSelectionSlice(...a),
    ...createViewSlice(...a),
    ...createCompareSlice(...a),
    ...createHistorySlice(...a),
    ...createCommands(...a),
  }));
}

/**
 * The store without a worker: for tests of the commands (nothing is recomputed), or with a stand-in
 * that records what the page asks the worker for.
 */
export function initStore(initial: Design, worker?: Pick<Recompute, 'send'>): void {
  useStore = createAppStore(initial);
  recompute = worker;
  compiledAskedFor = -1;
}

/** Creates the page's store and its worker, and computes the first design. */
export function startStore(initial: Design): void {
  useStore = createAppStore(initial);
  recompute = new Recompute(receive);
  compiledAskedFor = -1;
  connectMeasured(
    (req) => recompute?.send(req),
    (text) => useStore.setState({ notice: { kind: 'error', text } }),
    () => useStore.getState().design,
  );
  editStartedAt = performance.now();
  requestCompute();
}
