// Entry of a compile worker thread. The packages export TypeScript sources, so the worker loads
// them through tsx, as apps/cli/bin/stagecraft.mjs does for the command.
import { register } from 'tsx/esm/api';

register();
await import('./compileWorker.ts');
