// Entry of a plan job's thread: the built worker beside the compile worker when the process runs
// from the build (STAGECRAFT_BUILD names the compile worker, scripts/build.mjs writes both), else
// the TypeScript sources through tsx, as a test or a development run does. The thread takes the
// lowest CPU priority first, so that loading the compiler (a second or more) already yields to
// compiles.
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

try {
  // Nice 19: Linux's nice is per thread, and threads the search starts inherit it.
  setPriority(0, 19);
} catch {
  // Not permitted or not supported here: the search runs at normal priority.
}

if (process.env.STAGECRAFT_BUILD) {
  await import(pathToFileURL(join(dirname(process.env.STAGECRAFT_BUILD), 'planWorker.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./planWorker.ts');
}
