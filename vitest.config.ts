import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests sit beside their sources; test/ folders hold only shared fixtures (scripts/testLocation.mjs),
    // except the repository's own checks in the root test/ (the import floors) and the arithmetic
    // of the benchmarks in bench/.
    include: [
      'bench/*.test.ts',
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.{ts,tsx}',
      'scripts/*.test.mjs',
      'test/**/*.test.ts',
    ],
    testTimeout: 30_000,
    pool: 'threads',
  },
});
