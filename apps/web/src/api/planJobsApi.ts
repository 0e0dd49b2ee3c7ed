/**
 * The web app's client of the API's layout search (docs/api.md, `/api/plan-jobs`): start, read
 * progress and front, cancel. Answers are checked with zod; a failure is a message, never a throw.
 */
import type { Design } from '@stagecraft/ir';
import { z } from 'zod';
import type { PlanSearchRequest } from '../core/planForm.ts';
import { type ApiResult, request } from './designsApi.ts';

const progress = z.object({
  tried: z.number(),
  pruned: z.number(),
  frontSize: z.number(),
  elapsedMs: z.number(),
  timeLeftMs: z.number(),
});

const point = z.object({
  layout: z.record(z.string(), z.unknown()),
  design: z.unknown(),
  stepMs: z.number(),
  tokensPerSecPerGpu: z.number().optional(),
  peakMemoryBytes: z.number(),
  fits: z.boolean(),
});

const job = z.object({
  id: z.string(),
  status: z.enum(['running', 'cancelling', 'done', 'cancelled', 'failed']),
  budgetS: z.number(),
  progress,
  result: z
    .object({
      front: z.array(point),
      best: z.number().nullable(),
      spaceSize: z.number(),
      tried: z.number(),
      pruned: z.number(),
      stoppedEarly: z.boolean(),
    })
    .optional(),
  error: z.object({ path: z.string(), message: z.string() }).optional(),
});

export type PlanJob = z.infer<typeof job>;
export type PlanJobStatus = PlanJob['status'];
export type PlanProgress = z.infer<typeof progress>;
/** A point of the front; its design is checked (parseDesign) when it is opened. */
export type PlanPoint = z.infer<typeof point>;

export interface PlanJobsClient {
  start(design: Design, search: PlanSearchRequest): Promise<ApiResult<PlanJob>>;
  read(id: string): Promise<ApiResult<PlanJob>>;
  cancel(id: string): Promise<ApiResult<unknown>>;
}

export const planJobsApi: PlanJobsClient = {
  start: (design, search) => request('POST', '/api/plan-jobs', job, { design, ...search }),
  read: (id) => request('GET', `/api/plan-jobs/${encodeURIComponent(id)}`, job),
  cancel: (id) => request('DELETE', `/api/plan-jobs/${encodeURIComponent(id)}`, z.unknown()),
};
