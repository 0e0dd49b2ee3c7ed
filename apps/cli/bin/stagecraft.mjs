#!/usr/bin/env node
// Runs the built JavaScript (apps/cli/dist, made by scripts/build.mjs) when it is up to date with
// the sources, so the command starts at once; otherwise, or with STAGECRAFT_FROM_SOURCES=1 (for
// development: edit and run, no build step), the TypeScript sources through tsx. Both run the same
// entry, apps/cli/src/bin.ts. The compile workers of `serve` follow the choice made here
// (STAGECRAFT_BUILD, read by apps/api/src/pool/workerEntry.mjs).
import { pathToFileURL } from 'node:url';
import { buildState, builtEntries } from '../../../scripts/build.mjs';

function chooseBuild() {
  if (process.env.STAGECRAFT_FROM_SOURCES === '1') return false;
  const state = buildState();
  if (state.fresh) return true;
  // Said only to a person at a terminal: scripts and tests get the same output either way.
  if (process.stderr.isTTY)
    process.stderr.write(`note: ${state.reason}; running from sources (npm run build to rebuild)\n`);
  return false;
}

try {
  let runBin;
  if (chooseBuild()) {
    const built = builtEntries();
    if (process.env.STAGECRAFT_DEBUG === '1') process.setSourceMapsEnabled(true);
    process.env.STAGECRAFT_BUILD = built.worker;
    ({ runBin } = await import(pathToFileURL(built.cli).href));
  } else {
    delete process.env.STAGECRAFT_BUILD;
    const { register } = await import('tsx/esm/api');
    register();
    ({ runBin } = await import('../src/bin.ts'));
  }
  process.exitCode = await runBin(process.argv.slice(2));
} catch (e) {
  // Only a broken install or a bug gets here (a module that fails to load): still no stack.
  process.stderr.write(`error: internal: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
  if (process.env.STAGECRAFT_DEBUG === '1' && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exitCode = 1;
}
