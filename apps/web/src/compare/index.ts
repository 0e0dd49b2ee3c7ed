/**
 * `<ComparePanel variants={[{ id, name, sim, plan }, …]} />`: up to four variants, the first the
 * baseline. Root `data-testid="compare"`; the table is `data-testid="compare-table"` with a row
 * per metric (`tr[data-metric="step"|"bubble"|"bubble-ideal"|"exposed-comm"|"peak-memory"|"peak-memory-<device>"|"tokens"]`)
 * and a cell per variant (`td[data-variant=<id>]`) whose `data-verdict` is `baseline`, `better`,
 * `worse`, `same` or `missing`. Each variant's timeline is a `<Gantt>` (data-testid="gantt")
 * inside `figure[data-variant=<id>]`, all on one time axis with zoom and pan shared.
 */
export { ComparePanel, type ComparePanelProps, type CompareVariant } from './ComparePanel.tsx';
export {
  compareRows,
  MAX_VARIANTS,
  type MetricCell,
  type MetricRow,
  type Verdict,
} from './compareMetrics.ts';
