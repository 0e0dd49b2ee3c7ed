/**
 * What the `stagecraft` bin runs, from the sources (through tsx) or from the build alike: the
 * output guard, then `serve` and `plan` (the long-running commands, async, loaded only when asked
 * for so that the one-shot commands never load the HTTP server or the planner) or the synchronous `main`.
 */
import { processIo } from './io.ts';
import { main } from './main.ts';
import { guardStandardStreams } from './standardStreams.ts';

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
  return main(argv);
}
