/**
 * The timeline as SVG, one element per op carrying `data-op-id`, for plans small enough that the
 * DOM stays light: the marks of scene.ts as elements, so it looks as the canvas does (canvasPaint.ts).
 */
import { BUBBLE_FILL, GUTTER_FILL, STEP_END, TEXT_MUTED, TEXT_SECONDARY } from './colors.ts';
import type { Flow } from './flows.ts';
import { AXIS_HEIGHT, type GanttLayout, GUTTER, opsInWindow } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import { bubbleBox, highlights, type Stretch, stepEndX, transferMarks } from './scene.ts';
import { SvgDefs, SvgGutter, SvgMemory, SvgOp, svgIds } from './svgParts.tsx';
import { axisTicks } from './ticks.ts';
import type { TimeView } from './view.ts';

interface Props {
  layout: GanttLayout;
  plan: PlanIndex;
  view: TimeView;
  selection: string | null;
  dropTarget: number;
  /** The hovered op: every op of its microbatch is outlined. */
  hover: number;
  showArrows: boolean;
  /** SEND→RECV flows of the selected op. */
  flows: readonly Flow[];
  /** Unique per mounted timeline, for the hatch pattern's id. */
  uid: string;
  /**
   * The group holding everything that moves with time. Ops are rendered one view's width beyond
   * each side of the window, so a pan can translate this group without a render until it goes
   * further than that.
   */
  panRef?: React.Ref<SVGGElement>;
}

/** Views' widths rendered beyond each side of the visible window. */
export const PAN_MARGIN_VIEWS = 1;

export function GanttSvg({
  layout,
  plan,
  view,
  selection,
  dropTarget,
  hover,
  showArrows,
  flows,
  uid,
  panRef,
}: Props) {
  const { width } = view;
  const ids = svgIds(uid);
  const extra = (view.t1 - view.t0) * PAN_MARGIN_VIEWS;
  const plotWidth = width - GUTTER;
  const stretch: Stretch = {
    t0: view.t0 - extra,
    t1: view.t1 + extra,
    x0: GUTTER - plotWidth,
    x1: width + plotWidth,
  };
  return (
    <svg width={width} height={layout.height} role="img" aria-label="per-device timeline">
      <SvgDefs ids={ids} width={width} height={layout.height} />
      <g clipPath={`url(#${ids.clip})`}>
        <g ref={panRef} data-pan="">
          <SvgAxis view={view} stretch={stretch} />
          <SvgBubbles layout={layout} view={view} stretch={stretch} hatch={ids.hatch} />
          {layout.lanes.flatMap((lane) =>
            opsInWindow(layout, lane, stretch.t0, stretch.t1).map((i) => (
              <SvgOp key={layout.ops[i]!.ev.id} o={layout.ops[i]!} view={view} plan={plan} />
            )),
          )}
          {highlights(layout, view, selection, dropTarget, hover).map((h, i) => (
            <rect
              // biome-ignore lint/suspicious/noArrayIndexKey: outlines have no identity of their own
              key={i}
              data-highlight={h.kind}
              x={h.x}
              y={h.y}
              width={h.w}
              height={h.h}
              fill="none"
              stroke={h.color}
              strokeWidth={2}
              strokeDasharray={h.dash.length > 0 ? h.dash.join(' ') : undefined}
              pointerEvents="none"
            />
          ))}
          {transferMarks(layout, plan, view, stretch, showArrows, flows).map((m) => (
            <line
              key={`${m.kind}${m.key}`}
              {...{ [`data-${m.kind}`]: m.key }}
              x1={m.x1}
              y1={m.y1}
              x2={m.x2}
              y2={m.y2}
              stroke={m.color}
              strokeWidth={m.width}
              markerEnd={`url(#${m.kind === 'flow' ? ids.flowHead : ids.arrow})`}
              pointerEvents="none"
            />
          ))}
          <SvgStepEnd layout={layout} view={view} />
          {layout.bands.map((band) =>
            band.memoryHeight === 0 ? null : (
              <SvgMemory
                key={`m${band.device}`}
                band={band}
                view={view}
                stretch={stretch}
                endMs={layout.makespanMs}
              />
            ),
          )}
        </g>
      </g>
      <rect x={0} y={0} width={GUTTER} height={layout.height} fill={GUTTER_FILL} />
      <clipPath id={ids.gutterClip}>
        <rect x={0} y={0} width={GUTTER - 3} height={layout.height} />
      </clipPath>
      {layout.bands.map((band) => (
        <SvgGutter key={`l${band.device}`} band={band} clip={ids.gutterClip} />
      ))}
    </svg>
  );
}

/** The time axis, over the whole stretch so it pans with the ops. */
function SvgAxis({ view, stretch }: { view: TimeView; stretch: Stretch }) {
  return (
    <>
      <line
        x1={stretch.x0}
        x2={stretch.x1}
        y1={AXIS_HEIGHT - 0.5}
        y2={AXIS_HEIGHT - 0.5}
        stroke={TEXT_MUTED}
      />
      <g fontSize={10} fill={TEXT_SECONDARY} textAnchor="middle">
        {axisTicks(view, 8, stretch.t0, stretch.t1).map((tick) => (
          <g key={tick.label}>
            <line x1={tick.x} x2={tick.x} y1={AXIS_HEIGHT - 5} y2={AXIS_HEIGHT} stroke={TEXT_MUTED} />
            <text x={tick.x} y={AXIS_HEIGHT / 2 - 2} dominantBaseline="central">
              {tick.label}
            </text>
          </g>
        ))}
      </g>
    </>
  );
}

function SvgBubbles({
  layout,
  view,
  stretch,
  hatch,
}: {
  layout: GanttLayout;
  view: TimeView;
  stretch: Stretch;
  hatch: string;
}) {
  return layout.bubbles.map((b, i) => {
    const box = bubbleBox(layout, view, i, stretch);
    if (!box) return null;
    return (
      <g
        key={`b${b.device}@${b.startMs}`}
        data-bubble-device={b.device}
        data-start-ms={b.startMs}
        data-end-ms={b.endMs}
      >
        <rect x={box.x} y={box.y} width={box.w} height={box.h} fill={BUBBLE_FILL} />
        <rect x={box.x} y={box.y} width={box.w} height={box.h} fill={`url(#${hatch})`} />
      </g>
    );
  });
}

function SvgStepEnd({ layout, view }: { layout: GanttLayout; view: TimeView }) {
  const x = stepEndX(layout, view);
  if (x === null) return null;
  return (
    <line
      data-step-end={layout.makespanMs}
      x1={x}
      x2={x}
      y1={AXIS_HEIGHT}
      y2={layout.height}
      stroke={STEP_END}
      strokeDasharray="2 3"
    />
  );
}
