/**
 * Per-device timelines of a simulated step. The component holds what React renders (layout,
 * hover, marks) and wires up the framework-free controllers that do the rest: pan and zoom
 * (panZoom.ts), drawing between renders (painter.ts), the canvas's hit layer (hitLayer.ts), the
 * reorder drag (reorderDrag.ts), palette drops (paletteDrop.ts) and the scripting handle
 * (testHandle.ts). All gestures hit-test against the layout (geometry.ts), so SVG and canvas
 * behave the same.
 */
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { afterPaint } from './afterPaint.ts';
import { createControllers } from './controllers.ts';
import { useElementWidth } from './elementWidth.ts';
import { flowsOf } from './flows.ts';
import { BubbleDetails, type DragMark, InsertMark, RefusalNote } from './GanttMarks.tsx';
import { GanttSvg } from './GanttSvg.tsx';
import { formatMs } from './label.ts';
import { AXIS_HEIGHT, GUTTER, layoutGantt, layoutSteps } from './layout.ts';
import { OpDetails, SelectionDetails } from './OpDetails.tsx';
import { indexPlan } from './planIndex.ts';
import type { GanttLive, GanttProps } from './props.ts';
import { readRange } from './rangeReading.ts';
import { useGanttLayout } from './slicedLayout.ts';
import { timeView } from './view.ts';

/**
 * Above this many ops the timeline draws on a canvas instead of one SVG element per op: a p=8,
 * m=32 step (1,416 ops) renders in about 4 ms on canvas against about 30 ms as SVG, which matters
 * for the 100 ms budget from an edit to the new timeline.
 */
export const SVG_OP_LIMIT = 1200;

