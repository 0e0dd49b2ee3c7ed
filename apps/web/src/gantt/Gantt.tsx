/**
 * Per-device timelines of a simulated step. The component holds what React renders (layout,
 * hover, marks) and wires up the framework-free controllers that do the rest: pan and zoom
 * (panZoom.ts), drawing between renders (painter.ts), the canvas's hit layer (hitLayer.ts), the
 * reorder drag (reorderDrag.ts), palette drops (paletteDrop.ts) and the scripting handle
 * (testHandle.ts). All gestures hit-test against the layout (geometry.ts), so SVG and canvas
 * behave the same.
 */
import { useId, useMemo, useState } from 'react';
import { formatCount } from '../core/format.ts';
import type { createControllers } from './controllers.ts';
import type { Flow } from './flows.ts';
import { flowsOf } from './flows.ts';
import { BubbleDetails, type DragMark, InsertMark, RefusalNote } from './GanttMarks.tsx';
import { GanttSvg } from './GanttSvg.tsx';
import { useGanttControllers } from './ganttControllers.ts';
import { formatMs } from './label.ts';
import { AXIS_HEIGHT, type GanttLayout, GUTTER, type PlacedOp } from './layout.ts';
import { OpDetails, SelectionDetails } from './OpDetails.tsx';
import type { PlanIndex } from './planIndex.ts';
import type { GanttProps } from './props.ts';
import { readRange } from './rangeReading.ts';
import { gutterTitle } from './scene.ts';
import { useTimelineLayout } from './timelineLayout.ts';
import { type TimeView, timeView } from './view.ts';

export { SVG_OP_LIMIT } from './timelineLayout.ts';

export function Gantt(props: GanttProps) {
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const { layout, pending, planIndex, mode, domainMs } = useTimelineLayout(props);
  const selection = props.selection ?? null;
  const flows = useMemo(() => flowsOf(layout, planIndex, selection), [layout, planIndex, selection]);
  const g = useGanttControllers(props, { layout, pending, planIndex, mode, domainMs, flows });
  const { c, width, ready, dragMark, range } = g;
  const [hoverBubble, setHoverBubble] = useState(-1);
  const { el } = c;

  const view = timeView(domainMs, width, GUTTER, c.geometry.transform);
  const selectedOp = selection === null ? undefined : layout.ops[layout.byId.get(selection) ?? -1];
  return (
    <>
      <div
        ref={el.root}
        data-testid="gantt"
        role="application"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a custom widget: the keyboard zooms and pans it
        tabIndex={0}
        aria-label="timelines of every device: Ctrl+wheel, + − or W S zoom, shift+wheel, arrow keys or A D pan, the wheel scrolls the devices, 0 shows the whole step"
        data-render={mode}
        data-ops={layout.ops.length}
        data-makespan-ms={layout.makespanMs}
        data-layout={pending ? 'pending' : 'ready'}
        aria-busy={pending}
        data-flows={flows.map(([a, b]) => `${a.ev.id}>${b.ev.id}`).join(' ')}
        className="stagecraft-gantt"
        style={{
          position: 'relative',
          width: props.width ?? '100%',
          height: layout.height,
          userSelect: 'none',
          cursor: dragMark ? 'grabbing' : 'default',
          touchAction: 'none',
        }}
        {...gestures(props, layout, c, g.hoverAt, hoverBubble, setHoverBubble)}
      >
        <GanttDrawing
          c={c}
          shown={{ layout, pending, planIndex, mode, domainMs, flows }}
          props={props}
          view={view}
          ready={ready}
          uid={uid}
          dropTarget={g.dropTarget}
          hover={g.hover}
          range={range}
        />
        <GanttOverlays
          props={props}
          layout={layout}
          planIndex={planIndex}
          view={view}
          width={width}
          dragMark={dragMark}
          hovered={layout.ops[g.hover]}
          hoverBubble={hoverBubble}
          moveDevice={g.moveDevice}
          root={el.root.current}
        />
      </div>
      {props.selectionPanel && selection !== null && selectedOp && (
        <SelectionDetails
          id={selection}
          op={selectedOp.ev}
          plan={planIndex}
          flows={flows.length}
          directiveLabel={props.directiveLabel}
          onClose={() => props.onSelect?.(null)}
          onReveal={() => g.revealOp(selection)}
        />
      )}
    </>
  );
}

