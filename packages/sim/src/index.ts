export { renderAsciiTimeline } from './ascii.ts';
export * from './costModel.ts';
export { simulate } from './simulate.ts';
export type * from './types.ts';
