/**
 * What the timeline shows about an op: tags, costs, bytes and provenance, in a tooltip for the op
 * under the pointer and in a panel for the selected op that stays while the pointer moves on.
 */
import type { TimelineEvent } from '@stagecraft/sim';
import { formatBytes, formatMs } from './label.ts';
import type { GanttLayout } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import type { TimeView } from './view.ts';

interface Props {
  op: TimelineEvent;
  plan: PlanIndex;
  view: TimeView;
  layout: GanttLayout;
  directiveLabel?: ((index: number) => string | undefined) | undefined;
  /** Lowest visible y of the timeline (it may scroll): below it the details open above the op. */
  visibleBottom?: number | undefined;
}

/** Room the details need below an op before they open above it instead. */
const ROOM = 170;

export function opDetailRows(
  op: TimelineEvent,
  plan: PlanIndex,
  directiveLabel?: ((index: number) => string | undefined) | undefined,
  id: string = op.id,
): [string, string][] {
  const inst = plan.instruction(id);
  const rows: [string, string][] = [
    ['device', `${op.device} · ${op.stream}`],
    ['time', `${formatMs(op.startMs)} → ${formatMs(op.endMs)} (${formatMs(op.endMs - op.startMs)})`],
    [
      'tags',
      Object.entries(op.tags)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || '—',
    ],
  ];
  if (op.members) rows.push(['overlaps', op.members.join(' & ')]);
  if (op.peer !== undefined) rows.push([op.op === 'SEND' ? 'to' : 'from', `device ${op.peer}`]);
  if (op.bytes !== undefined) rows.push(['bytes', formatBytes(op.bytes)]);
  if (inst && 'flops' in inst && inst.flops !== undefined) rows.push(['flops', inst.flops.toExponential(2)]);
  if (inst && 'allocBytes' in inst && inst.allocBytes) rows.push(['allocates', formatBytes(inst.allocBytes)]);
  if (inst && 'freeBytes' in inst && inst.freeBytes) rows.push(['frees', formatBytes(inst.freeBytes)]);
  if (inst?.waits.length) rows.push(['waits for', inst.waits.join(', ')]);
  if (inst?.provenance) {
    const d = inst.provenance.directive;
    const named = d === null ? 'the model' : (directiveLabel?.(d) ?? `directive ${d}`);
    rows.push(['made by', `${named}, pass ${inst.provenance.pass}`]);
  }
  return rows;
}

export function OpDetails({ op, plan, view, layout, directiveLabel, visibleBottom }: Props) {
  const placed = layout.ops[layout.byId.get(op.id) ?? -1];
  const rows = opDetailRows(op, plan, directiveLabel);
  const x = placed ? Math.min(Math.max(view.x(op.startMs), 80), Math.max(80, view.width - 300)) : 80;
  const below = placed ? placed.y + placed.h + 4 : 0;
  const above = !!placed && placed.y > ROOM && below + ROOM > (visibleBottom ?? layout.height + ROOM);
  const y = above ? placed.y - 4 : below;
  return (
    <div
      data-testid="gantt-tooltip"
      data-tooltip-op={op.id}
      role="tooltip"
      style={{
        position: 'absolute',
        left: x,
        top: y,
        transform: above ? 'translateY(-100%)' : undefined,
        zIndex: 2,
        minWidth: 220,
        maxWidth: 420,
        padding: '6px 8px',
        background: 'rgba(33, 37, 41, 0.94)',
        color: '#f8f9fa',
        borderRadius: 4,
        font: '11px/1.45 system-ui, sans-serif',
        pointerEvents: 'none',
      }}
    >
      <div style={{ fontWeight: 600, marginBottom: 2 }}>
        {op.op} <span style={{ fontFamily: 'ui-monospace, monospace', fontWeight: 400 }}>{op.id}</span>
      </div>
      {rows.map(([k, v]) => (
        <div key={k}>
          <span style={{ color: '#adb5bd' }}>{k}</span> {v}
        </div>
      ))}
    </div>
  );
}

interface SelectionProps {
  /** The selected id (an overlapped unit's member names its unit's event). */
  id: string;
  op: TimelineEvent;
  plan: PlanIndex;
  flows: number;
  directiveLabel?: ((index: number) => string | undefined) | undefined;
  onClose(): void;
  onReveal(): void;
}

/** The selected op's details, pinned in a corner of the timeline pane until cleared. */
export function SelectionDetails({ id, op, plan, flows, directiveLabel, onClose, onReveal }: SelectionProps) {
  const rows = opDetailRows(op, plan, directiveLabel, id);
  if (flows > 0) rows.push(['flows', `${flows} SEND→RECV drawn in red`]);
  return (
    <aside
      className="selection-details"
      data-testid="selection-details"
      data-op-id={id}
      aria-label="selected op"
    >
      <header>
        <b>{op.members ? (plan.instruction(id)?.op ?? op.op) : op.op}</b> <code>{id}</code>
        <button
          type="button"
          onClick={onReveal}
          title="zoom the timeline to this op"
          data-testid="selection-reveal"
        >
          show
        </button>
        <button
          type="button"
          onClick={onClose}
          aria-label="clear the selection"
          data-testid="selection-close"
        >
          ✕
        </button>
      </header>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </aside>
  );
}