/** The root's handlers: pointer gestures go to the controllers (a range, a drag), hovers and clicks to the props. */
function gestures(
  props: GanttProps,
  layout: GanttLayout,
  c: ReturnType<typeof createControllers>,
  hoverAt: (index: number) => void,
  hoverBubble: number,
  setHoverBubble: (index: number) => void,
) {
  const onPointerMove = (e: React.PointerEvent) => {
    if (c.drag.pressing) return;
    const index = c.geometry.opIndex(e.clientX, e.clientY);
    const bubble = index < 0 ? c.geometry.bubbleIndex(e.clientX, e.clientY) : -1;
    if (bubble !== hoverBubble) setHoverBubble(bubble);
    hoverAt(index);
    // The gutter's full text on hover (a canvas has no <title> per band).
    const root = c.el.root.current;
    if (root) {
      const band = c.geometry.gutterBand(e.clientX, e.clientY);
      const title = band ? gutterTitle(band) : '';
      if (root.title !== title) root.title = title;
    }
  };
  return {
    onPointerDown(e: React.PointerEvent) {
      if (!c.range.start(e)) c.drag.start(e);
    },
    onPointerMove(e: React.PointerEvent) {
      if (!c.range.move(e)) onPointerMove(e);
    },
    onPointerUp: () => c.range.end(),
    onPointerLeave() {
      setHoverBubble(-1);
      hoverAt(-1);
    },
    onClick(e: React.MouseEvent) {
      if (c.range.takeClick()) return;
      if (!c.drag.takeClick())
        props.onSelect?.(layout.ops[c.geometry.opIndex(e.clientX, e.clientY)]?.ev.id ?? null);
    },
    onKeyDown: (e: React.KeyboardEvent) => keyDown(e, c, props),
    onDragOver: (e: React.DragEvent) => c.paletteDrop.over(e),
    onDragLeave: (e: React.DragEvent) => c.paletteDrop.leave(e, c.el.root.current),
    onDrop: (e: React.DragEvent) => c.paletteDrop.drop(e),
  };
}

/** Keys: + − W S zoom around the centre, ← → A D pan, 0 shows the whole step, Escape unselects. */
function keyDown(e: React.KeyboardEvent, c: ReturnType<typeof createControllers>, props: GanttProps): void {
  // Ctrl+S, ⌘+D and the like stay the page's and the browser's.
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (c.panZoom.key(e.key)) e.preventDefault();
  else if (e.key === 'Escape') {
    props.onSelect?.(null);
    e.preventDefault();
  }
}

/** What the timeline draws: its SVG or canvas, the sticky axis, and the layers gestures use. */
function GanttDrawing({
  c,
  shown,
  props,
  view,
  ready,
  uid,
  dropTarget,
  hover,
  range,
}: {
  c: ReturnType<typeof createControllers>;
  shown: ReturnType<typeof useTimelineLayout> & { flows: readonly Flow[] };
  props: GanttProps;
  view: TimeView;
  ready: boolean;
  uid: string;
  dropTarget: number;
  hover: number;
  range: [number, number] | null;
}) {
  const { layout, pending, planIndex, mode, flows } = shown;
  const { el } = c;
  const { sim } = props;
  const selection = props.selection ?? null;
  return (
    <>
      {pending && (
        <p className="gantt-pending" data-testid="gantt-pending" role="status">
          drawing {formatCount(sim.timeline?.length ?? 0)} ops…
        </p>
      )}
      {sim.timeline === undefined && (
        <p style={{ position: 'absolute', left: GUTTER, top: 24, margin: 0 }}>
          No timeline in this simulation.
        </p>
      )}
      <div aria-hidden="true" style={STICKY_AXIS}>
        {ready && <canvas ref={el.axis} style={{ display: 'block' }} />}
      </div>
      {!ready ? null : mode === 'svg' ? (
        <GanttSvg
          layout={layout}
          plan={planIndex}
          view={view}
          selection={selection}
          dropTarget={dropTarget}
          hover={hover}
          showArrows={props.showArrows ?? false}
          flows={flows}
          uid={uid}
          panRef={el.panGroup}
        />
      ) : (
        <>
          {/* The canvas covers only the rows in view; this keeps the full height scrollable. */}
          <div style={{ height: layout.height }} />
          <canvas ref={el.canvas} style={{ display: 'block', position: 'absolute', left: 0, top: 0 }} />
        </>
      )}
      {/* Contained, its thousand elements are painted apart from the page's changes. It spans the
          whole content, not the scrolled box: containment clips what lies outside it. */}
      <div ref={el.hitLayer} data-testid="gantt-hit-layer" style={{ ...HIT_LAYER, height: layout.height }} />
      <div ref={el.ghost} data-testid="gantt-drag-ghost" style={DRAG_GHOST} />
      <div ref={el.range} style={{ ...RANGE, height: layout.height }}>
        {range && <RangeLabel reading={readRange(layout, props.plan, range[0], range[1])} />}
      </div>
    </>
  );
}

