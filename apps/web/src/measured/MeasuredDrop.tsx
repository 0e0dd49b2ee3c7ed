/**
 * Trace files dropped on the timeline are measured traces. Only drags that carry files are taken:
 * the timeline's own drops (palette items, op moves) pass through untouched.
 */
import type { DragEvent, ReactNode } from 'react';
import { bringBrowserFiles } from './measuredFiles.ts';

const carriesFiles = (e: DragEvent) => [...e.dataTransfer.types].includes('Files');

export function MeasuredDrop({ children }: { children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files only; keyboards bring them with the timeline tool row's labelled "Measured…" input
    <div
      className="measured-drop"
      data-testid="measured-drop"
      onDragOver={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDrop={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        void bringBrowserFiles(e.dataTransfer.files);
      }}
    >
      {children}
    </div>
  );
}
