/** The page's side of a worker reply: what each answer of the compile worker changes in the store. */
import type { StoreApi } from 'zustand';
import { unpackGraph } from '../core/graphWire.ts';
import { unpackEvents } from '../core/timelineWire.ts';
import { whenTimelinesLaidOut } from '../gantt/slicedLayout.ts';
import type { WorkerReply } from '../workerProtocol.ts';
import { receiveMeasured, remeasure } from './measured.ts';
import { NO_ERRORS, type State } from './slices.ts';
import type { WorkerLink } from './workerLink.ts';

/**
 * Above this many ops a result's DAG and whole plan are only fetched from the worker when needed:
 * their structured clone and the garbage after it cost DeepSeek-V3's page 0.1–0.4 s in one task
 * after every edit, for op details the user may never open. Smaller results fetch them at once.
 */
export const LAZY_COMPILED_OPS = 25_000;

type Computed = Extract<WorkerReply, { type: 'computed' }>;

export function receiveReply(store: StoreApi<State>, link: WorkerLink, msg: WorkerReply): void {
  const s = store.getState();
  switch (msg.type) {
    case 'timeline':
      if (msg.revision === s.revision) link.timelineParts.add(msg.revision, unpackEvents(msg.events));
      return;
    case 'computed':
      if (msg.revision === s.revision) receiveComputed(store, link, msg);
      return;
    case 'compiled': {
      // A pin taken before the whole plan arrived holds the result's outline: it gets the plan too.
      const pinned = msg.revision === s.resultRevision && s.pins.some((p) => p.result === s.result);
      store.setState({
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
      return;
    }
    case 'layout':
      // A layout of the result on screen (a compute's own, or after expanding a stage): one of a
      // result the page dropped (another design opened since it was asked for) would show beside
      // a timeline it does not belong to.
      if (msg.revision === s.resultRevision)
        store.setState({ graph: unpackGraph(msg.graph), graphRevision: msg.revision });
      return;
    case 'measured':
      receiveMeasured(msg.id, msg.overlay);
      return;
    case 'pass':
      if (s.passView?.pass === msg.pass && msg.revision === s.resultRevision)
        store.setState({ passView: { pass: msg.pass, graph: msg.graph && unpackGraph(msg.graph) } });
      return;
  }
}

/** A compute's answer for the current revision: its result (its timeline's parts joined), or its errors. */
function receiveComputed(store: StoreApi<State>, link: WorkerLink, msg: Computed): void {
  const latency = performance.now() - link.editStartedAt;
  let result = msg.result;
  if (result.ok && msg.timelineParts !== undefined) {
    const timeline = link.timelineParts.take(msg.revision, msg.timelineParts);
    result = timeline
      ? { ...result, simulation: { ...result.simulation, timeline } }
      : {
          ok: false,
          errors: [{ path: '', message: 'internal error: parts of the timeline did not arrive' }],
        };
  }
  if (!result.ok) {
    store.setState({
      errors: result.errors,
      status: 'error',
      lastLatencyMs: latency,
      lastWorkerMs: msg.workerMs,
    });
    return;
  }
  store.setState({
    result,
    resultRevision: msg.revision,
    errors: NO_ERRORS,
    suspects: [],
    status: 'ok',
    lastLatencyMs: latency,
    lastWorkerMs: msg.workerMs,
  });
  remeasure();
  const ops = result.simulation.ops;
  // After the frame that draws the new timeline (a big one laid out over several tasks: once it
  // is): the canvas, then the DAG and the whole plan for moves and hover details.
  requestAnimationFrame(() =>
    setTimeout(() => whenTimelinesLaidOut(() => askForDrawings(store, link, msg.revision, ops)), 0),
  );
}

/** The DAG's layout (or the inspected pass's) of a result just drawn, and its DAG and plan when small. */
function askForDrawings(store: StoreApi<State>, link: WorkerLink, revision: number, ops: number): void {
  const now = store.getState();
  if (now.resultRevision !== revision) return;
  if (now.passView) link.send({ type: 'pass', pass: now.passView.pass, expanded: now.expandedStages });
  else link.send({ type: 'layout', expanded: now.expandedStages });
  if (ops <= LAZY_COMPILED_OPS) {
    link.compiledAskedFor = revision;
    link.send({ type: 'compiled' });
  }
}