export function Gantt(props: GanttProps) {
  const { sim, plan, memoryCapacityBytes } = props;
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const capKey = plan.devices.map((d) => memoryCapacityBytes?.(d.device) ?? '').join(',');
  // The outline a result arrives with and the whole plan that follows it lay a simulation out
  // alike: with the same simulation, only other lanes lay it out again.
  const laneKey = plan.devices
    .map((d) => `${d.device}:${d.stages.join(',')}:${d.streams.map((s) => s.stream).join(',')}`)
    .join(';');
  const collapsedStreams = props.collapsedStreams;
  const compact = props.compact === true;
  const collapseKey = `${[...(collapsedStreams ?? [])].join(',')}|${props.memoryCollapsed === true}|${props.memoryScaleBytes}|${compact}`;
  const layoutOptions = {
    memoryCapacityBytes,
    collapsedStreams,
    memoryCollapsed: props.memoryCollapsed,
    memoryScaleBytes: props.memoryScaleBytes,
    compact,
  };
  // The plan counts by its lanes (laneKey), capacities by value (capKey), folding and scale by
  // collapseKey. A big timeline is laid out over several tasks (slicedLayout.ts).
  const { layout, pending } = useGanttLayout(
    sim.timeline?.length ?? 0,
    () => layoutSteps(sim, plan, layoutOptions),
    // Its lanes, without the step-long bubble an empty timeline would give every device.
    () => ({ ...layoutGantt({ ...sim, timeline: [] }, plan, layoutOptions), bubbles: [], bubbleLane: [] }),
    [sim, laneKey, capKey, collapseKey],
  );
  const planIndex = useMemo(() => indexPlan(plan), [plan]);
  const selection = props.selection ?? null;
  const flows = useMemo(() => flowsOf(layout, planIndex, selection), [layout, planIndex, selection]);
  const mode: 'svg' | 'canvas' =
    props.render === 'svg' || props.render === 'canvas'
      ? props.render
      : // While a big timeline is laid out, the renderer its ops will need.
        (pending ? (sim.timeline?.length ?? 0) : layout.ops.length) > SVG_OP_LIMIT
        ? 'canvas'
        : 'svg';
  // The step of the layout shown (while a big one is laid out, the one before).
  const domainMs = props.domainMs ?? layout.makespanMs;

  const [, setFrame] = useState(0);
  const [hover, setHover] = useState(-1);
  const [hoverBubble, setHoverBubble] = useState(-1);
  const [dropTarget, setDropTarget] = useState(-1);
  const [dragMark, setDragMark] = useState<DragMark | null>(null);
  const [moveDevice, setMoveDevice] = useState<number | null>(null);
  const [range, setRange] = useState<[number, number] | null>(null);

  // Everything the controllers read, kept current without re-binding them (set below, each render).
  const live = useRef<GanttLive | null>(null);
  const [c] = useState(() =>
    createControllers(() => live.current!, {
      renderNow: () => flushSync(() => setFrame((f) => f + 1)),
      render: () => setFrame((f) => f + 1),
      dragMark: (mark) =>
        setDragMark((old) => (old?.target === mark?.target && old?.position === mark?.position ? old : mark)),
      dropTarget: setDropTarget,
      moved(move, device) {
        setMoveDevice(device);
        live.current?.props.onReorder?.(move);
      },
      range: setRange,
    }),
  );
  const { el } = c;

  // Until the element's width is known nothing is drawn, so the first frame is not drawn twice.
  const measured = useElementWidth(() => el.root.current, props.width);
  const width = props.width ?? measured ?? 960;
  const ready = props.width !== undefined || measured !== null;
  // The step before, shown while a big one is laid out, takes no moves or drops: they would be
  // checked against the new result.
  const liveProps = pending ? { ...props, onReorder: undefined, onDropPaletteItem: undefined } : props;
  live.current = {
    props: liveProps,
    layout,
    planIndex,
    mode,
    domainMs,
    width,
    dropTarget,
    hover,
    flows,
    range,
  };

  useLayoutEffect(() => {
    c.painter.rendered();
    c.range.place();
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the width changes
  useEffect(() => c.panZoom.reclamp(), [width]);

  // Bound once per element and view sync; the controllers read `live`.
  useEffect(() => c.attach(props.viewSync), [c, props.viewSync]);

  // A new plan or width keeps the zoom but re-clamps it; the canvas repaints on every visual change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: paint reads `live`
  useEffect(() => {
    c.painter.paint();
  }, [layout, width, ready, mode, props.selection, flows, dropTarget, props.showArrows, domainMs]);

  // A search (or the details panel's "show") brings an op into view: zoomed to it and its device
  // scrolled to the middle of the pane.
  const revealOp = useCallback(
    (id: string) => {
      const root = c.el.root.current;
      const l = live.current;
      if (!root || !l || !c.panZoom.reveal(id)) return;
      const o = l.layout.ops[l.layout.byId.get(id) ?? -1];
      if (o && root.clientHeight > 0 && root.scrollHeight > root.clientHeight)
        root.scrollTop = Math.max(0, o.y - root.clientHeight / 2);
    },
    [c],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new request object asks again
  useEffect(() => {
    const r = props.reveal;
    if (!ready || !r) return;
    if ('id' in r) revealOp(r.id);
    else {
      // A device: its band scrolled to the top, under the axis.
      const root = c.el.root.current;
      const band = live.current?.layout.bands.find((b) => b.device === r.device);
      if (root && band) root.scrollTop = Math.max(0, band.top - AXIS_HEIGHT - 4);
    }
  }, [props.reveal, ready]);

  // The hit layer is invisible and only follows where ops are: it is rebuilt after the frame that
  // shows a new layout, so that frame does not also create, style and lay out an element per op.
  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuild reads `live`
  useEffect(() => afterPaint(() => c.hitLayer.rebuild()), [layout, width, ready, mode, domainMs]);

  const hoverAt = (index: number) => {
    if (index === live.current?.hover) return;
    setHover(index);
    props.onHover?.(layout.ops[index]?.ev ?? null);
  };

  const onPointerMove = (e: React.PointerEvent) => {
    if (c.drag.pressing) return;
    const index = c.geometry.opIndex(e.clientX, e.clientY);
    const bubble = index < 0 ? c.geometry.bubbleIndex(e.clientX, e.clientY) : -1;
    if (bubble !== hoverBubble) setHoverBubble(bubble);
    hoverAt(index);
  };

  /** Keys: + and − zoom around the centre, ← and → pan, 0 shows the whole step, Escape unselects. */
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (c.panZoom.key(e.key)) e.preventDefault();
    else if (e.key === 'Escape') {
      props.onSelect?.(null);
      e.preventDefault();
    }
  };

  const view = timeView(domainMs, width, GUTTER, c.geometry.transform);
  const hovered = layout.ops[hover];
  const refusalBand = layout.bands.find((b) => b.device === moveDevice) ?? layout.bands[0];
  const root = el.root.current;
  const selectedOp = selection === null ? undefined : layout.ops[layout.byId.get(selection) ?? -1];
  return (
    <>
      <div
        ref={el.root}
        data-testid="gantt"
        role="application"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a custom widget: the keyboard zooms and pans it
        tabIndex={0}
        aria-label="timelines of every device: + and − zoom, arrow keys pan, 0 shows the whole step"
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
        onPointerDown={(e) => {
          if (!c.range.start(e)) c.drag.start(e);
        }}
        onPointerMove={(e) => {
          if (!c.range.move(e)) onPointerMove(e);
        }}
        onPointerUp={() => c.range.end()}
        onPointerLeave={() => {
          setHoverBubble(-1);
          hoverAt(-1);
        }}
        onClick={(e) => {
          if (c.range.takeClick()) return;
          if (!c.drag.takeClick())
            props.onSelect?.(layout.ops[c.geometry.opIndex(e.clientX, e.clientY)]?.ev.id ?? null);
        }}
        onKeyDown={onKeyDown}
        onDragOver={(e) => c.paletteDrop.over(e)}
        onDragLeave={(e) => c.paletteDrop.leave(e, el.root.current)}
        onDrop={(e) => c.paletteDrop.drop(e)}
      >
        {pending && (
          <p className="gantt-pending" data-testid="gantt-pending" role="status">
            drawing {(sim.timeline?.length ?? 0).toLocaleString('en-US')} ops…
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
            selection={props.selection ?? null}
            dropTarget={dropTarget}
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
        <div
          ref={el.hitLayer}
          data-testid="gantt-hit-layer"
          style={{ ...HIT_LAYER, height: layout.height }}
        />
        <div ref={el.ghost} data-testid="gantt-drag-ghost" style={DRAG_GHOST} />
        <div ref={el.range} style={{ ...RANGE, height: layout.height }}>
          {range && <RangeLabel reading={readRange(layout, range[0], range[1])} />}
        </div>
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
      </div>
      {props.selectionPanel && selection !== null && selectedOp && (
        <SelectionDetails
          id={selection}
          op={selectedOp.ev}
          plan={planIndex}
          flows={flows.length}
          directiveLabel={props.directiveLabel}
          onClose={() => props.onSelect?.(null)}
          onReveal={() => revealOp(selection)}
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
