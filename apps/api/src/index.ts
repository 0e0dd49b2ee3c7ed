export { type AppOptions, buildApp } from './app.ts';
export { canonicalJson, contentHash } from './canonical.ts';
export { type CompileInclude, compileResponse, DEFAULT_INCLUDE } from './compileResponse.ts';
export { DESIGN_ID, DesignStore } from './designStore.ts';
export { ApiError } from './errors.ts';
export { DEFAULT_LIMITS, type Limits } from './limits.ts';
export { CompilePool } from './pool/compilePool.ts';
export { ResultCache } from './resultCache.ts';
export {
  DEFAULT_DB,
  DEFAULT_HOST,
  DEFAULT_PORT,
  type RunningServer,
  type ServerOptions,
  startServer,
} from './server.ts';
export { WebApp } from './webApp.ts';
