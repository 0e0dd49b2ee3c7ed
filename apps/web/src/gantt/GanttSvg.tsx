/**
 * The timeline as SVG, one element per op carrying `data-op-id`, for plans small enough that the
 * DOM stays light. Looks the same as canvasPaint.ts: same layout, colours and labels.
 */
import {
  GUTTER_LINE,
  gutterLines,
  LANE_LABEL_MIN,
  labelOf,
  memoryLabels,
  thinBand,
  visibleTransfers,
} from './canvasPaint.ts';
import {
  ARROW,
  BUBBLE_FILL,
  BUBBLE_HATCH,
  CAPACITY_LINE,
  DROP_OUTLINE,
  FLOW,
  labelColor,
  MEMORY_FILL,
  MEMORY_LINE,
  OOM_FILL,
  OVERLAP_OUTLINE,
  opColor,
  SELECTION_OUTLINE,
  STEP_END,
} from './colors.ts';
import type { Flow } from './flows.ts';
import { memberOp } from './label.ts';
import { AXIS_HEIGHT, type GanttLayout, GUTTER, memoryY, opsInWindow, type PlacedOp } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import { axisTicks } from './ticks.ts';
import type { TimeView } from './view.ts';

interface Props {
  layout: GanttLayout;
  plan: PlanIndex;
  view: TimeView;
  selection: string | null;
  dropTarget: number;
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
  showArrows,
  flows,
  uid,
  panRef,
}: Props) {
  const { width } = view;
  const clip = `gantt-clip-${uid}`;
  const hatch = `gantt-hatch-${uid}`;
  const arrow = `gantt-arrow-${uid}`;
  const flowHead = `gantt-flow-${uid}`;
  const visible: number[] = [];
  const extra = (view.t1 - view.t0) * PAN_MARGIN_VIEWS;
  const w0 = view.t0 - extra;
  const w1 = view.t1 + extra;
  const plotWidth = width - GUTTER;
  for (const lane of layout.lanes) visible.push(...opsInWindow(layout, lane, w0, w1));
  const selected = selection === null ? -1 : (layout.byId.get(selection) ?? -1);
  return (
    <svg width={width} height={layout.height} role="img" aria-label="per-device timeline">
      <defs>
        <clipPath id={clip}>
          <rect x={GUTTER} y={0} width={Math.max(0, width - GUTTER)} height={layout.height} />
        </clipPath>
        <pattern id={hatch} width={6} height={6} patternUnits="userSpaceOnUse">
          <path d="M0,6 L6,0" stroke={BUBBLE_HATCH} strokeWidth={1} />
        </pattern>
        <marker id={arrow} viewBox="0 0 6 6" refX={6} refY={3} markerWidth={6} markerHeight={6} orient="auto">
          <path d="M0,0 L6,3 L0,6 z" fill={ARROW} />
        </marker>
        <marker
          id={flowHead}
          viewBox="0 0 6 6"
          refX={6}
          refY={3}
          markerWidth={4}
          markerHeight={4}
          orient="auto"
        >
          <path d="M0,0 L6,3 L0,6 z" fill={FLOW} />
        </marker>
      </defs>
      <g clipPath={`url(#${clip})`}>
        <g ref={panRef} data-pan="">
          <line
            x1={GUTTER - plotWidth}
            x2={width + plotWidth}
            y1={AXIS_HEIGHT - 0.5}
            y2={AXIS_HEIGHT - 0.5}
            stroke="#868e96"
          />
          <g fontSize={10} fill="#495057" textAnchor="middle">
            {axisTicks(view, 8, w0, w1).map((tick) => (
              <g key={tick.label}>
                <line x1={tick.x} x2={tick.x} y1={AXIS_HEIGHT - 5} y2={AXIS_HEIGHT} stroke="#868e96" />
                <text x={tick.x} y={AXIS_HEIGHT / 2 - 2} dominantBaseline="central">
                  {tick.label}
                </text>
              </g>
            ))}
          </g>
          {layout.bubbles.map((b, i) => {
            const lane = layout.lanes[layout.bubbleLane[i]!];
            if (!lane || b.endMs < w0 || b.startMs > w1) return null;
            const x = view.x(b.startMs);
            const w = view.x(b.endMs) - x;
            return (
              <g
                key={`b${b.device}@${b.startMs}`}
                data-bubble-device={b.device}
                data-start-ms={b.startMs}
                data-end-ms={b.endMs}
              >
                <rect x={x} y={lane.top} width={w} height={lane.height} fill={BUBBLE_FILL} />
                <rect x={x} y={lane.top} width={w} height={lane.height} fill={`url(#${hatch})`} />
              </g>
            );
          })}
          {visible.map((i) => {
            const o = layout.ops[i]!;
            const x = view.x(o.ev.startMs);
            const w = Math.max(1, view.x(o.ev.endMs) - x - (o.ev.endMs > o.ev.startMs ? 0.5 : 0));
            const h = Math.max(1, o.h - 1);
            const members = o.ev.members;
            const text = w >= 14 && h >= 10 ? labelOf(o.ev, plan) : '';
            if (!members && !text) {
              // One element for an unlabelled op: zoomed out, that is most of them.
              return (
                <rect
                  key={o.ev.id}
                  data-op-id={o.ev.id}
                  data-op={o.ev.op}
                  data-device={o.ev.device}
                  data-stream={o.ev.stream}
                  x={x}
                  y={o.y}
                  width={w}
                  height={h}
                  fill={opColor(o.ev.op, o.chunk)}
                />
              );
            }
            return (
              <g
                key={o.ev.id}
                data-op-id={o.ev.id}
                data-op={o.ev.op}
                data-device={o.ev.device}
                data-stream={o.ev.stream}
              >
                {members && members.length > 1 ? (
                  <>
                    {members.map((m, k) => (
                      <rect
                        key={m}
                        data-member-id={m}
                        x={x}
                        y={o.y + (k * h) / members.length}
                        width={w}
                        height={h / members.length}
                        fill={opColor(memberOp(m), o.memberChunks?.[k] ?? 0)}
                      />
                    ))}
                    <rect
                      x={x + 0.5}
                      y={o.y + 0.5}
                      width={Math.max(0, w - 1)}
                      height={h - 1}
                      fill="none"
                      stroke={OVERLAP_OUTLINE}
                      strokeWidth={1.5}
                    />
                  </>
                ) : (
                  <rect x={x} y={o.y} width={w} height={h} fill={opColor(o.ev.op, o.chunk)} />
                )}
                {text && (
                  <text
                    x={x + w / 2}
                    y={o.y + h / 2}
                    fill={labelColor(members ? memberOp(members[0]!) : o.ev.op)}
                    fontSize={10}
                    textAnchor="middle"
                    dominantBaseline="central"
                    pointerEvents="none"
                  >
                    {text}
                  </text>
                )}
              </g>
            );
          })}
          {[
            [selected, SELECTION_OUTLINE, undefined],
            [dropTarget, DROP_OUTLINE, '3 2'],
          ].map(([index, color, dash]) => {
            const o = layout.ops[index as number];
            if (!o) return null;
            const x = view.x(o.ev.startMs);
            return (
              <rect
                key={String(color)}
                x={x - 1}
                y={o.y - 1}
                width={Math.max(1, view.x(o.ev.endMs) - x) + 2}
                height={o.h + 1}
                fill="none"
                stroke={color as string}
                strokeWidth={2}
                strokeDasharray={dash as string | undefined}
                pointerEvents="none"
              />
            );
          })}
          {showArrows &&
            visibleTransfers(layout, plan, w0, w1).map(([a, b]) => (
              <TransferLine
                key={`${a.ev.id}>${b.ev.id}`}
                from={a}
                to={b}
                view={view}
                stroke={ARROW}
                width={1}
                marker={arrow}
                data={{ 'data-arrow': `${a.ev.id}>${b.ev.id}` }}
              />
            ))}
          {flows.map(([a, b]) => (
            <TransferLine
              key={`f${a.ev.id}>${b.ev.id}`}
              from={a}
              to={b}
              view={view}
              stroke={FLOW}
              width={2}
              marker={flowHead}
              data={{ 'data-flow': `${a.ev.id}>${b.ev.id}` }}
            />
          ))}
          {view.domainMs > layout.makespanMs * (1 + 1e-9) && (
            <line
              data-step-end={layout.makespanMs}
              x1={view.x(layout.makespanMs) + 0.5}
              x2={view.x(layout.makespanMs) + 0.5}
              y1={AXIS_HEIGHT}
              y2={layout.height}
              stroke={STEP_END}
              strokeDasharray="2 3"
            />
          )}
          {layout.bands.map((band) => {
            if (band.memoryHeight === 0) return null;
            const yOf = (bytes: number) => memoryY(band, bytes);
            let d = '';
            band.memory.forEach(([t, bytes], k) => {
              const next = band.memory[k + 1]?.[0] ?? layout.makespanMs;
              d += `${k === 0 ? 'M' : 'L'}${view.x(t)},${yOf(bytes)}L${view.x(next)},${yOf(bytes)}`;
            });
            const first = band.memory[0]?.[0] ?? 0;
            const last = layout.makespanMs;
            return (
              <g key={`m${band.device}`} data-memory-device={band.device} data-oom={band.oom || undefined}>
                {band.oom && (
                  <rect
                    x={GUTTER - plotWidth}
                    y={band.memoryTop}
                    width={width + 2 * plotWidth}
                    height={band.memoryHeight}
                    fill={OOM_FILL}
                  />
                )}
                <path
                  d={`${d}L${view.x(last)},${yOf(band.memoryBaseBytes)}L${view.x(first)},${yOf(band.memoryBaseBytes)}Z`}
                  fill={MEMORY_FILL}
                  stroke="none"
                />
                <path d={d} fill="none" stroke={MEMORY_LINE} strokeWidth={1} />
                {band.capacityBytes !== undefined && (
                  <line
                    data-capacity={band.capacityBytes}
                    x1={GUTTER - plotWidth}
                    x2={width + plotWidth}
                    y1={yOf(band.capacityBytes)}
                    y2={yOf(band.capacityBytes)}
                    stroke={CAPACITY_LINE}
                    strokeDasharray="4 3"
                  />
                )}
              </g>
            );
          })}
        </g>
      </g>
      <rect x={0} y={0} width={GUTTER} height={layout.height} fill="#f8f9fa" />
      <clipPath id={`${clip}-gutter`}>
        <rect x={0} y={0} width={GUTTER - 3} height={layout.height} />
      </clipPath>
      {layout.bands.map((band) => (
        <g
          key={`l${band.device}`}
          data-device-band={band.device}
          fontSize={10}
          fill="#212529"
          clipPath={`url(#${clip}-gutter)`}
        >
          <title>{band.label}</title>
          {gutterLines(band).map((line, i) => (
            <text
              key={line}
              x={4}
              y={band.top + 8 + i * GUTTER_LINE}
              fontWeight={i === 0 && !thinBand(band) ? 'bold' : undefined}
              fontSize={i === 0 && !thinBand(band) ? 11 : 10}
              fill={i === 0 ? undefined : '#495057'}
              dominantBaseline="central"
            >
              {line}
            </text>
          ))}
          {band.lanes.map((lane) => (
            <g key={lane.stream} data-lane={`${lane.device}/${lane.stream}`}>
              {lane.stream !== 'compute' && !lane.collapsed && lane.height >= LANE_LABEL_MIN && (
                <text x={10} y={lane.top + lane.height / 2} dominantBaseline="central">
                  {lane.stream}
                </text>
              )}
              <line
                x1={GUTTER}
                x2={width}
                y1={lane.top + lane.height + 0.5}
                y2={lane.top + lane.height + 0.5}
                stroke="#f1f3f5"
              />
            </g>
          ))}
          {band.memoryHeight >= LANE_LABEL_MIN && (
            <text
              x={10}
              y={band.memoryTop + band.memoryHeight / 2 - (band.memoryBaseBytes > 0 ? 6 : 0)}
              dominantBaseline="central"
              fill={band.oom ? CAPACITY_LINE : undefined}
              fontWeight={band.oom ? 'bold' : undefined}
              data-peak-bytes={band.peakBytes}
            >
              {memoryLabels(band)[0]}
            </text>
          )}
          {band.memoryHeight >= LANE_LABEL_MIN && band.memoryBaseBytes > 0 && (
            <text
              x={10}
              y={band.memoryTop + band.memoryHeight / 2 + 6}
              dominantBaseline="central"
              fill="#868e96"
              data-base-bytes={band.memoryBaseBytes}
            >
              {memoryLabels(band)[1]}
            </text>
          )}
        </g>
      ))}
    </svg>
  );
}

/** A transfer drawn from its SEND's start to its RECV's end: the plain arrows and the selection's flows. */
function TransferLine({
  from,
  to,
  view,
  stroke,
  width,
  marker,
  data,
}: {
  from: PlacedOp;
  to: PlacedOp;
  view: TimeView;
  stroke: string;
  width: number;
  marker: string;
  data: Record<`data-${string}`, string>;
}) {
  return (
    <line
      {...data}
      x1={view.x(from.ev.startMs)}
      y1={from.y + from.h / 2}
      x2={view.x(to.ev.endMs)}
      y2={to.y + to.h / 2}
      stroke={stroke}
      strokeWidth={width}
      markerEnd={`url(#${marker})`}
      pointerEvents="none"
    />
  );
}
