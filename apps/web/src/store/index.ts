/**
 * The page's store: one instance of createAppStore (appStore.ts) and the autosave made for it,
 * bound here once the page starts (main.tsx) or a test sets one up, so components reach them as
 * `useStore` and `autosave`.
 */
import type { Design } from '@stagecraft/ir';
import type { WorkerRequest } from '../workerProtocol.ts';
import { type AppStore, createAppStore } from './appStore.ts';
import { type Autosave, createAutosave } from './autosave.ts';
import { connectMeasured } from './measured.ts';
import { Recompute } from './recompute.ts';

export { MAX_PIN_NAME, MAX_PINS } from '../core/pins.ts';
export type { AppStore } from './appStore.ts';
export { LAZY_COMPILED_OPS } from './replies.ts';
export type * from './slices.ts';

export let useStore: AppStore;
export let autosave: Autosave;

/**
 * The store without the page's worker: for tests of the commands (nothing is recomputed), or with
 * a stand-in that records what the page asks the worker for.
 */
export function initStore(initial: Design, worker?: { send(req: WorkerRequest): void }): void {
  useStore = createAppStore(initial, worker && (() => worker));
  autosave = createAutosave(useStore);
}

/**
 * Creates the page's store, its worker and its autosave, and computes the first design, unless
 * `computeFirst` is false: the address opens another design, which replaces `initial` once it is
 * read (the caller then calls `computeNow` only if it could not be).
 */
export function startStore(initial: Design, computeFirst = true): void {
  const store = createAppStore(initial, (receive) => {
    const worker = new Recompute(receive);
    worker.open();
    return worker;
  });
  useStore = store;
  autosave = createAutosave(store);
  autosave.start();
  connectMeasured(
    (req) => store.send(req),
    (text) => store.setState({ notice: { kind: 'error', text } }),
    () => store.getState().design,
  );
  if (computeFirst) store.computeNow();
}
