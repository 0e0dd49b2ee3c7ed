/**
 * The app's measured overlay: trace files the user brought, read and merged as the CLI reads them
 * (same errors, each naming the file and the event), the design's prediction set beside them
 * (replay and divergences), the measured step as a timeline, and the calibrated model and cluster
 * the "Apply calibration" action puts into the design. Pure: the compile worker runs it.
 */
import type { Cluster, Design, Issue, Model } from '@stagecraft/ir';
import {
  calibrate,
  compareMeasured,
  type MeasuredStep,
  type MeasuredTimeline,
  measuredTimeline,
  mergeTraces,
  type Replay,
  readMeasurement,
} from '@stagecraft/measure';
import { runDesign } from '@stagecraft/workflow';

export interface MeasuredFile {
  readonly name: string;
  readonly text: string;
}

export interface CalibratedParts {
  readonly model: Model;
  readonly cluster: Cluster;
  /** The calibrated design's predicted step. */
  readonly predictedStepMs: number;
}

export type MeasuredOverlay =
  | {
      ok: true;
      files: string[];
      sources: string[];
      alignedClocks: boolean;
      replay: Replay;
      timeline: MeasuredTimeline;
      /** Spans naming ids the plan does not have: a typo shows instead of reading as a missing op. */
      unmatched: { device: number; id: string }[];
      /** Null with `calibrationError` when the measured step could not be fitted. */
      calibrated: CalibratedParts | null;
      calibrationError?: string;
    }
  | { ok: false; errors: string[] };

/** One error line as the CLI prints it: the file, then the place in it, then what is wrong. */
function line(file: string, e: Issue): string {
  const at = [file, e.path].filter((p) => p !== '' && p !== undefined).join(': ');
  return at ? `${at}: ${e.message}` : e.message;
}

export function readMeasuredFiles(
  files: readonly MeasuredFile[],
): { ok: true; step: MeasuredStep } | { ok: false; errors: string[] } {
  if (files.length === 0) return { ok: false, errors: ['no file was given'] };
  const reads: { file: string; step: MeasuredStep }[] = [];
  const errors: string[] = [];
  for (const f of files) {
    const r = readMeasurement(f.text, f.name);
    if (!r.ok) errors.push(...r.errors.map((e) => line(f.name, e)));
    else if (r.kind === 'table')
      errors.push(
        `${f.name}: a table of stage costs has no spans to draw beside the prediction: calibrate from it with \`stagecraft calibrate\``,
      );
    else reads.push({ file: f.name, step: r.step });
  }
  if (errors.length > 0) return { ok: false, errors };
  const merged = mergeTraces(reads);
  return merged.ok ? merged : { ok: false, errors: merged.errors.map((e) => line('', e)) };
}

export function measuredOverlay(
  design: Design,
  files: readonly MeasuredFile[],
  read: ReturnType<typeof readMeasuredFiles> = readMeasuredFiles(files),
): MeasuredOverlay {
  if (!read.ok) return read;
  const names = files.map((f) => f.name);
  // The calibration replays the design as it is first (its `before`), which is the comparison:
  // only when it cannot fit is the comparison made on its own.
  const fitted = calibrate(design, read.step, { files: names, sources: read.step.sources });
  const compared = fitted.ok
    ? { ok: true as const, match: fitted.match, replay: fitted.before, steps: fitted.fits.steps }
    : compareMeasured(design, read.step);
  if (!compared.ok) return { ok: false, errors: compared.errors.map((e) => line('', e)) };
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) return { ok: false, errors: run.errors.map((e) => line('', e)) };
  const timeline = measuredTimeline(
    run.compiled.plan,
    compared.match.matched,
    compared.steps,
    read.step.alignedClocks,
  );
  return {
    ok: true,
    files: names,
    sources: [...read.step.sources],
    alignedClocks: read.step.alignedClocks,
    replay: compared.replay,
    timeline,
    unmatched: [...compared.match.unmatched],
    calibrated: fitted.ok
      ? {
          model: fitted.design.model,
          cluster: fitted.design.cluster,
          predictedStepMs: fitted.after.predictedStepMs,
        }
      : null,
    ...(fitted.ok ? {} : { calibrationError: fitted.errors.map((e) => line('', e)).join('; ') }),
  };
}
