/**
 * One app store: the slices (slices.ts) with their commands (commands.ts), and its own link to the
 * compile worker, whose replies (replies.ts) it receives. Nothing is shared between two stores, so
 * a test makes as many as it needs.
 */
import type { Design } from '@stagecraft/ir';
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { WorkerReply, WorkerRequest } from '../workerProtocol.ts';
import { createCommands, requestCompute } from './commands.ts';
import { receiveReply } from './replies.ts';
import {
  INITIAL_COMPARE,
  INITIAL_HISTORY,
  INITIAL_RESULT,
  INITIAL_SELECTION,
  INITIAL_VIEW,
  initialDesign,
  type State,
} from './slices.ts';
import { WorkerLink } from './workerLink.ts';

export type AppStore = UseBoundStore<StoreApi<State>> & {
  /** The page's side of a worker reply (tests that play the worker call it too). */
  receive(msg: WorkerReply): void;
  /** Computes the design as it is now: the first one, once the page is up. */
  computeNow(): void;
  /** Asks this store's worker (the measured overlay shares it: store/measured.ts). */
  send(req: WorkerRequest): void;
};

/**
 * `connect` opens the worker this store talks to, handing it where replies go: the page's
 * Recompute, a stand-in recording requests, or nothing (tests of the commands: nothing is recomputed).
 */
export function createAppStore(
  initial: Design,
  connect?: (receive: (msg: WorkerReply) => void) => { send(req: WorkerRequest): void },
): AppStore {
  const link = new WorkerLink();
  const hook = create<State>()((set, get) => ({
    ...initialDesign(initial),
    ...INITIAL_RESULT,
    ...INITIAL_SELECTION,
    ...INITIAL_VIEW,
    ...INITIAL_COMPARE,
    ...INITIAL_HISTORY,
    ...createCommands(set, get, link),
  }));
  const receive = (msg: WorkerReply) => receiveReply(hook, link, msg);
  link.port = connect?.(receive);
  return Object.assign(hook, {
    receive,
    send: (req: WorkerRequest) => link.send(req),
    computeNow() {
      link.editStartedAt = performance.now();
      requestCompute(hook.getState, link);
    },
  });
}
