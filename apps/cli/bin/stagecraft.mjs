#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the command works straight after `npm install`.
import { register } from 'tsx/esm/api';

register();
try {
  const argv = process.argv.slice(2);
  const { guardStandardStreams } = await import('../src/standardStreams.ts');
  guardStandardStreams();
  if (argv[0] === 'serve') {
    // The one long-running command: async, so it does not go through the synchronous main.
    const { serve } = await import('../src/commands/serve.ts');
    const { processIo } = await import('../src/io.ts');
    process.exitCode = await serve(argv.slice(1), processIo);
  } else {
    const { main } = await import('../src/main.ts');
    process.exitCode = main(argv);
  }
} catch (e) {
  // Only a broken install or a bug gets here (a module that fails to load): still no stack.
  process.stderr.write(`error: internal: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
  if (process.env.STAGECRAFT_DEBUG === '1' && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exitCode = 1;
}
