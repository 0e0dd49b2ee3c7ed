/**
 * The page's side of the compile worker: at most one request in flight and one waiting, so a
 * burst of edits costs one recompute after the current one, never a queue of stale ones.
 */
import type { WorkerReply, WorkerRequest } from '../workerProtocol.ts';

export class Recompute {
  private worker: Worker | undefined;
  private busy = false;
  private waiting: WorkerRequest | undefined;

  constructor(private readonly onReply: (msg: WorkerReply) => void) {}

  private ensure(): Worker {
    if (!this.worker) {
      this.worker = new Worker(new URL('../compileWorker.ts', import.meta.url), { type: 'module' });
      this.worker.onmessage = (e: MessageEvent<WorkerReply>) => {
        this.busy = false;
        this.onReply(e.data);
        this.flush();
      };
      this.worker.onerror = (e) => {
        this.busy = false;
        console.error('compile worker failed', e.message);
        this.flush();
      };
    }
    return this.worker;
  }

  send(req: WorkerRequest): void {
    // A newer compute supersedes a waiting one (it brings its own layout, and its DAG is asked for after it).
    if (this.busy) {
      if (!this.waiting || req.type === 'compute' || this.waiting.type !== 'compute') this.waiting = req;
      return;
    }
    this.busy = true;
    this.ensure().postMessage(req);
  }

  private flush(): void {
    const next = this.waiting;
    this.waiting = undefined;
    if (next) this.send(next);
  }
}
