/**
 * The layout search as a job (docs/api.md): `POST /api/plan-jobs` starts one and answers 202 with
 * its id at once; `GET /api/plan-jobs/:id` gives its progress and, once it stopped, its front;
 * `DELETE` cancels a running one (it keeps its front so far) or forgets a finished one. Searches
 * run on threads of their own (plan/planJobs.ts), never in the compile pool.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import {
  compilableDesign,
  DEFAULT_PLAN_BUDGET_S,
  parseBody,
  planJobBodySchema,
  planJobId,
} from '../schemas.ts';
import type { AppContext } from './context.ts';

export function planJobRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/plan-jobs', async (req, reply) => {
    const body = parseBody(planJobBodySchema, req.body);
    const design = compilableDesign(body.design, ctx.limits.maxOps);
    const budgetS = body.budgetS ?? DEFAULT_PLAN_BUDGET_S;
    if (budgetS > ctx.limits.planBudgetS) {
      throw new ApiError(400, {
        path: 'budgetS',
        message: `${budgetS} s is longer than this server's longest search, ${ctx.limits.planBudgetS} s`,
      });
    }
    const started = ctx.plans.start({
      design,
      budgetS,
      ...(body.maxMemoryGiB !== undefined ? { maxMemoryGiB: body.maxMemoryGiB } : {}),
      ...(body.globalBatch !== undefined ? { globalBatch: body.globalBatch } : {}),
      ...(body.seed !== undefined ? { seed: body.seed } : {}),
    });
    if (!started.ok) throw new ApiError(started.status, started.issue, started.retryAfterS);
    return reply.code(202).header('location', `/api/plan-jobs/${started.job.id}`).send(started.job);
  });

  app.get<{ Params: { id: string } }>('/api/plan-jobs/:id', async (req) => {
    const id = planJobId(req.params.id);
    const job = ctx.plans.get(id);
    if (!job) throw notFound(id);
    return job;
  });

  app.delete<{ Params: { id: string } }>('/api/plan-jobs/:id', async (req, reply) => {
    const id = planJobId(req.params.id);
    const out = ctx.plans.cancel(id);
    if (out === undefined) throw notFound(id);
    if (out === 'forgotten') return reply.code(204).send();
    return reply.code(202).send(out);
  });
}

function notFound(id: string): ApiError {
  return new ApiError(404, {
    path: 'id',
    message: `no plan job ${id}: it never existed, or it finished long enough ago to be forgotten`,
  });
}
