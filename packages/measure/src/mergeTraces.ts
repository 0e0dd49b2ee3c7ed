/**
 * Per-rank trace files into one measured step. A device measured twice (two files claiming rank 3)
 * is refused rather than averaged: it is almost always a mis-named file.
 */
import { type Issue, issue } from '@stagecraft/ir';
import type { MeasuredDevice, MeasuredStep, TraceSource } from './measuredStep.ts';

export function mergeTraces(
  reads: readonly { file: string; step: MeasuredStep }[],
): { ok: true; step: MeasuredStep } | { ok: false; errors: Issue[] } {
  const owner = new Map<number, string>();
  const devices: MeasuredDevice[] = [];
  const sources = new Set<TraceSource>();
  const errors: Issue[] = [];
  let aligned = true;
  /** The first file recording the plan it measured, and that plan: the others must agree. */
  let planOf: { file: string; fingerprint: string } | undefined;
  for (const { file, step } of reads) {
    if (step.planFingerprint !== undefined) {
      if (planOf === undefined) planOf = { file, fingerprint: step.planFingerprint };
      else if (planOf.fingerprint !== step.planFingerprint)
        errors.push(
          issue(
            file,
            `measured plan ${step.planFingerprint}, but ${planOf.file} measured plan ${planOf.fingerprint}: give the traces of one run`,
          ),
        );
    }
    for (const s of step.sources) sources.add(s);
    aligned &&= step.alignedClocks;
    for (const d of step.devices) {
      const first = owner.get(d.device);
      if (first !== undefined) {
        errors.push(
          issue(file, `device ${d.device} is also measured in ${first}: give each rank's trace once`),
        );
        continue;
      }
      owner.set(d.device, file);
      devices.push(d);
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  devices.sort((a, b) => a.device - b.device);
  return {
    ok: true,
    step: {
      sources: [...sources],
      alignedClocks: aligned,
      devices,
      ...(planOf ? { planFingerprint: planOf.fingerprint } : {}),
    },
  };
}
