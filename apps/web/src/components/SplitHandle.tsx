/**
 * The bar between the DAG and the timeline: dragged (or moved with the arrow keys when focused) it
 * gives one more height and the other less. It sizes the element before it directly, so moving it
 * re-renders nothing; the DAG fits itself to its new size, the timeline follows its own.
 */
import { useRef, useState } from 'react';

/** Least height either side keeps, in pixels. */
const MIN_SIDE = 120;
const KEY_STEP = 32;

export function SplitHandle({ label }: { label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const drag = useRef<{ y: number; h: number } | null>(null);
  // The DAG's share of the two, in percent (its stylesheet gives it 45%).
  const [share, setShare] = useState(45);

  const resize = (height: number) => {
    const bar = ref.current;
    const before = bar?.previousElementSibling as HTMLElement | null;
    const after = boxAfter(bar);
    if (!bar || !before || !after) return;
    const total = before.offsetHeight + after.offsetHeight;
    const h = Math.round(Math.min(Math.max(height, MIN_SIDE), total - MIN_SIDE));
    before.style.flex = `0 0 ${h}px`;
    setShare(Math.round((100 * h) / Math.max(1, total)));
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable, movable separator has no HTML element (hr is static)
    <div
      ref={ref}
      className="split-handle"
      role="separator"
      aria-orientation="horizontal"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={share}
      tabIndex={0}
      data-testid="split-handle"
      onPointerDown={(e) => {
        const before = ref.current?.previousElementSibling as HTMLElement | null;
        if (!before) return;
        drag.current = { y: e.clientY, h: before.offsetHeight };
        e.currentTarget.setPointerCapture(e.pointerId);
        e.preventDefault();
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (d) resize(d.h + e.clientY - d.y);
      }}
      onPointerUp={() => {
        drag.current = null;
      }}
      onKeyDown={(e) => {
        const before = ref.current?.previousElementSibling as HTMLElement | null;
        if (!before) return;
        if (e.key === 'ArrowUp') resize(before.offsetHeight - KEY_STEP);
        else if (e.key === 'ArrowDown') resize(before.offsetHeight + KEY_STEP);
        else return;
        e.preventDefault();
      }}
    />
  );
}

/**
 * The element after the bar that has a box: a wrapper drawn as `display: contents` (the measured
 * traces' drop zone around the timeline) is looked through to its first child.
 */
function boxAfter(bar: HTMLElement | null): HTMLElement | null {
  let next = bar?.nextElementSibling as HTMLElement | null | undefined;
  while (next && getComputedStyle(next).display === 'contents')
    next = next.firstElementChild as HTMLElement | null;
  return next ?? null;
}
