/** A simulation worker of the layout search: evaluates one layout's design at a time, on its own evaluator. */
import { parentPort } from 'node:worker_threads';
import { LayoutEvaluator } from '../layoutEvaluation.ts';
import type { PoolReply, PoolRequest } from './simulationPool.ts';

const evaluator = new LayoutEvaluator();
const port = parentPort;
if (!port) throw new Error('layoutWorker.ts runs as a worker thread');
port.on('message', (m: PoolRequest) => {
  let reply: PoolReply;
  try {
    reply = { id: m.id, evaluation: evaluator.evaluate(m.design) };
  } catch (e) {
    // A compiler bug on one layout costs that layout, not the search.
    reply = {
      id: m.id,
      evaluation: { ok: false, reason: `internal: ${e instanceof Error ? e.message : String(e)}` },
    };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
