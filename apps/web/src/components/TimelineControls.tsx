/**
 * The controls above the timeline beyond its arrows switch (issue 22): the jump to devices out of
 * memory, folding the p2p and memory lanes, and the search of an op by id. They only hold what the
 * user typed or toggled; the timeline pane applies it.
 */
import type { TimelineEvent } from '@stagecraft/sim';
import { useState } from 'react';
import { findOp, type OpMatch } from '../gantt/index.ts';

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
      OOM on {oomCount.toLocaleString('en-US')} device{oomCount === 1 ? '' : 's'}: show dev {devices[next]}
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

/** Enter finds the op: the exact id, else the earliest whose id contains the text. */
export function OpSearchBox({
  events,
  onFound,
}: {
  events: readonly TimelineEvent[];
  onFound(match: OpMatch): void;
}) {
  const [text, setText] = useState('');
  const [note, setNote] = useState<string | null>(null);
  return (
    <form
      className="timeline-search"
      aria-label="find an op"
      onSubmit={(e) => {
        e.preventDefault();
        const match = findOp(events, text);
        if (!match) {
          setNote(text.trim() ? `no op matches “${text.trim()}”` : null);
          return;
        }
        setNote(match.count > 1 ? `first of ${match.count} matches` : null);
        onFound(match);
      }}
    >
      <input
        type="search"
        aria-label="find an op by id"
        placeholder="find op id, e.g. F.b1.mb3"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setNote(null);
        }}
        data-testid="op-search"
      />
      {note && (
        <span className={note.startsWith('no ') ? 'search-miss' : 'hint'} data-testid="op-search-note">
          {note}
        </span>
      )}
    </form>
  );
}
