// Entry of a layout-search worker thread: the built worker beside the built compile worker when
// the process runs from the build (the `stagecraft` bin sets STAGECRAFT_BUILD to the compile
// worker), else the TypeScript sources through tsx, as a test or a development run does.
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

if (process.env.STAGECRAFT_BUILD) {
  await import(pathToFileURL(join(dirname(process.env.STAGECRAFT_BUILD), 'layoutWorker.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./layoutWorker.ts');
}
