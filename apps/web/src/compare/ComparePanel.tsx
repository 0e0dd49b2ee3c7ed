/**
 * Side-by-side comparison of up to four variants of a design: their timelines on one shared time
 * axis (zoom and pan move them together) and a table of the step's metrics, each difference
 * against the baseline variant (the first, or the one chosen) coloured by whether it is an
 * improvement, and the best of each row starred. Three or four variants draw compact lanes, so
 * all four fit one 1440×900 screen.
 */
import type { Simulation } from '@stagecraft/sim';
import { useMemo, useRef, useState } from 'react';
import { formatCount } from '../core/format.ts';
import { Gantt } from '../gantt/Gantt.tsx';
import { GanttLegend } from '../gantt/GanttLegend.tsx';
import { formatBytes, formatMs } from '../gantt/label.ts';
import type { TimelinePlan } from '../gantt/timelinePlan.ts';
import { createViewSync } from '../gantt/viewSync.ts';
import { compareRows, MAX_VARIANTS, type MetricCell, type MetricRow } from './compareMetrics.ts';

export interface CompareVariant {
  id: string;
  name: string;
  sim: Simulation;
  plan: TimelinePlan;
  /** Microbatches of its step: the table then gives time per microbatch and ranks by it when batches differ. */
  microbatches?: number | undefined;
}

export interface ComparePanelProps {
  /** Beyond MAX_VARIANTS the rest are left out (and said so). */
  variants: readonly CompareVariant[];
  /** The id of the variant the others are compared against (default: the first). */
  baseline?: string | null;
  /** Choose the baseline (a radio button per variant). */
  onBaseline?(id: string): void;
  /** Rename a variant (a ✎ button per variant). */
  onRename?(id: string, name: string): void;
  /** Unpin a variant. */
  onRemove?(id: string): void;
  memoryCapacityBytes?: (device: number) => number | undefined;
  /** Timelines' width in pixels (default: the panel's width). */
  width?: number;
  showArrows?: boolean;
}

/**
 * Past this many devices the per-device memory rows start folded: a real cluster has hundreds of
 * GPUs, and the highest device's row already says whether a variant fits.
 */
export const DEVICE_ROWS_UNFOLDED = 8;

const VERDICT_STYLE: Record<MetricCell['verdict'], React.CSSProperties> = {
  baseline: { fontWeight: 600 },
  better: { background: '#d3f9d8', color: '#2b8a3e' },
  worse: { background: '#ffe3e3', color: '#c92a2a' },
  same: { color: '#868e96' },
  differs: {},
  missing: { color: '#adb5bd' },
};

/** From this many variants on, the timelines draw compact lanes. */
export const COMPACT_FROM = 3;

export function ComparePanel({
  variants,
  baseline,
  onBaseline,
  onRename,
  onRemove,
  memoryCapacityBytes,
  width,
  showArrows,
}: ComparePanelProps) {
  const shown = variants.slice(0, MAX_VARIANTS);
  const compact = shown.length >= COMPACT_FROM;
  const base = Math.max(
    0,
    shown.findIndex((v) => v.id === baseline),
  );
  if (shown.length === 0) {
    return (
      <section data-testid="compare" style={{ font: '13px system-ui, sans-serif', padding: 12 }}>
        Pin a variant to compare it with others.
      </section>
    );
  }
  return (
    <section data-testid="compare" style={{ font: '13px system-ui, sans-serif' }}>
      {variants.length > MAX_VARIANTS && (
        <p role="status" style={{ color: '#c92a2a' }}>
          Comparing the first {MAX_VARIANTS} of {variants.length} pinned variants; unpin one to bring in
          another.
        </p>
      )}
      <CompareTable
        shown={shown}
        base={base}
        compact={compact}
        {...(onBaseline ? { onBaseline } : {})}
        {...(onRename ? { onRename } : {})}
        {...(onRemove ? { onRemove } : {})}
      />
      <GanttLegend />
      <AlignedTimelines
        shown={shown}
        compact={compact}
        {...(width !== undefined ? { width } : {})}
        {...(memoryCapacityBytes ? { memoryCapacityBytes } : {})}
        {...(showArrows !== undefined ? { showArrows } : {})}
      />
    </section>
  );
}

