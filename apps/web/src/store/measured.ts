/**
 * The measured overlay's state, apart from the document's slices: the trace files the user
 * brought (kept, so each new result of the design is compared with them again, e.g. after the
 * calibration is applied) and the worker's latest overlay of them. Never saved with the design.
 */
import { create } from 'zustand';
import type { MeasuredFile, MeasuredOverlay } from '../core/measuredOverlay.ts';
import { createViewSync } from '../gantt/viewSync.ts';
import type { WorkerRequest } from '../workerProtocol.ts';

export interface MeasuredState {
  files: MeasuredFile[];
  /** The overlay of `files` against the latest design computed; null while it is computed. */
  overlay: (MeasuredOverlay & { ok: true }) | null;
  status: 'none' | 'computing' | 'ok';
}

export const useMeasured = create<MeasuredState>()(() => ({ files: [], overlay: null, status: 'none' }));

/** The predicted and the measured timeline zoom and pan together on one axis. */
export const measuredViewSync = createViewSync();

let requested = 0;
let send: ((req: WorkerRequest) => void) | undefined;
let notify: ((text: string) => void) | undefined;
let designNow: (() => unknown) | undefined;

/** The page's store connects the worker, its notice and its design (store/index.ts). */
export function connectMeasured(
  s: (req: WorkerRequest) => void,
  n: (text: string) => void,
  design: () => unknown,
): void {
  send = s;
  notify = n;
  designNow = design;
}

/** Files the user brought (the file input or a drop on the timeline): read and compared off the page's thread. */
export function bringMeasured(files: MeasuredFile[]): void {
  if (files.length === 0) return;
  requested += 1;
  useMeasured.setState({ status: 'computing' });
  send?.({ type: 'measure', id: requested, design: designNow?.(), files });
  pendingFiles = files;
}

/** Files of the request in flight: they become the overlay's only once they read. */
let pendingFiles: MeasuredFile[] = [];

/** A new result of the design: the kept files are compared with it again. */
export function remeasure(): void {
  const { files } = useMeasured.getState();
  if (files.length === 0) return;
  requested += 1;
  send?.({ type: 'measure', id: requested, design: designNow?.(), files });
}

export function clearMeasured(): void {
  requested += 1;
  useMeasured.setState({ files: [], overlay: null, status: 'none' });
}

export function receiveMeasured(id: number, overlay: MeasuredOverlay): void {
  if (id !== requested) return;
  if (!overlay.ok) {
    // Bad files leave the overlay as it was: the notice names the file and the event.
    const s = useMeasured.getState();
    useMeasured.setState({ status: s.overlay ? 'ok' : 'none' });
    notify?.(overlay.errors.join('\n'));
    return;
  }
  const files = pendingFiles.length > 0 ? pendingFiles : useMeasured.getState().files;
  pendingFiles = [];
  useMeasured.setState({ files, overlay, status: 'ok' });
}
