export { type Command, parseCommandLine, usage } from './args.ts';
export type { Io } from './io.ts';
export { main } from './main.ts';