/** The step's metrics, one column per variant against the baseline, the device rows foldable. */
function CompareTable({
  shown,
  base,
  compact,
  onBaseline,
  onRename,
  onRemove,
}: Pick<ComparePanelProps, 'onBaseline' | 'onRename' | 'onRemove'> & {
  shown: readonly CompareVariant[];
  base: number;
  compact: boolean;
}) {
  const rows = compareRows(
    shown.map((v) => v.sim),
    base,
    shown.some((v) => v.microbatches !== undefined) ? shown.map((v) => v.microbatches) : undefined,
  );
  const deviceRows = rows.filter((r) => r.device !== undefined).length;
  const [devicesOpen, setDevicesOpen] = useState(false);
  // Compact (three or four variants): the per-device rows start folded too, to keep all in view.
  const foldAt = compact ? 1 : DEVICE_ROWS_UNFOLDED;
  const foldDevices = deviceRows > foldAt && !devicesOpen;
  return (
    <table
      data-testid="compare-table"
      style={{ borderCollapse: 'collapse', margin: '8px 0', fontVariantNumeric: 'tabular-nums' }}
    >
      <thead>
        <tr>
          <th style={{ ...th, textAlign: 'left' }}>metric</th>
          {shown.map((v, i) => (
            <th key={v.id} style={th} data-variant={v.id}>
              <VariantHeading
                variant={v}
                isBaseline={i === base}
                {...(onBaseline ? { onBaseline: () => onBaseline(v.id) } : {})}
                {...(onRename ? { onRename: (name: string) => onRename(v.id, name) } : {})}
                {...(onRemove ? { onRemove: () => onRemove(v.id) } : {})}
              />
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) =>
          row.device !== undefined && foldDevices ? null : (
            <MetricRowCells key={row.key} row={row} shown={shown} />
          ),
        )}
        {deviceRows > foldAt && (
          <tr>
            <td colSpan={shown.length + 1} style={{ ...td, textAlign: 'left' }}>
              <button
                type="button"
                data-testid="compare-device-rows"
                aria-expanded={devicesOpen}
                onClick={() => setDevicesOpen((open) => !open)}
                style={{
                  border: 'none',
                  background: 'none',
                  cursor: 'pointer',
                  color: '#1c7ed6',
                  padding: 0,
                }}
              >
                {devicesOpen ? 'hide' : 'show'} peak memory of each of the {deviceRows} devices
              </button>
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** One metric's row: each variant's value, its difference from the baseline, the best starred. */
function MetricRowCells({ row, shown }: { row: MetricRow; shown: readonly CompareVariant[] }) {
  return (
    <tr data-metric={row.key}>
      <th style={{ ...td, textAlign: 'left', fontWeight: 400 }}>{row.label}</th>
      {row.cells.map((c, i) => (
        <td
          key={shown[i]!.id}
          data-variant={shown[i]!.id}
          data-verdict={c.verdict}
          data-best={c.best || undefined}
          style={{ ...td, ...VERDICT_STYLE[c.verdict], ...(c.best ? BEST_STYLE : {}) }}
        >
          {c.best && (
            <span className="best-mark" title="best of this row">
              <span aria-hidden="true">★</span>
              <span style={VISUALLY_HIDDEN}>best: </span>{' '}
            </span>
          )}
          {formatValue(row, c.value)}
          {c.delta !== undefined && c.verdict !== 'same' && (
            <span data-delta style={{ marginLeft: 6, fontSize: 11 }}>
              {formatDelta(row, c)}
            </span>
          )}
        </td>
      ))}
    </tr>
  );
}

/** The variants' timelines on one time axis and one memory scale, zoom and pan moving them together. */
function AlignedTimelines({
  shown,
  compact,
  memoryCapacityBytes,
  width,
  showArrows,
}: Pick<ComparePanelProps, 'memoryCapacityBytes' | 'width' | 'showArrows'> & {
  shown: readonly CompareVariant[];
  compact: boolean;
}) {
  const sync = useMemo(() => createViewSync(), []);
  const domainMs = Math.max(0, ...shown.map((v) => v.sim.makespanMs));
  // One memory scale for all, so the strips compare by height.
  const memoryScaleBytes = Math.max(0, ...shown.flatMap((v) => v.sim.devices.map((d) => d.peakMemoryBytes)));
  return shown.map((v) => (
    <figure key={v.id} data-variant={v.id} style={{ margin: compact ? '2px 0' : '8px 0' }}>
      <figcaption style={{ fontWeight: 600, margin: compact ? '2px 0' : '4px 0' }}>
        {v.name} · {formatMs(v.sim.makespanMs)}
      </figcaption>
      <Gantt
        sim={v.sim}
        plan={v.plan}
        domainMs={domainMs}
        memoryScaleBytes={memoryScaleBytes}
        viewSync={sync}
        compact={compact}
        {...(width !== undefined ? { width } : {})}
        {...(memoryCapacityBytes ? { memoryCapacityBytes } : {})}
        {...(showArrows !== undefined ? { showArrows } : {})}
      />
    </figure>
  ));
}

/** Read by screen readers, not drawn. */
const VISUALLY_HIDDEN: React.CSSProperties = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
};
const BEST_STYLE: React.CSSProperties = { fontWeight: 700, boxShadow: 'inset 0 0 0 2px #2b8a3e' };

/** A variant's column heading: its name (renamable), whether it is the baseline, and unpin. */
function VariantHeading({
  variant: v,
  isBaseline,
  onBaseline,
  onRename,
  onRemove,
}: {
  variant: CompareVariant;
  isBaseline: boolean;
  onBaseline?: () => void;
  onRename?: (name: string) => void;
  onRemove?: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(v.name);
  // Escape cancels: the blur that follows must not commit the text typed so far.
  const cancelled = useRef(false);
  const iconButton: React.CSSProperties = {
    marginLeft: 4,
    border: 'none',
    background: 'none',
    cursor: 'pointer',
    color: '#868e96',
    padding: '0 2px',
  };
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 2, whiteSpace: 'nowrap' }}>
      {editing && onRename ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setEditing(false);
            if (!cancelled.current && name.trim() !== v.name) onRename(name);
          }}
        >
          <input
            data-testid={`pin-name-${v.id}`}
            aria-label={`name of ${v.name}`}
            value={name}
            size={Math.max(8, name.length)}
            // biome-ignore lint/a11y/noAutofocus: the field opens on the user's click and is what they type in
            autoFocus
            onChange={(e) => setName(e.target.value)}
            onBlur={(e) => e.currentTarget.form?.requestSubmit()}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                cancelled.current = true;
                setName(v.name);
                setEditing(false);
              }
            }}
          />
        </form>
      ) : (
        <span data-testid={`pin-label-${v.id}`}>{v.name}</span>
      )}
      {onRename && !editing && (
        <button
          type="button"
          data-testid={`rename-pin-${v.id}`}
          aria-label={`rename ${v.name}`}
          title="rename"
          onClick={() => {
            cancelled.current = false;
            setName(v.name);
            setEditing(true);
          }}
          style={iconButton}
        >
          ✎
        </button>
      )}
      {onBaseline ? (
        <label style={{ color: '#868e96', fontWeight: 400, marginLeft: 4, fontSize: 12 }}>
          <input
            type="radio"
            name="compare-baseline"
            data-testid={`baseline-${v.id}`}
            checked={isBaseline}
            onChange={onBaseline}
          />
          baseline
        </label>
      ) : (
        isBaseline && <span style={{ color: '#868e96', fontWeight: 400 }}> (baseline)</span>
      )}
      {onRemove && (
        <button type="button" aria-label={`unpin ${v.name}`} onClick={onRemove} style={iconButton}>
          ×
        </button>
      )}
    </span>
  );
}

