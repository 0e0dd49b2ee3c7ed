// Types of scripts/build.mjs for the TypeScript that imports it (the tests of the build).
export declare const ROOT: string;
export declare const BUILD_DIR: string;
export declare function builtEntries(dir?: string): { cli: string; worker: string };
export type BuildState = { fresh: true } | { fresh: false; reason: string };
export declare function buildState(dir?: string): BuildState;
export declare function build(dir?: string): Promise<void>;
export declare function ensureBuilt(): Promise<void>;
