/**
 * The planner: the per-device order that minimises the simulated step under a memory limit
 * (`searchOrder`), the Pareto front of layouts of a model on a cluster (`searchLayouts`), and a
 * design's step, bubble and memory against its microbatches or stages (`sweep`).
 */
export { LayoutRequestError, searchLayouts } from './layout/searchLayouts.ts';
export { searchOrder } from './order/searchOrder.ts';
export type * from './request.ts';
export { layoutSearchRequestSchema, memoryLimitSchema, orderSearchOptionsSchema } from './request.ts';
export { sweep } from './sweep.ts';
