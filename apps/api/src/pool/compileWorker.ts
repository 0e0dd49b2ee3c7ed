/**
 * A compile worker: runs one job (a compile or an export) at a time and answers with the
 * response body or the issues. It remembers the last compile of each named design (a few dozen and a bounded number of DAG
 * nodes, least recently used out), so the next revision reruns only the passes its edit touched.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { nodeCount } from '@stagecraft/ir';
import type { IncrementalState } from '@stagecraft/passes';
import { type CompileOutcome, compileResponse } from '../compileResponse.ts';
import { exportFile } from '../exportFile.ts';
import type { JobMessage, WorkerMessage } from './protocol.ts';

/** Designs remembered, and the DAG nodes their states may hold in all (snapshots share nodes). */
const REMEMBERED = 32;
const REMEMBERED_NODES = 2_000_000;
const states = new Map<string, { state: IncrementalState; nodes: number }>();
let heldNodes = 0;

function remember(id: string, state: IncrementalState): void {
  forget(id);
  const last = state.steps.at(-1);
  const nodes = last ? nodeCount(last.input) : 0;
  if (nodes > REMEMBERED_NODES) return;
  states.set(id, { state, nodes });
  heldNodes += nodes;
  for (const k of states.keys()) {
    if (states.size <= REMEMBERED && heldNodes <= REMEMBERED_NODES) break;
    forget(k);
  }
}

function forget(id: string): void {
  const old = states.get(id);
  if (!old) return;
  heldNodes -= old.nodes;
  states.delete(id);
}

function post(m: WorkerMessage): void {
  parentPort!.postMessage(m);
}

/** Moves a compile answer's bytes to the main thread rather than copying them. */
function postDone(id: number, outcome: CompileOutcome): void {
  const m: WorkerMessage = { type: 'done', id, outcome };
  const buffer = outcome.ok ? outcome.body.buffer : undefined;
  // Only a buffer the bytes own alone: a slice of a shared pool would move its neighbours too.
  if (buffer instanceof ArrayBuffer && outcome.ok && outcome.body.byteLength === buffer.byteLength) {
    parentPort!.postMessage(m, [buffer]);
  } else parentPort!.postMessage(m);
}

parentPort!.on('message', (job: JobMessage) => {
  if (job.type !== 'job') return;
  if (job.large) lowerPriority();
  try {
    const { task } = job;
    if (task.kind === 'export') {
      post({
        type: 'done',
        id: job.id,
        outcome: exportFile(task.design, task.format, task.options, job.maxOps, task.maxBytes),
      });
      return;
    }
    const previous = job.designId !== undefined ? states.get(job.designId)?.state : undefined;
    const { outcome, state } = compileResponse(task.design, task.include, job.maxOps, previous, task.head);
    if (job.designId !== undefined) remember(job.designId, state);
    postDone(job.id, outcome);
  } catch (e) {
    // A bug, not the user's input: the state may be the cause, so forget it.
    if (job.designId !== undefined) forget(job.designId);
    if (e instanceof RangeError) {
      // Memory or string length exhausted by a huge design is still the user's input.
      const message = `the design is too large to compile (${e.message}); lower its size`;
      post({
        type: 'done',
        id: job.id,
        outcome: { ok: false, status: 413, errors: [{ path: 'design', message }] },
      });
      return;
    }
    post({ type: 'failed', id: job.id, message: e instanceof Error ? e.message : String(e) });
  }
});

/** Nice 19 (the lowest) on this thread alone (Linux's nice is per thread), so small compiles win the CPU. */
let lowered = false;
function lowerPriority(): void {
  if (lowered) return;
  lowered = true;
  try {
    setPriority(0, 19);
  } catch {
    // Not permitted or not supported here: the job runs at normal priority.
  }
}

post({ type: 'ready' });
