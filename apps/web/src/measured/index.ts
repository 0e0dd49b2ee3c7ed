/**
 * The measured overlay (issue 21 part 3): traces brought with "Measured…" in the timeline's tool
 * row or dropped on the timeline, drawn under the prediction on one time axis, with the divergence list
 * and "Apply calibration". The logic is core/measuredOverlay.ts's (run in the compile worker).
 *
 * Stable hooks: `data-testid="measured-input"` (the file input), `measured-pane`, `measured-lanes`
 * (a Gantt whose ops carry data-op-id), `measured-step` (`data-measured-ms`, `data-predicted-ms`),
 * `divergences` with one `divergence` row per instruction (`data-op-id`, `data-device`),
 * `apply-calibration`, `measured-clear`.
 */
export { MeasuredDrop } from './MeasuredDrop.tsx';
export { MeasuredOpen } from './MeasuredOpen.tsx';
export { MeasuredPane } from './MeasuredPane.tsx';
