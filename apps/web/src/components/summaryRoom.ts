/**
 * Measures the room a program row leaves its summary, for core/summaryFit.ts: beside the op, or
 * on a line of its own indented under the op. Measured, not guessed from a character budget:
 * the sidebar's width and the font decide what fits.
 */
import { useLayoutEffect, useRef, useState } from 'react';
import { fitSummary } from '../core/summaryFit.ts';

let context: CanvasRenderingContext2D | null | undefined;

function textWidth(text: string, font: string): number {
  if (context === undefined) context = document.createElement('canvas').getContext('2d');
  if (!context) return text.length * 6;
  context.font = font;
  return context.measureText(text).width;
}

export interface FittedSummary {
  text: string;
  below: boolean;
  /** Left indent of the summary's own line, so it sits under the op. */
  indent: number;
}

function measure(main: HTMLElement, op: HTMLElement, summary: HTMLElement, text: string): FittedSummary {
  const box = main.getBoundingClientRect();
  // Not laid out (hidden, or a test without layout): nothing to fit to.
  if (box.width === 0) return { text, below: false, indent: 0 };
  const style = getComputedStyle(main);
  const padLeft = Number.parseFloat(style.paddingLeft) || 0;
  const padRight = Number.parseFloat(style.paddingRight) || 0;
  const gap = Number.parseFloat(style.columnGap) || 0;
  const opBox = op.getBoundingClientRect();
  const indent = opBox.left - box.left - padLeft;
  const room = {
    // A pixel to spare: sub-pixel widths must not wrap a summary the measure said fits.
    beside: box.right - padRight - opBox.right - gap - 1,
    line: box.width - padLeft - padRight - indent,
  };
  const font = getComputedStyle(summary).font;
  return { ...fitSummary(text, room, (s) => textWidth(s, font)), indent };
}

/** The summary as it fits the row of `main`, refitted when the row's width changes. */
export function useFittedSummary(text: string) {
  const main = useRef<HTMLButtonElement>(null);
  const op = useRef<HTMLSpanElement>(null);
  const summary = useRef<HTMLSpanElement>(null);
  const [fit, setFit] = useState<FittedSummary>({ text, below: false, indent: 0 });
  useLayoutEffect(() => {
    const m = main.current;
    if (!m || !op.current || !summary.current) return;
    const refit = () => {
      if (!op.current || !summary.current) return;
      const next = measure(m, op.current, summary.current, text);
      setFit((f) => (f.text === next.text && f.below === next.below && f.indent === next.indent ? f : next));
    };
    refit();
    if (typeof ResizeObserver === 'undefined') return;
    let width = m.getBoundingClientRect().width;
    const observer = new ResizeObserver(() => {
      // The row grows taller when the summary moves below: only a new width changes the fit.
      const w = m.getBoundingClientRect().width;
      if (w !== width) {
        width = w;
        refit();
      }
    });
    observer.observe(m);
    return () => observer.disconnect();
  }, [text]);
  return { main, op, summary, fit };
}
