/**
 * What the `stagecraft` bin runs, from the sources (through tsx) or from the build alike: the
 * output guard, then `serve` and `plan` (the long-running commands, async, loaded only when asked
 * for so that the one-shot commands never load the HTTP server or the planner) or the synchronous
 * `main`, itself loaded only when a command needs it: `stagecraft --help` prints the usage without
 * parsing the compiler.
 */
import { GLOBAL_USAGE } from './globalUsage.ts';
import { processIo } from './io.ts';
import { guardStandardStreams } from './standardStreams.ts';

/** The arguments that ask for the global usage and nothing else (as `main` reads them). */
export function asksForUsage(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help');
}

export async function runBin(argv: readonly string[]): Promise<number> {
  guardStandardStreams();
  if (argv[0] === 'serve') {
    const { serve } = await import('./commands/serve.ts');
    return serve(argv.slice(1), processIo);
  }
  if (argv[0] === 'plan') {
    const { plan } = await import('./commands/plan.ts');
    return plan(argv.slice(1), processIo);
  }
  if (asksForUsage(argv)) {
    processIo.out(GLOBAL_USAGE);
    return 0;
  }
  const { main } = await import('./main.ts');
  return main(argv);
}
