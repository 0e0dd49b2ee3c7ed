/** The page's side of the sweep worker (sweepWorker.ts): one sweep at a time, the latest one answered. */
import type { Design } from '@stagecraft/ir';
import type { SweepAxis } from '../core/action.ts';
import type { SweepPoint, SweepRunner } from '../store/planner.ts';

export interface SweepRequest {
  id: number;
  design: Design;
  axis: SweepAxis;
  values: number[];
}

export type SweepReply =
  | { id: number; ok: true; points: SweepPoint[] }
  | { id: number; ok: false; message: string };

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve(p: SweepPoint[]): void; reject(e: Error): void }>();

export const sweepInWorker: SweepRunner = (design, axis, values) => {
  if (!worker) {
    worker = new Worker(new URL('./sweepWorker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<SweepReply>) => {
      const w = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      if (!w) return;
      if (e.data.ok) w.resolve(e.data.points);
      else w.reject(new Error(e.data.message));
    };
  }
  nextId += 1;
  const id = nextId;
  const w = worker;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, design, axis, values } satisfies SweepRequest);
  });
};
