#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the command works straight after `npm install`.
import { register } from 'tsx/esm/api';

register();
try {
  const { main } = await import('../src/main.ts');
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  // Only a broken install or a bug gets here (a module that fails to load): still no stack.
  process.stderr.write(`error: internal: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
  if (process.env.STAGECRAFT_DEBUG === '1' && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exitCode = 1;
}
