// Entry of a compile worker thread: the built worker when the process runs from the build (the
// `stagecraft` bin sets STAGECRAFT_BUILD to it), else the TypeScript sources through tsx, as a
// test of the pool or a development run does.
import { pathToFileURL } from 'node:url';

if (process.env.STAGECRAFT_BUILD) {
  await import(pathToFileURL(process.env.STAGECRAFT_BUILD).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./compileWorker.ts');
}
