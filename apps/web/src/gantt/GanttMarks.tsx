/** What the timeline lays over its ops: the insertion mark of a drag, the details of a bubble and a refused move. */
import { formatMs } from './label.ts';
import { type GanttLayout, GUTTER } from './layout.ts';
import type { TimeView } from './view.ts';

export interface DragMark {
  target: number;
  position: 'before' | 'after';
}

export function InsertMark({ layout, view, mark }: { layout: GanttLayout; view: TimeView; mark: DragMark }) {
  const o = layout.ops[mark.target]!;
  const x = view.x(mark.position === 'before' ? o.ev.startMs : o.ev.endMs);
  return (
    <div
      data-testid="gantt-insert-mark"
      data-position={mark.position}
      data-target={o.ev.id}
      style={{
        position: 'absolute',
        left: x - 1.5,
        top: o.y - 3,
        width: 3,
        height: o.h + 6,
        background: '#e03131',
        pointerEvents: 'none',
      }}
    />
  );
}

export function BubbleDetails({
  layout,
  view,
  index,
}: {
  layout: GanttLayout;
  view: TimeView;
  index: number;
}) {
  const b = layout.bubbles[index]!;
  const lane = layout.lanes[layout.bubbleLane[index]!];
  const total = layout.bubbles
    .filter((x) => x.device === b.device)
    .reduce((t, x) => t + x.endMs - x.startMs, 0);
  const x = Math.min(Math.max(view.x((b.startMs + b.endMs) / 2), GUTTER), Math.max(GUTTER, view.width - 240));
  return (
    <div
      data-testid="gantt-bubble-tooltip"
      role="tooltip"
      style={{
        position: 'absolute',
        left: x,
        top: (lane?.top ?? 0) + (lane?.height ?? 0) + 4,
        zIndex: 2,
        padding: '4px 8px',
        background: 'rgba(33, 37, 41, 0.94)',
        color: '#f8f9fa',
        borderRadius: 4,
        font: '11px/1.45 system-ui, sans-serif',
        pointerEvents: 'none',
        whiteSpace: 'nowrap',
      }}
    >
      idle {formatMs(b.endMs - b.startMs)} on device {b.device} ({formatMs(b.startMs)} → {formatMs(b.endMs)});{' '}
      {formatMs(total)} in all, {((total / Math.max(1e-12, layout.makespanMs)) * 100).toFixed(1)}% of the step
    </div>
  );
}

/** Why the last move was refused, beside the lanes of the device it was tried on; a click dismisses it. */
export function RefusalNote({
  text,
  top,
  width,
  onDismiss,
}: {
  text: string;
  top: number;
  width: number;
  onDismiss?: (() => void) | undefined;
}) {
  return (
    <div
      role="alert"
      data-testid="gantt-refusal"
      title={onDismiss ? 'click to dismiss' : undefined}
      onClick={onDismiss}
      onKeyDown={(e) => e.key === 'Escape' && onDismiss?.()}
      style={{
        position: 'absolute',
        left: GUTTER + 8,
        top,
        maxWidth: Math.max(240, width - GUTTER - 24),
        padding: '4px 8px',
        background: '#fff5f5',
        border: '1px solid #ffa8a8',
        borderRadius: 4,
        color: '#c92a2a',
        font: '12px system-ui, sans-serif',
        pointerEvents: onDismiss ? 'auto' : 'none',
        cursor: onDismiss ? 'pointer' : undefined,
      }}
    >
      {text}
      {onDismiss && (
        <button
          type="button"
          aria-label="dismiss"
          data-testid="gantt-refusal-dismiss"
          onClick={onDismiss}
          style={{
            marginLeft: 8,
            border: 'none',
            background: 'none',
            color: 'inherit',
            cursor: 'pointer',
            padding: 0,
          }}
        >
          ✕
        </button>
      )}
    </div>
  );
}
