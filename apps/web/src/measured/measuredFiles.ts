/** Browser files (a file input's or a drop's) as the overlay reads them: name and text. */
import type { MeasuredFile } from '../core/measuredOverlay.ts';
import { bringMeasured } from '../store/measured.ts';

export async function readBrowserFiles(list: FileList | readonly File[]): Promise<MeasuredFile[]> {
  return Promise.all([...list].map(async (f) => ({ name: f.name, text: await f.text() })));
}

/** Reads the files, then hands them to the worker (store/measured.ts). */
export async function bringBrowserFiles(list: FileList | readonly File[] | null): Promise<void> {
  if (!list || list.length === 0) return;
  bringMeasured(await readBrowserFiles(list));
}
