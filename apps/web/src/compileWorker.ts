/// <reference lib="webworker" />
/**
 * Recomputes the design off the main thread on every edit: compile + simulate + DAG layout.
 * Keeps the last compiled DAG, plan and snapshots to answer compiled, layout and pass-inspector
 * requests.
 */
import type { Design } from '@stagecraft/ir';
import type { IncrementalState } from '@stagecraft/passes';
import { type Compiled, computeDesign, layoutGraph, passGraph } from './core/computeDesign.ts';
import { packGraph } from './core/graphWire.ts';
import { measuredOverlayOnce } from './core/measuredMemo.ts';
import { packEvents } from './core/timelineWire.ts';
import { planOutline } from './gantt/timelinePlan.ts';
import { type PostedResult, TIMELINE_PART, type WorkerReply, type WorkerRequest } from './workerProtocol.ts';

let compiled: Compiled | undefined;
let incremental: IncrementalState | undefined;
let compiledRevision = -1;

function reply(msg: WorkerReply, transfer: Transferable[] = []): void {
  (self as unknown as DedicatedWorkerGlobalScope).postMessage(msg, transfer);
}

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const req = e.data;
  const t0 = performance.now();
  try {
    if (req.type === 'compute') {
      // The timeline first: the page asks for the canvas layout once it has drawn this.
      const expanded = new Set(req.expanded);
      const out = computeDesign(req.design, expanded, {
        layout: false,
        ...(incremental ? { previous: incremental } : {}),
      });
      const { result, compiled: c } = out;
      if (out.incremental) incremental = out.incremental;
      if (c) {
        compiled = c;
        compiledRevision = req.revision;
      }
      let posted: PostedResult = result;
      let timelineParts: number | undefined;
      if (result.ok) {
        const { dag: _dag, plan, ...rest } = result;
        posted = { ...rest, plan: planOutline(plan) };
        const events = result.simulation.timeline ?? [];
        if (events.length > TIMELINE_PART) {
          timelineParts = 0;
          for (let i = 0; i < events.length; i += TIMELINE_PART, timelineParts++) {
            const { posted: part, transfer } = packEvents(events.slice(i, i + TIMELINE_PART));
            reply({ type: 'timeline', revision: req.revision, events: part }, transfer);
          }
          posted = { ...posted, simulation: { ...result.simulation, timeline: [] } };
        }
      }
      reply({
        type: 'computed',
        revision: req.revision,
        result: posted,
        workerMs: performance.now() - t0,
        ...(timelineParts !== undefined ? { timelineParts } : {}),
      });
      return;
    }
    if (req.type === 'measure') {
      reply({ type: 'measured', id: req.id, overlay: measuredOverlayOnce(req.design as Design, req.files) });
      return;
    }
    if (!compiled) return;
    if (req.type === 'compiled') {
      reply({ type: 'compiled', revision: compiledRevision, dag: compiled.dag, plan: compiled.plan });
      return;
    }
    const expanded = new Set(req.expanded);
    if (req.type === 'layout') {
      const { posted, transfer } = packGraph(layoutGraph(compiled, expanded));
      reply({ type: 'layout', revision: compiledRevision, graph: posted }, transfer);
    } else if (req.type === 'pass') {
      const graph = passGraph(compiled, req.pass, expanded);
      const packed = graph ? packGraph(graph) : null;
      reply(
        { type: 'pass', revision: compiledRevision, pass: req.pass, graph: packed?.posted ?? null },
        packed?.transfer ?? [],
      );
    }
  } catch (err) {
    // A compiler bug must not take the editor down: it shows as an error at the document.
    const message = err instanceof Error ? err.message : String(err);
    if (req.type === 'measure')
      reply({ type: 'measured', id: req.id, overlay: { ok: false, errors: [`internal error: ${message}`] } });
    else if (req.type === 'compute')
      reply({
        type: 'computed',
        revision: req.revision,
        result: { ok: false, errors: [{ path: '', message: `internal error: ${message}` }] },
        workerMs: performance.now() - t0,
      });
  }
};
