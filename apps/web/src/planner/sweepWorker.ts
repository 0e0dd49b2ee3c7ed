/// <reference lib="webworker" />
/**
 * The sweep view's thread: the planner's sweep of the current design (each value a compile and
 * simulate of the whole design), off the page's thread and apart from the compile worker, so a
 * sweep never delays the edit the user is looking at.
 */
import { sweep } from '@stagecraft/planner/sweep';
import type { SweepReply, SweepRequest } from './sweepRunner.ts';

self.onmessage = (e: MessageEvent<SweepRequest>) => {
  const { id, design, axis, values } = e.data;
  let reply: SweepReply;
  try {
    reply = { id, ok: true, points: sweep(design, axis, values) };
  } catch (err) {
    reply = { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  (self as unknown as DedicatedWorkerGlobalScope).postMessage(reply);
};
