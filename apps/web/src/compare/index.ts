/**
 * `<ComparePanel variants={[{ id, name, sim, plan }, …]} baseline={id} onBaseline onRename onRemove />`:
 * up to four variants, compared against `baseline` (default the first). Root
 * `data-testid="compare"`; the table is `data-testid="compare-table"` with a row per metric
 * (`tr[data-metric="step"|"bubble"|"bubble-ideal"|"exposed-comm"|"peak-memory"|"peak-memory-<device>"|"tokens"]`)
 * and a cell per variant (`td[data-variant=<id>]`) whose `data-verdict` is `baseline`, `better`,
 * `worse`, `same` or `missing`, with `data-best` on the best of its row. Each heading has
 * `rename-pin-<id>` (then the field `pin-name-<id>`) and the radio `baseline-<id>`. Each variant's timeline is a `<Gantt>` (data-testid="gantt")
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
