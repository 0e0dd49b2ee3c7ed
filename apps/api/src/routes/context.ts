/** What every route is given: the parts the app was built from, with its limits settled. */
import type { DesignStore } from '../designStore.ts';
import type { Limits } from '../limits.ts';
import type { PlanJobs } from '../plan/planJobs.ts';
import type { CompilePool } from '../pool/compilePool.ts';
import type { ResultCache } from '../resultCache.ts';

export interface AppContext {
  store: DesignStore;
  pool: CompilePool;
  /** Layout searches, apart from the pool. */
  plans: PlanJobs;
  limits: Limits;
  cache: ResultCache;
  startedAt: number;
}