/** What the timeline lays over its drawing: a drag's insertion mark, the hovered op's or bubble's details, a refused move. */
function GanttOverlays({
  props,
  layout,
  planIndex,
  view,
  width,
  dragMark,
  hovered,
  hoverBubble,
  moveDevice,
  root,
}: {
  props: GanttProps;
  layout: GanttLayout;
  planIndex: PlanIndex;
  view: TimeView;
  width: number;
  dragMark: DragMark | null;
  hovered: PlacedOp | undefined;
  hoverBubble: number;
  moveDevice: number | null;
  root: HTMLDivElement | null;
}) {
  const refusalBand = layout.bands.find((b) => b.device === moveDevice) ?? layout.bands[0];
  return (
    <>
      {dragMark && <InsertMark layout={layout} view={view} mark={dragMark} />}
      {!hovered && !dragMark && layout.bubbles[hoverBubble] && (
        <BubbleDetails layout={layout} view={view} index={hoverBubble} />
      )}
      {hovered && !dragMark && (
        <OpDetails
          op={hovered.ev}
          plan={planIndex}
          view={view}
          layout={layout}
          directiveLabel={props.directiveLabel}
          visibleBottom={root && root.clientHeight > 0 ? root.scrollTop + root.clientHeight : undefined}
        />
      )}
      {props.refusal && refusalBand && (
        <RefusalNote
          text={props.refusal}
          top={refusalBand.top}
          width={width}
          onDismiss={props.onDismissRefusal}
        />
      )}
    </>
  );
}

/** Duration of the marked range and the bubble inside it, at the top of the range's overlay. */
function RangeLabel({ reading }: { reading: ReturnType<typeof readRange> }) {
  return (
    <div
      className="gantt-range-label"
      data-testid="gantt-range"
      data-duration-ms={reading.durationMs}
      data-idle-ms={reading.idleMs}
      data-bubble-ratio={reading.bubbleRatio}
    >
      {formatMs(reading.durationMs)} · bubble {(reading.bubbleRatio * 100).toFixed(1)}% (
      {formatMs(reading.idleMs)} idle over {reading.devices} devices)
    </div>
  );
}

const STICKY_AXIS: React.CSSProperties = {
  position: 'sticky',
  top: 0,
  height: AXIS_HEIGHT,
  marginBottom: -AXIS_HEIGHT,
  zIndex: 1,
  pointerEvents: 'none',
};
const HIT_LAYER: React.CSSProperties = {
  position: 'absolute',
  left: 0,
  top: 0,
  right: 0,
  pointerEvents: 'none',
  contain: 'strict',
};
const RANGE: React.CSSProperties = {
  display: 'none',
  position: 'absolute',
  top: 0,
  background: 'rgba(47, 111, 222, 0.10)',
  borderLeft: '1px solid rgba(47, 111, 222, 0.7)',
  borderRight: '1px solid rgba(47, 111, 222, 0.7)',
  pointerEvents: 'none',
  zIndex: 1,
};
const DRAG_GHOST: React.CSSProperties = {
  display: 'none',
  position: 'absolute',
  left: 0,
  top: 0,
  opacity: 0.6,
  outline: '1px solid #212529',
  pointerEvents: 'none',
  zIndex: 2,
};
