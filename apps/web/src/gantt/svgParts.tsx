/** The SVG timeline's parts that draw one op, one memory strip and one device's gutter (GanttSvg.tsx). */
import {
  ARROW,
  BUBBLE_HATCH,
  CAPACITY_LINE,
  FLOW,
  MEMORY_FILL,
  MEMORY_LINE,
  OOM_FILL,
  OVERLAP_OUTLINE,
  TEXT,
} from './colors.ts';
import { type DeviceBand, GUTTER, type PlacedOp } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import { gutterMark, gutterTitle, memoryMark, opBox, opMark, type Stretch, type TextMark } from './scene.ts';
import type { TimeView } from './view.ts';

/** Element ids of one mounted timeline: several timelines on a page (Compare) each have their own. */
export function svgIds(uid: string) {
  const clip = `gantt-clip-${uid}`;
  return {
    clip,
    gutterClip: `${clip}-gutter`,
    hatch: `gantt-hatch-${uid}`,
    arrow: `gantt-arrow-${uid}`,
    flowHead: `gantt-flow-${uid}`,
  };
}

/** The plot's clip, the bubbles' hatch and the two arrowheads. */
export function SvgDefs({
  ids,
  width,
  height,
}: {
  ids: ReturnType<typeof svgIds>;
  width: number;
  height: number;
}) {
  return (
    <defs>
      <clipPath id={ids.clip}>
        <rect x={GUTTER} y={0} width={Math.max(0, width - GUTTER)} height={height} />
      </clipPath>
      <pattern id={ids.hatch} width={6} height={6} patternUnits="userSpaceOnUse">
        <path d="M0,6 L6,0" stroke={BUBBLE_HATCH} strokeWidth={1} />
      </pattern>
      <Arrowhead id={ids.arrow} color={ARROW} size={6} />
      <Arrowhead id={ids.flowHead} color={FLOW} size={4} />
    </defs>
  );
}

function Arrowhead({ id, color, size }: { id: string; color: string; size: number }) {
  return (
    <marker id={id} viewBox="0 0 6 6" refX={6} refY={3} markerWidth={size} markerHeight={size} orient="auto">
      <path d="M0,0 L6,3 L0,6 z" fill={color} />
    </marker>
  );
}

export function SvgOp({ o, view, plan }: { o: PlacedOp; view: TimeView; plan: PlanIndex }) {
  const box = opBox(o, view);
  const mark = opMark(o, box, plan);
  const data = {
    'data-op-id': o.ev.id,
    'data-op': o.ev.op,
    'data-device': o.ev.device,
    'data-stream': o.ev.stream,
  };
  const members = o.ev.members;
  // One element for an unlabelled op: zoomed out, that is most of them.
  if (!members && !mark.label)
    return <rect {...data} x={box.x} y={box.y} width={box.w} height={box.h} fill={mark.fills[0]!.color} />;
  return (
    <g {...data}>
      {mark.fills.map((f, k) => (
        <rect
          key={members?.[k] ?? k}
          data-member-id={members && members.length > 1 ? members[k] : undefined}
          x={box.x}
          y={f.y}
          width={box.w}
          height={f.h}
          fill={f.color}
        />
      ))}
      {mark.outline && (
        <rect
          x={mark.outline.x}
          y={mark.outline.y}
          width={mark.outline.w}
          height={mark.outline.h}
          fill="none"
          stroke={OVERLAP_OUTLINE}
          strokeWidth={1.5}
        />
      )}
      {mark.label && (
        <SvgText t={mark.label} textAnchor="middle" pointerEvents="none">
          {mark.label.text}
        </SvgText>
      )}
    </g>
  );
}

function SvgText({
  t,
  children,
  ...rest
}: { t: TextMark; children: React.ReactNode } & React.SVGProps<SVGTextElement>) {
  return (
    <text
      x={t.x}
      y={t.y}
      fill={t.color}
      fontSize={t.size}
      fontWeight={t.bold ? 'bold' : undefined}
      dominantBaseline="central"
      {...rest}
    >
      {children}
    </text>
  );
}

export function SvgMemory({
  band,
  view,
  stretch,
  endMs,
}: {
  band: DeviceBand;
  view: TimeView;
  stretch: Stretch;
  endMs: number;
}) {
  const m = memoryMark(band, view, stretch, endMs);
  const v = m.vertices;
  const line = v.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${x},${y}`).join('');
  const area =
    v.length > 0
      ? `M${v[0]![0]},${m.baseY}${line.replace(/^M/, 'L')}L${v[v.length - 1]![0]},${m.baseY}Z`
      : '';
  return (
    <g data-memory-device={band.device} data-oom={band.oom || undefined}>
      {m.oom && <rect x={m.oom.x} y={m.oom.y} width={m.oom.w} height={m.oom.h} fill={OOM_FILL} />}
      <path d={area} fill={MEMORY_FILL} stroke="none" />
      <path d={line} fill="none" stroke={MEMORY_LINE} strokeWidth={1} />
      {m.capacityY !== null && (
        <line
          data-capacity={band.capacityBytes}
          x1={stretch.x0}
          x2={stretch.x1}
          y1={m.capacityY}
          y2={m.capacityY}
          stroke={CAPACITY_LINE}
          strokeDasharray="4 3"
        />
      )}
    </g>
  );
}

export function SvgGutter({ band, clip }: { band: DeviceBand; clip: string }) {
  const g = gutterMark(band);
  return (
    <g data-device-band={band.device} fontSize={10} fill={TEXT} clipPath={`url(#${clip})`}>
      <title>{gutterTitle(band)}</title>
      {g.lines.map((t) => (
        <SvgText key={t.text} t={t}>
          {t.text}
        </SvgText>
      ))}
      {g.streams.map((s) => (
        <g key={s.lane} data-lane={s.lane}>
          {s.text && <SvgText t={s.text}>{s.text.text}</SvgText>}
        </g>
      ))}
      {g.memory.peak && (
        <SvgText t={g.memory.peak} data-peak-bytes={band.peakBytes}>
          {g.memory.peak.text}
        </SvgText>
      )}
      {g.memory.base && (
        <SvgText t={g.memory.base} data-base-bytes={band.memoryBaseBytes}>
          {g.memory.base.text}
        </SvgText>
      )}
    </g>
  );
}
