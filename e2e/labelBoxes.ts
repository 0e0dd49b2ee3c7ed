/** The DAG's labels as the user sees them: boxes of those shown inside the pane, and which overlap. */
import type { Page } from '@playwright/test';

export interface LabelBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Lane titles, row labels and toggles, op labels and counts shown (not hidden, in the pane). */
export function labelBoxes(page: Page): Promise<LabelBox[]> {
  return page.evaluate(() => {
    const canvas = document.querySelector('[data-testid=dag-canvas]')!;
    const pane = canvas.getBoundingClientRect();
    const shown: LabelBox[] = [];
    const selector = '.dag-lane-title, .dag-row-label, .dag-row-toggle, .dag-node-label, .dag-node-count';
    for (const el of canvas.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (r.right <= pane.left || r.left >= pane.right || r.bottom <= pane.top || r.top >= pane.bottom)
        continue;
      shown.push({ text: el.textContent ?? '', x: r.x, y: r.y, width: r.width, height: r.height });
    }
    return shown;
  });
}

/** Pairs of boxes that overlap by more than a pixel's rounding, named by their text. */
export function overlapping(boxes: readonly LabelBox[]): string[] {
  const pairs: string[] = [];
  const eps = 0.5;
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      if (
        a.x + eps < b.x + b.width &&
        b.x + eps < a.x + a.width &&
        a.y + eps < b.y + b.height &&
        b.y + eps < a.y + a.height
      )
        pairs.push(`${a.text} × ${b.text}`);
    }
  return pairs;
}
