/**
 * The timeline as a picture for papers: the view on screen (its time window, every device) drawn
 * whole, as SVG by the SVG renderer and as PNG by the canvas painter, whichever renderer the page
 * uses for it. Both draw from the same scene (scene.ts), so the two files show the same marks.
 */
import { createElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { paintGantt } from './canvasPaint.ts';
import { GanttSvg } from './GanttSvg.tsx';
import type { GanttLive } from './props.ts';
import type { TimeView } from './view.ts';

/** The timeline as a standalone SVG document. */
export function timelineSvg(live: GanttLive, view: TimeView): string {
  const host = document.createElement('div');
  const root = createRoot(host);
  flushSync(() =>
    root.render(
      createElement(GanttSvg, {
        layout: live.layout,
        plan: live.planIndex,
        view,
        selection: live.props.selection ?? null,
        dropTarget: -1,
        hover: -1,
        showArrows: live.props.showArrows ?? false,
        flows: live.flows,
        uid: 'picture',
      }),
    ),
  );
  const svg = host.querySelector('svg');
  const text = svg ? new XMLSerializer().serializeToString(svg) : '';
  root.unmount();
  if (!text) throw new Error('the timeline drew no SVG');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${text}`;
}

/** The timeline as a PNG at `scale` device pixels per CSS pixel (2 for print). */
export function timelinePng(live: GanttLive, view: TimeView, scale = 2): Promise<Blob> {
  const canvas = document.createElement('canvas');
  const height = live.layout.height;
  canvas.width = Math.round(view.width * scale);
  canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('this browser gives no 2D canvas to draw the PNG on'));
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  paintGantt(ctx, live.layout, live.planIndex, view, {
    selection: live.props.selection ?? null,
    dropTarget: -1,
    showArrows: live.props.showArrows ?? false,
    flows: live.flows,
    y0: 0,
    y1: height,
  });
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be encoded'))), 'image/png'),
  );
}
