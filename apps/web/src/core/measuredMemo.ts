/**
 * The worker's memory of the last measured overlay: each new result of the design compares the
 * kept trace files again (store/measured.ts), and parsing a large trace took most of that (100,000
 * spans: 18 s before matching was made linear, still the larger part after). The files are read
 * once while they stay the same; the overlay is made again only when the design changed too.
 */
import type { Design } from '@stagecraft/ir';
import {
  type MeasuredFile,
  type MeasuredOverlay,
  measuredOverlay,
  readMeasuredFiles,
} from './measuredOverlay.ts';

let lastFiles: readonly MeasuredFile[] = [];
let lastRead: ReturnType<typeof readMeasuredFiles> | undefined;
let lastDesign = '';
let lastOverlay: MeasuredOverlay | undefined;
const counts = { reads: 0, overlays: 0 };

function sameFiles(a: readonly MeasuredFile[], b: readonly MeasuredFile[]): boolean {
  return a.length === b.length && a.every((f, i) => f.name === b[i]!.name && f.text === b[i]!.text);
}

export function measuredOverlayOnce(design: Design, files: readonly MeasuredFile[]): MeasuredOverlay {
  const key = JSON.stringify(design);
  if (!lastRead || !sameFiles(lastFiles, files)) {
    lastFiles = files;
    lastRead = readMeasuredFiles(files);
    counts.reads += 1;
    lastOverlay = undefined;
  } else if (lastOverlay && key === lastDesign) return lastOverlay;
  lastDesign = key;
  lastOverlay = measuredOverlay(design, files, lastRead);
  counts.overlays += 1;
  return lastOverlay;
}

/** Files read and overlays made so far: what an edit costs, for tests. */
export function measuredWork(): { reads: number; overlays: number } {
  return { ...counts };
}
