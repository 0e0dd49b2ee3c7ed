/** `stagecraft compile <design> [-o plan.json]`: the stagecraft/plan@2 document. */
import { formatStageLayers, layersPerStage } from '@stagecraft/passes';
import { formatCount, formatMs } from '../format.ts';
import type { GlobalOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { compileDesign, loadDesign } from '../load.ts';
import { writeOutput } from './output.ts';

/** Above this many ops a plan is written without indentation: it is for programs, not eyes. */
const INDENT_LIMIT = 100_000;

export interface CompileCommand {
  kind: 'compile';
  design: string;
  output?: string;
}

export function compilePlan(cmd: CompileCommand & GlobalOptions, io: Io): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  const run = compileDesign(design, cmd.design, cmd, io);
  if (!run) return 1;
  const { plan, ops } = run.compiled;
  const json = `${JSON.stringify(plan, null, ops > INDENT_LIMIT ? undefined : 2)}\n`;
  if (cmd.output === undefined) {
    io.out(json);
    return 0;
  }
  if (!writeOutput(json, cmd.output, io)) return 1;
  io.out(
    `wrote ${cmd.output}: ${formatCount(ops)} ops on ${plan.devices.length} devices (compiled in ${formatMs(run.compileMs)})`,
  );
  const stages = layersPerStage(design.model);
  if (stages) io.out(`layers per stage: ${formatStageLayers(stages)}`);
  return 0;
}
