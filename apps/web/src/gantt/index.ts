/**
 * Gantt timelines of a simulated step: layout, painting and hit-testing. The edit a reorder drag
 * stands for is core/reorder.ts's; this folder only reports the gesture.
 *
 * `<Gantt sim plan … />` (props documented on GanttProps in props.ts):
 * - one band per device, one lane per stream (posted RECVs that overlap are packed into rows),
 *   a memory curve beneath each device with a dashed capacity line when `memoryCapacityBytes`
 *   gives one; idle compute spans (bubbles) hatched; overlapped pairs drawn as two halves with an
 *   outline; each op labelled with its microbatch; SEND→RECV arrows with `showArrows`.
 * - a click selects an op (`selection`, `onSelect`); with `selectionPanel` its details stay in a
 *   panel (`data-testid="selection-details"`) and its SEND→RECV flows are drawn in red (their
 *   pairs listed in the root's `data-flows`, "send>recv" separated by spaces).
 * - a drag on the time axis row marks a range: its duration and the bubble inside it show at its
 *   top (`data-testid="gantt-range"` with `data-duration-ms`, `data-idle-ms`, `data-bubble-ratio`);
 *   a click on the axis clears it. `reveal={{ id }}` zooms to an op and scrolls to its device.
 * - `collapsedStreams` folds those streams' lanes to a thin strip; `memoryCollapsed` drops the
 *   memory strips.
 * - wheel zooms around the pointer; drag (off the axis row), shift+wheel or a horizontal wheel pans; focused, + and −
 *   zoom, the arrow keys pan, 0 shows the whole step and Escape unselects. The time axis stays in
 *   view (sticky) when the lanes scroll.
 * - SVG up to SVG_OP_LIMIT ops, a canvas beyond (same look; only the visible window is drawn and
 *   zoom/pan repaints without a React render).
 *
 * Stable hooks:
 * - the root has `data-testid="gantt"`, `data-render="svg"|"canvas"`, `data-ops` and
 *   `data-makespan-ms` (both change when a new simulation is drawn), and `data-layout`: `pending`
 *   while a timeline of over SLICED_LAYOUT_EVENTS events is laid out over several tasks (what shows
 *   meanwhile is the step before, or its lanes alone), else `ready`; in SVG mode
 *   every op is a `<g data-op-id="<instruction id>" data-op data-device data-stream>` whose text
 *   is its microbatch label. In canvas mode the `data-testid="gantt-hit-layer"` element holds one
 *   transparent `<div data-op-id data-op>` per op of the visible window once zoom or pan settles,
 *   as long as at most OVERLAY_OP_LIMIT ops are visible (its `data-visible-ops` says how many, or `>2500`);
 *   `handle.reveal(id)` zooms until an op has one. Pointer gestures on those divs work as on SVG.
 * - `rootElement.stagecraftGantt` (GanttHandle): `locate(id)` → client rect of an op, `opAt(x, y)`,
 *   `zoomTo(t0Ms, t1Ms)`, `reveal(id)`, `window()`, `render`.
 * - bubbles are `[data-bubble-device]` with `data-start-ms` / `data-end-ms` (SVG); the memory
 *   strip's peak is `[data-peak-bytes]`; the refusal is `data-testid="gantt-refusal"` (role alert);
 *   hover details `data-testid="gantt-tooltip"` (with `data-tooltip-op`); the insertion mark while
 *   dragging an op `data-testid="gantt-insert-mark"` (`data-position`, `data-target`).
 * - dragging an op (pointer down on it, move, release on another op) calls
 *   `onReorder({ op, target, position })`, position by which half of the target the pointer is
 *   released over. Feed it to core's `moveOp(design, compiled, move)` and pass `reason` back as `refusal`
 *   (clear it on success). Without `onReorder`, a drag from an op pans. moveOp returns the very
 *   same design object when the op already sits there.
 * - HTML5 drop of PALETTE_DRAG_TYPE (`application/x-stagecraft-palette`, data = item name) onto
 *   an op calls `onDropPaletteItem(item, op)`; the op under the pointer is outlined meanwhile.
 * - frame times: with `measureFrames`, or whenever `window.__stagecraftGanttFrames` exists (a
 *   benchmark can set it to `{ intervals: [], draws: [], gestures: 0 }` from outside), every
 *   animation frame that redrew during a zoom or pan records the time to the next frame in
 *   `intervals` and the redraw's own cost in `draws`. Pan with real input (Playwright's mouse:
 *   drag on any background below the axis row, or shift+wheel) after zooming in (`zoomTo`), then
 *   read the arrays; 60 fps means intervals of about 16.7 ms.
 */
export { OP_COLORS, opColor } from './colors.ts';
export type { GanttFrames } from './frameMeter.ts';
export { Gantt, SVG_OP_LIMIT } from './Gantt.tsx';
export { GanttLegend } from './GanttLegend.tsx';
export { OVERLAY_OP_LIMIT } from './hitLayer.ts';
export { type GanttLayout, type IdleSpan, idleSpans, layoutGantt } from './layout.ts';
export { findOps, type OpHit } from './opSearch.ts';
export { PALETTE_DRAG_TYPE } from './paletteDrop.ts';
export type { GanttProps } from './props.ts';
export type { GanttHandle } from './testHandle.ts';
export { meshGroupOf, planOutline, type TimelinePlan } from './timelinePlan.ts';
export { createViewSync, type SharedTransform, type ViewSync } from './viewSync.ts';
