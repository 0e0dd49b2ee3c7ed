/**
 * The timeline's React side of its controllers (controllers.ts): the marks they set (hover, drop
 * target, drag, range), the `live` view they read, and the effects that repaint, re-clamp, reveal
 * and rebuild the hit layer when what they draw changes.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { afterPaint } from './afterPaint.ts';
import { createControllers } from './controllers.ts';
import { useElementWidth } from './elementWidth.ts';
import type { Flow } from './flows.ts';
import type { DragMark } from './GanttMarks.tsx';
import { AXIS_HEIGHT, type GanttLayout } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import type { GanttLive, GanttProps } from './props.ts';

interface Shown {
  layout: GanttLayout;
  pending: boolean;
  planIndex: PlanIndex;
  mode: 'svg' | 'canvas';
  domainMs: number;
  flows: readonly Flow[];
}

export function useGanttControllers(props: GanttProps, shown: Shown) {
  const [, setFrame] = useState(0);
  const [hover, setHover] = useState(-1);
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

  // Until the element's width is known nothing is drawn, so the first frame is not drawn twice.
  const measured = useElementWidth(() => c.el.root.current, props.width);
  const width = props.width ?? measured ?? 960;
  const ready = props.width !== undefined || measured !== null;
  // The step before, shown while a big one is laid out, takes no moves or drops: they would be
  // checked against the new result.
  const liveProps = shown.pending ? { ...props, onReorder: undefined, onDropPaletteItem: undefined } : props;
  const { layout, planIndex, mode, domainMs, flows } = shown;
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
  useDrawingEffects(c, live, props, { ...shown, width, ready }, revealOp);

  const hoverAt = (index: number) => {
    if (index === live.current?.hover) return;
    setHover(index);
    props.onHover?.(layout.ops[index]?.ev ?? null);
  };
  return { c, width, ready, hover, hoverAt, dropTarget, dragMark, moveDevice, range, revealOp };
}

function useDrawingEffects(
  c: ReturnType<typeof createControllers>,
  live: React.RefObject<GanttLive | null>,
  props: GanttProps,
  shown: Shown & { width: number; ready: boolean },
  revealOp: (id: string) => void,
): void {
  const { layout, width, ready, mode, domainMs, flows } = shown;
  const dropTarget = live.current?.dropTarget;
  const hover = live.current?.hover;
  useLayoutEffect(() => {
    c.painter.rendered();
    c.range.place();
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the width changes
  useEffect(() => c.panZoom.reclamp(), [width]);

  // Bound once per element and view sync; the controllers read `live`.
  useEffect(() => c.attach(props.viewSync), [c, props.viewSync]);

  // A new plan or width keeps the zoom but re-clamps it; the canvas repaints on every visual change:
  // a new layout in slices of rows over several tasks (a big one took 0.15–0.7 s in one), the
  // rest (selection, hover, arrows) at once. Marked in the commit that shows the layout, so the
  // page says it is painting from that commit on.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new layout, width or mode
  useLayoutEffect(() => c.painter.newLayout(), [layout, width, ready, mode, domainMs]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: paint reads `live`
  useEffect(() => {
    c.painter.paintChanges();
  }, [layout, width, ready, mode, props.selection, flows, dropTarget, hover, props.showArrows, domainMs]);

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
}
