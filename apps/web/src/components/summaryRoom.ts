/**
 * Measures the room a program row leaves its summary, for core/summaryFit.ts: beside the op, or
 * on a line of its own indented under the op. Measured, not guessed from a character budget:
 * the sidebar's width and the font decide what fits.
 */
import { useEffect, useRef, useState } from 'react';
import { fitSummary } from '../core/summaryFit.ts';
import { afterPaint } from '../gantt/afterPaint.ts';

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

/**
 * What a row shows before its first measure: a summary of 2,048 device ids (10k characters) laid
 * out whole made the page's first layout shape all of it on every such row. 64 words are wider
 * than any row of the sidebar (its rows hold about 30 at most), so the measure only ever shortens it.
 */
const UNMEASURED_WORDS = 64;

function unmeasured(text: string): string {
  const words = text.split(' ', UNMEASURED_WORDS + 1);
  return words.length > UNMEASURED_WORDS ? `${words.slice(0, UNMEASURED_WORDS).join(' ')} …` : text;
}

/** The summary as it fits the row of `main`, refitted when the row's width changes. */
export function useFittedSummary(text: string) {
  const main = useRef<HTMLButtonElement>(null);
  const op = useRef<HTMLSpanElement>(null);
  const summary = useRef<HTMLSpanElement>(null);
  // The fit of the text it was measured for: a new text shows its unmeasured form until measured,
  // never the last text's fit.
  const [measured, setMeasured] = useState<{ of: string; fit: FittedSummary } | null>(null);
  useEffect(() => {
    const m = main.current;
    if (!m || !op.current || !summary.current) return;
    const refit = () => {
      if (!op.current || !summary.current) return;
      const next = measure(m, op.current, summary.current, text);
      setMeasured((was) =>
        was?.of === text &&
        was.fit.text === next.text &&
        was.fit.below === next.below &&
        was.fit.indent === next.indent
          ? was
          : { of: text, fit: next },
      );
    };
    // Measured once the row's frame is painted: in a layout effect the first fit forced the whole
    // page's first style and layout into React's commit, one task of 0.17–0.35 s when an example
    // opens (2026-12-07 traces); after the frame the layout is clean and reading it is cheap.
    const cancelFirst = afterPaint(refit);
    if (typeof ResizeObserver === 'undefined') return cancelFirst;
    // The observer's callbacks run after layout, where reading the row's width costs nothing.
    let width: number | null = null;
    const observer = new ResizeObserver((entries) => {
      // The row grows taller when the summary moves below: only a new width changes the fit.
      const w = entries[entries.length - 1]?.contentRect.width ?? 0;
      if (width !== null && w !== width) refit();
      width = w;
    });
    observer.observe(m);
    return () => {
      cancelFirst();
      observer.disconnect();
    };
  }, [text]);
  const fit = measured?.of === text ? measured.fit : { text: unmeasured(text), below: false, indent: 0 };
  return { main, op, summary, fit };
}
