/**
 * The planner tab (issue 31 §3): the layout search on the API (`/api/plan-jobs`) with its progress
 * and front, and the sweep of the current design against m or p.
 *
 * Stable hooks: `planner-pane`; the search's `plan-max-memory`, `plan-global-batch`, `plan-budget`,
 * `plan-start`, `plan-cancel`, `plan-progress` (`data-status`), `plan-tried`, `plan-pruned`,
 * `plan-front-size`, `plan-time-left`, `plan-error`; the front's `front-plot` with one
 * `front-point` per layout (`data-index`), `front-tip`, `plan-front` with `plan-front-row`s,
 * `plan-selected` with `plan-open` and `plan-pin`; the sweep's `sweep-axis`, `sweep-values`,
 * `sweep-run`, `sweep-plot`.
 */
export { PlannerPane } from './PlannerPane.tsx';
