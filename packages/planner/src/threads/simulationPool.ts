/**
 * Worker threads that compile and simulate layouts for the layout search, so a search uses the
 * machine's cores and never blocks its caller's event loop. Started from the esbuild bundle or
 * from the sources alike (layoutWorkerEntry.mjs picks), as the API's compile pool is.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Design } from '@stagecraft/ir';
import type { LayoutEvaluation } from '../layoutEvaluation.ts';

export interface PoolRequest {
  id: number;
  design: Design;
}
export interface PoolReply {
  id: number;
  evaluation: LayoutEvaluation;
}

export interface SimulationPool {
  readonly size: number;
  evaluate(design: Design): Promise<LayoutEvaluation>;
  close(): Promise<void>;
}

const ENTRY = new URL('./layoutWorkerEntry.mjs', import.meta.url);

/** One worker per core but one, for the caller's own thread; at least one. */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

export async function startSimulationPool(workers: number): Promise<SimulationPool> {
  const idle: Worker[] = [];
  const all: Worker[] = [];
  const waiting: { request: PoolRequest; resolve: (e: LayoutEvaluation) => void }[] = [];
  const pending = new Map<number, (e: LayoutEvaluation) => void>();
  const busy = new Map<Worker, number>();
  let nextId = 0;
  const dispatch = () => {
    while (idle.length > 0 && waiting.length > 0) {
      const w = idle.pop()!;
      const job = waiting.shift()!;
      pending.set(job.request.id, job.resolve);
      busy.set(w, job.request.id);
      w.postMessage(job.request);
    }
  };
  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(ENTRY);
          all.push(w);
          w.on('message', (m: PoolReply | { ready: true }) => {
            if ('ready' in m) {
              idle.push(w);
              resolve();
            } else {
              const done = pending.get(m.id);
              pending.delete(m.id);
              busy.delete(w);
              idle.push(w);
              done?.(m.evaluation);
            }
            dispatch();
          });
          w.on('error', (e) => {
            reject(e);
            const id = busy.get(w);
            if (id === undefined) return;
            // The layout it ran is lost; the search goes on with the other workers.
            pending.get(id)?.({ ok: false, reason: `internal: a simulation worker failed (${e.message})` });
            pending.delete(id);
            busy.delete(w);
          });
        }),
    ),
  );
  return {
    size: workers,
    evaluate(design) {
      return new Promise((resolve) => {
        waiting.push({ request: { id: nextId++, design }, resolve });
        dispatch();
      });
    },
    async close() {
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}
