/**
 * Gantt timelines of a simulated step, and reordering ops on them.
 *
 * `<Gantt sim plan … />` (props documented on GanttProps in Gantt.tsx):
 * - one band per device, one lane per stream (posted RECVs that overlap are packed into rows),
 *   a memory curve beneath each device with a dashed capacity line when `memoryCapacityBytes`
 *   gives one; idle compute spans (bubbles) hatched; overlapped pairs drawn as two halves with an
 *   outline; each op labelled with its microbatch; SEND→RECV arrows with `showArrows`.
 * - wheel zooms around the pointer; drag, shift+wheel or a horizontal wheel pans.
 * - SVG up to SVG_OP_LIMIT ops, a canvas beyond (same look; only the visible window is drawn and
 *   zoom/pan repaints without a React render).
 *
 * Stable hooks:
 * - the root has `data-testid="gantt"` and `data-render="svg"|"canvas"`; in SVG mode every op is
 *   a `<g data-op-id="<instruction id>">`. In canvas mode the `data-testid="gantt-hit-layer"`
 *   element holds one transparent `<div data-op-id>` per op of the visible window once zoom or
 *   pan settles, as long as at most OVERLAY_OP_LIMIT ops are visible; otherwise use the handle.
 * - `rootElement.stagecraftGantt` (GanttHandle): `locate(id)` → client rect of an op, `opAt(x, y)`,
 *   `zoomTo(t0Ms, t1Ms)`, `window()`. Bubbles are `[data-bubble-device]` with data-start-ms and
 *   data-end-ms (SVG); the refusal is `data-testid="gantt-refusal"`, hover details
 *   `data-testid="gantt-tooltip"`.
 * - drag an op onto another op of the same device: `onReorder({op, target, position})`; feed it to
 *   `moveOp(design, compiled, move)` and pass the refusal reason back as `refusal`.
 * - HTML5 drop of `PALETTE_DRAG_TYPE` data onto an op: `onDropPaletteItem(item, op)`.
 * - `measureFrames`: frame intervals and redraw durations while zooming or panning collect in
 *   `window.__stagecraftGanttFrames` ({ intervals, draws, gestures }; reset it by assigning
 *   undefined).
 */
export { OP_COLORS, opColor } from './colors.ts';
export type { GanttFrames } from './frameMeter.ts';
export {
  Gantt,
  type GanttHandle,
  type GanttProps,
  OVERLAY_OP_LIMIT,
  PALETTE_DRAG_TYPE,
  SVG_OP_LIMIT,
} from './Gantt.tsx';
export { type GanttLayout, type IdleSpan, idleSpans, layoutGantt } from './layout.ts';
export { type CompiledDesign, type MoveResult, moveOp, type OpMove } from './reorder.ts';
export { createViewSync, type SharedTransform, type ViewSync } from './viewSync.ts';
