/** `stagecraft validate <design>`: parse and compile; report every problem or one `ok:` line. */
import type { Command } from '../args.ts';
import type { Io } from '../io.ts';
import { compileDesign, loadDesign } from '../load.ts';

export function validate(cmd: Extract<Command, { kind: 'validate' }>, io: Io): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  if (!compileDesign(design, cmd.design, cmd, io)) return 1;
  const n = design.directives.length;
  io.out(`ok: ${design.name} (${n} directive${n === 1 ? '' : 's'})`);
  return 0;
}
