/**
 * "Measured…" in the timeline's tool row, beside the drop target: a file input (several files at
 * once: one trace per rank) that brings measured traces to set beside the prediction. A label, so
 * it is reachable and named for keyboards and screen readers alike.
 */
import { bringBrowserFiles } from './measuredFiles.ts';

export function MeasuredOpen() {
  return (
    <label className="measured-open" title="Measured traces (one per rank) to set beside the prediction">
      Measured…
      <input
        type="file"
        multiple
        accept=".json,application/json"
        data-testid="measured-input"
        aria-label="Measured traces"
        onChange={(e) => {
          const input = e.currentTarget;
          void bringBrowserFiles(input.files).then(() => {
            input.value = '';
          });
        }}
      />
    </label>
  );
}
