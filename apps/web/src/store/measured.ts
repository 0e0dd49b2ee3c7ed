/**
 * The measured overlay's state, apart from the document's slices: the trace files the user
 * brought (kept, so each new result of the design is compared with them again, e.g. after the
 * calibration is applied) and the worker's latest overlay of them. Never saved with the design.
 */
import type { Design } from '@stagecraft/ir';
import { create } from 'zustand';
import type { MeasuredFile, MeasuredOverlay } from '../core/measuredOverlay.ts';
import { createViewSync } from '../gantt/viewSync.ts';
import type { WorkerRequest } from '../workerProtocol.ts';

export interface MeasuredState {
  files: MeasuredFile[];
  /** The overlay of `files` against the latest design computed; null while it is computed. */
  overlay: (MeasuredOverlay & { ok: true }) | null;
  /**
   * The design the overlay compared the files with (by identity: every edit makes a new one): its
   * calibration applies to that design only (applyCalibrationAction).
   */
  comparedWith: Design | null;
  status: 'none' | 'computing' | 'ok';
}

export const useMeasured = create<MeasuredState>()(() => ({
  files: [],
  overlay: null,
  comparedWith: null,
  status: 'none',
}));

/** The predicted and the measured timeline zoom and pan together on one axis. */
export const measuredViewSync = createViewSync();

let requested = 0;
/** The files of the latest request: a reply adopts them only if it answers that request. */
let requestedFiles: MeasuredFile[] = [];
let send: ((req: WorkerRequest) => void) | undefined;
let notify: ((text: string) => void) | undefined;
let designNow: (() => Design) | undefined;
/** The design of the latest request. */
let requestedDesign: Design | null = null;

/** The page's store connects the worker, its notice and its design (store/index.ts). */
export function connectMeasured(
  s: ((req: WorkerRequest) => void) | undefined,
  n: (text: string) => void,
  design: () => Design,
): void {
  send = s;
  notify = n;
  designNow = design;
}

function request(files: MeasuredFile[]): void {
  requested += 1;
  requestedFiles = files;
  requestedDesign = designNow?.() ?? null;
  send?.({ type: 'measure', id: requested, design: requestedDesign, files });
}

/** Files the user brought (the file input or a drop on the timeline): read and compared off the page's thread. */
export function bringMeasured(files: MeasuredFile[]): void {
  if (files.length === 0) return;
  useMeasured.setState({ status: 'computing' });
  request(files);
}

/** Files refused before they were read (too large): the overlay stays as it was. */
export function refuseMeasured(errors: readonly string[]): void {
  notify?.(errors.join('\n'));
}

/**
 * A new result of the design: the files are compared with it again (the ones still being read
 * if a bring is in flight, else the overlay's).
 */
export function remeasure(): void {
  const s = useMeasured.getState();
  const files = s.status === 'computing' ? requestedFiles : s.files;
  if (files.length > 0) request(files);
}

/** Remove, and another document opened: a trace belongs to the plan it measured, not the next design. */
export function clearMeasured(): void {
  requested += 1;
  requestedFiles = [];
  requestedDesign = null;
  useMeasured.setState({ files: [], overlay: null, comparedWith: null, status: 'none' });
}

export function receiveMeasured(id: number, overlay: MeasuredOverlay): void {
  if (id !== requested) return;
  if (!overlay.ok) {
    const s = useMeasured.getState();
    notify?.(overlay.errors.join('\n'));
    // New files that do not read leave the overlay as it was; the kept files no longer matching
    // the edited design take the overlay down (it would compare with a design that is gone), and
    // the files stay to be compared again with the next result.
    if (requestedFiles === s.files) useMeasured.setState({ overlay: null, comparedWith: null, status: 'ok' });
    else useMeasured.setState({ status: s.overlay ? 'ok' : 'none' });
    return;
  }
  useMeasured.setState({ files: requestedFiles, overlay, comparedWith: requestedDesign, status: 'ok' });
}
