import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests sit beside their sources; test/ folders hold only shared fixtures (scripts/testLocation.mjs).
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.{ts,tsx}', 'scripts/*.test.mjs'],
    testTimeout: 30_000,
    pool: 'threads',
  },
});
