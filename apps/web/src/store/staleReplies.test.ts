// @vitest-environment happy-dom
/**
 * Replies belong to the request that is current: a design opened while the worker still answers
 * for the one before never shows that one's timeline or DAG.
 */
import type { Design } from '@stagecraft/ir';
import { describe, expect, test, vi } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { openDesignAction } from '../core/actions.ts';
import { type Compiled, computeDesign, layoutGraph } from '../core/computeDesign.ts';
import { packGraph } from '../core/graphWire.ts';
import { planOutline } from '../gantt/timelinePlan.ts';
import type { WorkerReply, WorkerRequest } from '../workerProtocol.ts';
import { createAppStore } from './appStore.ts';

/**
 * The compile worker's answers, one request at a time in the order asked, each held until the test
 * lets it through: what the page sees when a reply is slow.
 */
class HeldWorker {
  private readonly queue: WorkerRequest[] = [];
  private compiled: { revision: number; of: Compiled } | undefined;
  receive: (msg: WorkerReply) => void = () => {};

  send(req: WorkerRequest): void {
    this.queue.push(req);
  }

  pending(): WorkerRequest['type'][] {
    return this.queue.map((r) => r.type);
  }

  /** Answers the oldest request. */
  answer(): void {
    const req = this.queue.shift();
    if (!req) throw new Error('no request waits for an answer');
    if (req.type === 'compute') {
      const out = computeDesign(req.design, new Set(req.expanded), { layout: false });
      if (out.compiled) this.compiled = { revision: req.revision, of: out.compiled };
      const result = out.result.ok
        ? (() => {
            const { dag: _dag, plan, ...rest } = out.result;
            return { ...rest, plan: planOutline(plan) };
          })()
        : out.result;
      this.receive({ type: 'computed', revision: req.revision, result, workerMs: 1 });
    } else if (req.type === 'layout' && this.compiled) {
      const { posted } = packGraph(layoutGraph(this.compiled.of, new Set(req.expanded)));
      this.receive({ type: 'layout', revision: this.compiled.revision, graph: posted });
    }
  }
}

/** Once the page has drawn the result, it asks for the DAG's layout. */
const layoutAsked = (worker: HeldWorker) => vi.waitFor(() => expect(worker.pending()).toContain('layout'));

/** Answers everything asked so far, the layout the page asks for after drawing a result included. */
async function answerAll(worker: HeldWorker) {
  worker.answer();
  await layoutAsked(worker);
  while (worker.pending().length > 0) worker.answer();
}

function open(design: Design) {
  const worker = new HeldWorker();
  const store = createAppStore(design, (receive) => {
    worker.receive = receive;
    return worker;
  });
  store.computeNow();
  return { store, worker };
}

/** Lane labels say which design a DAG is of: 1F1B and its 8-stage interleaved variant differ. */
const lanesOf = (store: ReturnType<typeof open>['store']) =>
  store.getState().graph?.lanes.flatMap((l) => l.rows.map((r) => r.label));

describe('replies of a design opened over', () => {
  test('a DAG layout still in the worker when another design opens is dropped, not shown beside it', async () => {
    const { store, worker } = open(example('1f1b-p4-m8'));
    worker.answer();
    await layoutAsked(worker);
    const other = example('interleaved-1f1b-p4-v2-m8');
    store.getState().dispatch(openDesignAction, { design: other });
    // The previous design's figures and timeline go with it.
    expect(store.getState().result).toBeNull();
    // Its layout, asked for before the open, arrives now.
    while (worker.pending()[0] !== 'compute') worker.answer();
    expect(store.getState().graph).toBeNull();
    worker.answer();
    expect(store.getState().result?.simulation.devices).toHaveLength(4);
    // The new result's DAG is shown only once its own layout arrives.
    expect(store.getState().graph).toBeNull();
    await layoutAsked(worker);
    while (worker.pending().length > 0) worker.answer();
    const expected = open(other);
    await answerAll(expected.worker);
    const before = open(example('1f1b-p4-m8'));
    await answerAll(before.worker);
    expect(lanesOf(store)).toEqual(lanesOf(expected.store));
    expect(lanesOf(store)).not.toEqual(lanesOf(before.store));
    expect(store.getState().graphRevision).toBe(store.getState().resultRevision);
  });

  test('a compute reply for the design before is dropped; a new design that fails shows no old result', () => {
    const { store, worker } = open(example('1f1b-p4-m8'));
    const broken = {
      ...example('1f1b-p4-m8'),
      directives: [{ op: 'schedule', builder: 'no-such-builder', microbatches: 8 }],
    } as unknown as Design;
    store.getState().dispatch(openDesignAction, { design: broken });
    worker.answer();
    expect(store.getState().result).toBeNull();
    worker.answer();
    expect(store.getState().status).toBe('error');
    expect(store.getState().result).toBeNull();
    // Nor when the design before had its result on screen.
    store.getState().dispatch(openDesignAction, { design: example('gpipe-p4-m8') });
    worker.answer();
    expect(store.getState().result).not.toBeNull();
    store.getState().dispatch(openDesignAction, { design: broken });
    worker.answer();
    expect(store.getState().status).toBe('error');
    expect(store.getState().result).toBeNull();
    expect(store.getState().errors.length).toBeGreaterThan(0);
  });
});
