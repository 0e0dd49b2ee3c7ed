/**
 * The thread one layout search runs on (planJobs.ts starts it): the planner's search with the
 * request's budget, its progress posted as it goes, a cancel aborting it so it hands over the
 * front found so far. At the lowest CPU priority (set by planWorkerEntry.mjs before anything
 * loads), so compiles come first on a busy machine.
 */
import { parentPort } from 'node:worker_threads';
import { type LayoutSearchRequest, searchLayouts } from '@stagecraft/planner';
import type { FromPlanWorker, PlanRequest, ToPlanWorker } from './planProtocol.ts';

const GIB = 2 ** 30;
/** How often progress is posted at most: a poll every half second reads it, and no more is needed. */
const PROGRESS_EVERY_MS = 200;

const controller = new AbortController();
let started = false;

function post(m: FromPlanWorker): void {
  parentPort!.postMessage(m);
}

parentPort!.on('message', (m: ToPlanWorker) => {
  if (m.type === 'cancel') controller.abort();
  else if (!started) {
    started = true;
    void search(m.request);
  }
});

async function search(request: PlanRequest): Promise<void> {
  const planned: LayoutSearchRequest = {
    design: request.design,
    budgetMs: request.budgetS * 1000,
    ...(request.maxMemoryGiB !== undefined ? { maxMemoryBytes: request.maxMemoryGiB * GIB } : {}),
    ...(request.globalBatch !== undefined ? { globalBatch: request.globalBatch } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
  };
  let postedAt = 0;
  post({ type: 'started' });
  try {
    const result = await searchLayouts(planned, {
      signal: controller.signal,
      // One thread: the search already runs beside the compile workers on a shared machine.
      workers: 0,
      onProgress(progress) {
        const now = Date.now();
        if (now - postedAt < PROGRESS_EVERY_MS) return;
        postedAt = now;
        post({ type: 'progress', progress });
      },
    });
    const best = result.front.indexOf(result.best);
    post({
      type: 'done',
      result: {
        front: result.front,
        best: best >= 0 ? best : null,
        spaceSize: result.spaceSize,
        tried: result.tried,
        pruned: result.pruned,
        stoppedEarly: result.stoppedEarly,
      },
    });
  } catch (e) {
    const issue = issueOf(e);
    if (issue) post({ type: 'refused', ...issue });
    else post({ type: 'failed', message: e instanceof Error ? e.message : String(e) });
  }
}

/** An error the planner raises about the request carries its issues (path and message): the user's to fix. */
function issueOf(e: unknown): { path: string; message: string } | undefined {
  const issues = (e as { issues?: unknown })?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const first = issues[0] as { path?: unknown; message?: unknown };
  if (typeof first.path !== 'string' || typeof first.message !== 'string') return undefined;
  return { path: first.path, message: first.message };
}
