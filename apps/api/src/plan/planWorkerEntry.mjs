// Entry of a plan job's thread: the built worker beside the compile worker when the process runs
// from the build (STAGECRAFT_BUILD names the compile worker, scripts/build.mjs writes both), else
// the TypeScript sources through tsx, as a test or a development run does.
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

if (process.env.STAGECRAFT_BUILD) {
  await import(pathToFileURL(join(dirname(process.env.STAGECRAFT_BUILD), 'planWorker.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./planWorker.ts');
}
