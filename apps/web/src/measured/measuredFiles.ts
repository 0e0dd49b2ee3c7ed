/** Browser files (a file input's or a drop's) as the overlay reads them: name and text. */
import type { MeasuredFile } from '../core/measuredOverlay.ts';
import { bringMeasured, refuseMeasured } from '../store/measured.ts';

/**
 * Largest trace the page reads, as the CLI's default input limit (apps/cli/src/inputFile.ts): a
 * dropped 477 MB trace was read whole (2.7 GB of memory and a stall of the page) before anything
 * looked at it. Larger traces are for `stagecraft compare --measured`, which streams nothing
 * either but runs outside the browser and takes --max-input-bytes.
 */
export const MAX_MEASURED_FILE_BYTES = 64 * 1024 * 1024;

/** Files over the limit, each as the line the page shows; judged by size before any is read. */
export function oversizeFiles(list: readonly { name: string; size: number }[]): string[] {
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  return list
    .filter((f) => f.size > MAX_MEASURED_FILE_BYTES)
    .map(
      (f) =>
        `${f.name}: ${mib(f.size)}, over the ${mib(MAX_MEASURED_FILE_BYTES)} the page reads; compare it with \`stagecraft compare <design> --measured ${f.name}\``,
    );
}

export async function readBrowserFiles(list: FileList | readonly File[]): Promise<MeasuredFile[]> {
  return Promise.all([...list].map(async (f) => ({ name: f.name, text: await f.text() })));
}

/** Reads the files, then hands them to the worker (store/measured.ts); refuses oversized ones unread. */
export async function bringBrowserFiles(list: FileList | readonly File[] | null): Promise<void> {
  if (!list || list.length === 0) return;
  const oversize = oversizeFiles([...list]);
  if (oversize.length > 0) {
    refuseMeasured(oversize);
    return;
  }
  bringMeasured(await readBrowserFiles(list));
}
