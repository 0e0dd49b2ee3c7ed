/**
 * The width of the timeline's element, followed as it resizes, unless the page fixes one: the
 * time axis spans it. Null until measured.
 */
import { useLayoutEffect, useState } from 'react';

export function useElementWidth(element: () => HTMLElement | null, fixed: number | undefined): number | null {
  const [measured, setMeasured] = useState<number | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the element is the same for the component's life
  useLayoutEffect(() => {
    const root = element();
    if (!root || fixed !== undefined) return;
    setMeasured(root.clientWidth > 0 ? root.clientWidth : 960);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (root.clientWidth > 0) setMeasured(root.clientWidth);
    });
    ro.observe(root);
    return () => ro.disconnect();
  }, [fixed]);
  return measured;
}
