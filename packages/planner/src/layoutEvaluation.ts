/**
 * One layout's design compiled and simulated, keeping only its figures: the step, the largest
 * peak memory over the devices, tokens/s per GPU and whether a device runs out of memory. The
 * compile is incremental on the evaluator's previous one, so layouts tried one after another
 * reuse the passes whose inputs did not change.
 */
import type { Design } from '@stagecraft/ir';
import { DEFAULT_MAX_OPS, designSizeIssue, estimatedOps, type IncrementalState } from '@stagecraft/passes';
import { runDesign, simulateRun } from '@stagecraft/workflow';

export type LayoutEvaluation =
  | { ok: true; stepMs: number; peakMemoryBytes: number; tokensPerSecond?: number; oom: boolean }
  | { ok: false; reason: string };

export class LayoutEvaluator {
  private previous: IncrementalState | undefined;

  evaluate(design: Design): LayoutEvaluation {
    const size = designSizeIssue(design);
    if (size) return { ok: false, reason: size.message };
    if (estimatedOps(design) > DEFAULT_MAX_OPS)
      return {
        ok: false,
        reason: `about ${estimatedOps(design).toLocaleString('en-US')} ops, over the compiler's limit`,
      };
    const run = runDesign(design, { incremental: { previous: this.previous } });
    this.previous = run.incremental.state;
    if (!run.ok) return { ok: false, reason: run.errors.map((e) => `${e.path}: ${e.message}`).join('; ') };
    const result = simulateRun(run, false).result;
    if (!result.ok) return { ok: false, reason: result.errors.map((e) => e.message).join('; ') };
    const sim = result.sim;
    const out: LayoutEvaluation = {
      ok: true,
      stepMs: sim.makespanMs,
      peakMemoryBytes: Math.max(0, ...sim.devices.map((d) => d.peakMemoryBytes)),
      oom: sim.devices.some((d) => d.oom === true),
    };
    if (sim.tokensPerSecond !== undefined) out.tokensPerSecond = sim.tokensPerSecond;
    return out;
  }
}
