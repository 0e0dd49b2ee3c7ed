/** The store's commands: what components and actions call to change the state (slices.ts). */
import type { StoreApi } from 'zustand';
import type { Action, Confirmable } from '../core/action.ts';
import { touchedDirective } from '../core/errorCause.ts';
import { emptyHistory, record } from '../core/history.ts';
import { addPinAction } from '../core/pins.ts';
import { compiledOfResult, currentResult } from './current.ts';
import { clearMeasured } from './measured.ts';
import { type Commands, INITIAL_RESULT, type State } from './slices.ts';
import type { WorkerLink } from './workerLink.ts';

/** Edits remembered as suspects while the design does not compile: the latest ones. */
const MAX_SUSPECTS = 20;

type Set = StoreApi<State>['setState'];
type Get = StoreApi<State>['getState'];

/** Asks the worker for the design as it is now. */
export function requestCompute(get: Get, link: WorkerLink): void {
  const s = get();
  link.send({ type: 'compute', revision: s.revision, design: s.design, expanded: s.expandedStages });
}

export function createCommands(set: Set, get: Get, link: WorkerLink): Commands {
  const changed = (design: State['design'], extra: Partial<State>) => {
    const revision = get().revision + 1;
    // An opened document is clean until edited; every other change is saved.
    const saveStatus = extra.saveStatus ?? 'dirty';
    set({ design, revision, status: 'computing', ...extra, saveStatus });
    link.editStartedAt = performance.now();
    requestCompute(get, link);
  };
  const layoutRequest = (expanded: string[]) => {
    const pv = get().passView;
    link.send(pv ? { type: 'pass', pass: pv.pass, expanded } : { type: 'layout', expanded });
  };
  return {
    dispatch: (action, args) => perform(set, get, changed, action, args),
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
      get().setExpandedStages(cur.includes(key) ? cur.filter((k) => k !== key) : [...cur, key]);
    },
    setExpandedStages(keys) {
      set({ expandedStages: keys });
      layoutRequest(keys);
    },
    inspectPass(pass) {
      set({ passView: pass === null ? null : { pass, graph: null } });
      layoutRequest(get().expandedStages);
    },
    pin(name) {
      const s = get();
      // With the whole plan once it has arrived (else the worker's reply completes the pin), for op details.
      const plan = compiledOfResult(s)?.plan;
      if (s.dispatchPins(addPinAction, { design: s.design, name }) && !plan) get().wantCompiled();
    },
    dispatchPins(action, args) {
      const s = get();
      const current = currentResult(s);
      const plan = compiledOfResult(s)?.plan;
      const out = action.perform(s, args, current && plan ? { ...current, plan } : current);
      if (!out.ok) {
        set({ notice: { kind: 'error', text: out.error } });
        return false;
      }
      const { pins, baseline, pinCount } = out.board;
      set({ pins, baseline, pinCount });
      return true;
    },
    wantCompiled() {
      const s = get();
      if (!s.result || link.compiledAskedFor === s.resultRevision || compiledOfResult(s)) return;
      link.compiledAskedFor = s.resultRevision;
      link.send({ type: 'compiled' });
    },
    notify: (kind, text) => set({ notice: { kind, text } }),
    setSave: (p) => set(p),
  };
}

/** Performs a design action: its refusal or question kept for the user, or its design made the current one. */
function perform<A extends object>(
  set: Set,
  get: Get,
  changed: (design: State['design'], extra: Partial<State>) => void,
  action: Action<A>,
  args: A,
): boolean {
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
  const replace = action.history === 'replace';
  const extra: Partial<State> = {
    history: replace ? emptyHistory : record(s.history, s.design),
    notice: out.notice ? { kind: 'warning', text: out.notice } : null,
  };
  // A new document has no edits to blame; an edit adds the directive it touched.
  const touched = touchedDirective(s.design, out.design, out.select);
  if (replace) extra.suspects = [];
  else if (touched) extra.suspects = [...s.suspects.slice(-(MAX_SUSPECTS - 1)), touched];
  if (out.select !== undefined) extra.selectedDirective = out.select;
  else if (replace) extra.selectedDirective = null;
  if (replace) {
    extra.document = s.document + 1;
    extra.expandedStages = [];
    extra.passView = null;
    // The previous document's op in Details and as a palette target, and its measured traces,
    // are not this one's.
    extra.hovered = null;
    extra.target = null;
    // Nor is its result: its timeline, DAG and metrics would otherwise stay under the new name
    // until the new one computes (for good, should it not compile), and a DAG layout of it still
    // in the worker would arrive for the result on screen.
    Object.assign(extra, INITIAL_RESULT);
    clearMeasured();
  }
  changed(out.design, extra);
  return true;
}
