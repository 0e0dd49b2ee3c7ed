/**
 * The controls above the timeline beyond its arrows switch (issue 22): the jump to devices out of
 * memory, folding the p2p and memory lanes, and the search of an op by id. They only hold what the
 * user typed or toggled; the timeline pane applies it.
 */
import type { TimelineEvent } from '@stagecraft/sim';
import { useEffect, useState } from 'react';
import { formatCount } from '../core/format.ts';
import { findOps, type OpHit } from '../gantt/index.ts';

/**
 * "OOM on N devices: show dev X", visiting the overflowing devices the timeline draws in turn (a
 * big cluster draws one device of each group; the count is of all of them).
 */
export function OomJump({
  oomCount,
  devices,
  onShow,
}: {
  oomCount: number;
  devices: readonly number[];
  onShow(device: number): void;
}) {
  const [at, setAt] = useState(-1);
  if (devices.length === 0) return null;
  const next = (at + 1) % devices.length;
  return (
    <button
      type="button"
      className="oom-jump"
      data-testid="oom-jump"
      title="scroll the timeline to the next device whose memory overflows its GPU"
      onClick={() => {
        setAt(next);
        onShow(devices[next]!);
      }}
    >
      OOM on {formatCount(oomCount)} device{oomCount === 1 ? '' : 's'}: show dev {devices[next]}
    </button>
  );
}

export function FoldSwitch({
  label,
  title,
  testid,
  checked,
  onChange,
}: {
  label: string;
  title: string;
  testid: string;
  checked: boolean;
  onChange(checked: boolean): void;
}) {
  return (
    <label title={title}>
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        data-testid={testid}
      />{' '}
      {label}
    </label>
  );
}

/**
 * Enter finds the ops whose id contains the text and shows the first; Enter again (or ›) the next,
 * Shift+Enter (or ‹) the previous, "3 of 397" saying where the search stands.
 */
export function OpSearchBox({
  events,
  onFound,
}: {
  events: readonly TimelineEvent[];
  onFound(hit: OpHit): void;
}) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<{ hits: OpHit[]; at: number } | null>(null);
  const [miss, setMiss] = useState<string | null>(null);
  // A new result's ops are other ops: the next Enter searches them afresh.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets when the events change
  useEffect(() => setFound(null), [events]);
  const step = (by: 1 | -1) => {
    const hits = found?.hits ?? findOps(events, text);
    if (hits.length === 0) {
      setFound(null);
      setMiss(text.trim() ? `no op matches “${text.trim()}”` : null);
      return;
    }
    const at = found ? (found.at + by + hits.length) % hits.length : by === 1 ? 0 : hits.length - 1;
    setFound({ hits, at });
    onFound(hits[at]!);
  };
  return (
    <form
      className="timeline-search"
      aria-label="find an op"
      onSubmit={(e) => {
        e.preventDefault();
        step(1);
      }}
    >
      <input
        type="search"
        aria-label="find an op by id: Enter shows the next match, Shift+Enter the previous"
        placeholder="find op id, e.g. F.b1.mb3"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setFound(null);
          setMiss(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && e.shiftKey) {
            e.preventDefault();
            step(-1);
          }
        }}
        data-testid="op-search"
      />
      {found && found.hits.length > 1 && (
        <>
          <button
            type="button"
            data-testid="op-search-previous"
            title="previous match (Shift+Enter)"
            onClick={() => step(-1)}
          >
            ‹
          </button>
          <button
            type="button"
            data-testid="op-search-next"
            title="next match (Enter)"
            onClick={() => step(1)}
          >
            ›
          </button>
        </>
      )}
      {found && found.hits.length > 1 && (
        <span className="hint" data-testid="op-search-note" aria-live="polite">
          {formatCount(found.at + 1)} of {formatCount(found.hits.length)}
        </span>
      )}
      {miss && (
        <span className="search-miss" data-testid="op-search-note">
          {miss}
        </span>
      )}
    </form>
  );
}

/** Saves a file the browser's way: a link to its bytes, clicked. */
function download(blob: Blob, file: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * "SVG" and "PNG": the timeline as on screen (its time window, every device) saved as a picture
 * for papers. They draw the timeline of the pane they sit in.
 */
export function PictureButtons({ name }: { name: string }) {
  const base = `${name.replace(/[^A-Za-z0-9._+]+/g, '-').replace(/^-+|-+$/g, '') || 'design'}-timeline`;
  const handle = (e: React.MouseEvent) =>
    e.currentTarget.closest('.timeline-pane')?.querySelector<HTMLElement>('[data-testid=gantt]')
      ?.stagecraftGantt;
  return (
    <span className="timeline-picture">
      <button
        type="button"
        data-testid="timeline-svg"
        title="save the timeline as on screen as an SVG picture"
        onClick={(e) => {
          const svg = handle(e)?.picture('svg');
          if (svg) download(new Blob([svg], { type: 'image/svg+xml' }), `${base}.svg`);
        }}
      >
        SVG
      </button>
      <button
        type="button"
        data-testid="timeline-png"
        title="save the timeline as on screen as a PNG picture (2× resolution)"
        onClick={async (e) => {
          const png = await handle(e)?.picture('png');
          if (png) download(png, `${base}.png`);
        }}
      >
        PNG
      </button>
    </span>
  );
}
