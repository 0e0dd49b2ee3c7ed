import { afterEach, describe, expect, test, vi } from 'vitest';
import type { WorkerReply, WorkerRequest } from '../workerProtocol.ts';
import { Recompute } from './recompute.ts';

/** The page's worker replaced by one whose replies the test sends. */
class ScriptedWorker {
  static last: ScriptedWorker | undefined;
  onmessage: ((e: MessageEvent<WorkerReply>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  readonly asked: WorkerRequest[] = [];
  constructor() {
    ScriptedWorker.last = this;
  }
  postMessage(req: WorkerRequest): void {
    this.asked.push(req);
  }
  reply(msg: WorkerReply): void {
    this.onmessage?.({ data: msg } as MessageEvent<WorkerReply>);
  }
}

const compute: WorkerRequest = { type: 'compute', revision: 1, design: {}, expanded: [] };
const part = { type: 'timeline', revision: 1, events: {} } as unknown as WorkerReply;
const computed = { type: 'computed', revision: 1, result: {}, workerMs: 1 } as unknown as WorkerReply;
const layout = { type: 'layout', revision: 1, graph: {} } as unknown as WorkerReply;

afterEach(() => vi.unstubAllGlobals());

describe("the page's side of the compile worker", () => {
  test('a reply is handled in a task after the one that read it, every reply in the order it came', async () => {
    vi.stubGlobal('Worker', ScriptedWorker);
    const handled: string[] = [];
    const recompute = new Recompute((msg) => handled.push(msg.type));
    recompute.send(compute);
    const worker = ScriptedWorker.last!;
    worker.reply(part);
    worker.reply(computed);
    // Read, not yet handled: the task that read them renders nothing.
    expect(handled).toEqual([]);
    await vi.waitFor(() => expect(handled).toEqual(['timeline', 'computed']));
    worker.reply(layout);
    expect(handled).toEqual(['timeline', 'computed']);
    await vi.waitFor(() => expect(handled).toEqual(['timeline', 'computed', 'layout']));
  });

  test('the next request goes to the worker as soon as the reply ending the last one is read', () => {
    vi.stubGlobal('Worker', ScriptedWorker);
    const recompute = new Recompute(() => {});
    recompute.send(compute);
    const worker = ScriptedWorker.last!;
    recompute.send({ type: 'layout', expanded: [] });
    expect(worker.asked.map((r) => r.type)).toEqual(['compute']);
    worker.reply(part);
    expect(worker.asked.map((r) => r.type)).toEqual(['compute']);
    worker.reply(computed);
    expect(worker.asked.map((r) => r.type)).toEqual(['compute', 'layout']);
  });

  test('a reply whose handling fails does not stop the ones after it', async () => {
    vi.stubGlobal('Worker', ScriptedWorker);
    const handled: string[] = [];
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    process.on('unhandledRejection', onError);
    try {
      const recompute = new Recompute((msg) => {
        handled.push(msg.type);
        if (msg.type === 'timeline') throw new Error('a part the page could not read');
      });
      recompute.send(compute);
      ScriptedWorker.last!.reply(part);
      ScriptedWorker.last!.reply(computed);
      await vi.waitFor(() => expect(handled).toEqual(['timeline', 'computed']));
    } finally {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    }
    expect(errors).toHaveLength(1);
  });
});
