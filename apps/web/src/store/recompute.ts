/**
 * The page's side of the compile worker: one request in flight. A compute waiting behind it is
 * replaced by a newer one (a burst of edits costs one recompute after the current one, never a
 * queue of stale ones), and it drops the waiting layout / DAG / pass requests of the result it
 * supersedes: the page asks for those again once the new result is drawn. Each reply is handled in
 * a task after the one that read it.
 */
import { nextTask } from '../core/nextTask.ts';
import type { WorkerReply, WorkerRequest } from '../workerProtocol.ts';

export class Recompute {
  private worker: Worker | undefined;
  private busy = false;
  private compute: WorkerRequest | undefined;
  private readonly others = new Map<WorkerRequest['type'], WorkerRequest>();

  constructor(private readonly onReply: (msg: WorkerReply) => void) {}

  private ensure(): Worker {
    if (!this.worker) {
      this.worker = new Worker(new URL('../compileWorker.ts', import.meta.url), { type: 'module' });
      this.worker.onmessage = (e: MessageEvent<WorkerReply>) => {
        // Reading the message copies it out of the worker's (a DAG and a whole plan of 8,725 ops:
        // 50–230 ms); what the page does with it runs in a task of its own after that.
        const msg = e.data;
        this.handle(msg);
        // A timeline's parts come before the reply that ends the request.
        if (msg.type === 'timeline') return;
        this.busy = false;
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

  /** Replies read and not yet handled, in the order they came. */
  private readonly replies: WorkerReply[] = [];

  private handle(msg: WorkerReply): void {
    this.replies.push(msg);
    if (this.replies.length > 1) return;
    const next = () => {
      try {
        this.onReply(this.replies[0]!);
      } finally {
        this.replies.shift();
        if (this.replies.length > 0) void nextTask().then(next);
      }
    };
    void nextTask().then(next);
  }

  /**
   * Starts the worker before anything is asked of it, so it loads the compiler while the page
   * fetches the design it opens (the page starts without compiling its default then: start/session.ts).
   */
  open(): void {
    this.ensure();
  }

  send(req: WorkerRequest): void {
    if (req.type === 'compute') {
      this.compute = req;
      this.others.clear();
    } else this.others.set(req.type, req);
    if (!this.busy) this.flush();
  }

  private flush(): void {
    let next: WorkerRequest | undefined = this.compute;
    if (next) this.compute = undefined;
    else {
      const first = this.others.entries().next();
      if (!first.done) {
        next = first.value[1];
        this.others.delete(first.value[0]);
      }
    }
    if (!next) return;
    this.busy = true;
    this.ensure().postMessage(next);
  }
}
