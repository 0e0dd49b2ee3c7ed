/**
 * What one store keeps of its exchange with the compile worker: nothing a component renders, so it
 * lives beside the state, one per store instance.
 */
import type { WorkerRequest } from '../workerProtocol.ts';
import { TimelineParts } from './timelineParts.ts';

export class WorkerLink {
  /** The revision whose DAG and whole plan were last asked for. */
  compiledAskedFor = -1;
  /** When the edit being computed was made: its result's latency counts from here. */
  editStartedAt = 0;
  /** A big timeline's parts, arriving before the reply that completes them. */
  readonly timelineParts = new TimelineParts();

  /**
   * The worker (store/recompute.ts), a stand-in that records requests, or none (tests of the
   * commands): set once the store it answers exists.
   */
  port: { send(req: WorkerRequest): void } | undefined;

  send(req: WorkerRequest): void {
    this.port?.send(req);
  }
}
