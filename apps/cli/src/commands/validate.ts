/** `stagecraft validate <design>`: parse and compile; report every problem or one `ok:` line. */
import type { GlobalOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { compileDesign, loadDesign } from '../load.ts';

export interface ValidateCommand {
  kind: 'validate';
  design: string;
}

export function validate(cmd: ValidateCommand & GlobalOptions, io: Io): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  if (!compileDesign(design, cmd.design, cmd, io)) return 1;
  const n = design.directives.length;
  io.out(`ok: ${design.name} (${n} directive${n === 1 ? '' : 's'})`);
  return 0;
}