const th: React.CSSProperties = {
  padding: '4px 10px',
  borderBottom: '1px solid #dee2e6',
  textAlign: 'right',
};
const td: React.CSSProperties = {
  padding: '3px 10px',
  borderBottom: '1px solid #f1f3f5',
  textAlign: 'right',
};

export function formatValue(row: MetricRow, v: number | undefined): string {
  if (v === undefined) return '—';
  switch (row.unit) {
    case 'ms':
      return formatMs(v);
    case 'ratio':
      return `${(v * 100).toFixed(1)}%`;
    case 'bytes':
      return formatBytes(v);
    case 'tokens/s':
    case 'count':
      return formatCount(v);
  }
}

function formatDelta(row: MetricRow, c: MetricCell): string {
  const d = c.delta!;
  const sign = d > 0 ? '+' : '−';
  const abs = Math.abs(d);
  const amount =
    row.unit === 'ratio'
      ? `${(abs * 100).toFixed(1)} pt`
      : row.unit === 'ms'
        ? formatMs(abs)
        : row.unit === 'bytes'
          ? formatBytes(abs)
          : formatCount(abs);
  const rel =
    c.relative !== undefined && row.unit !== 'ratio'
      ? ` (${sign}${(Math.abs(c.relative) * 100).toFixed(1)}%)`
      : '';
  return `${sign}${amount}${rel}`;
}
