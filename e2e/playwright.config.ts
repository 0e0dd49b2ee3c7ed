import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH } from './chromium.ts';

// The app as users get it: the web app built, served by `stagecraft serve` with a fresh database.
// STAGECRAFT_E2E_URL points the tests at an already running server instead.
const env = process.env;
const port = Number(env.STAGECRAFT_E2E_PORT ?? 4791);
const external = env.STAGECRAFT_E2E_URL;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: 'list',
  outputDir: '../test-results',
  use: {
    baseURL: external ?? `http://127.0.0.1:${port}`,
    viewport: { width: 1600, height: 950 },
    acceptDownloads: true,
    launchOptions: CHROMIUM_LAUNCH,
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  ...(external
    ? {}
    : {
        webServer: {
          command: `node e2e/serve.mjs ${port}`,
          cwd: '..',
          url: `http://127.0.0.1:${port}/api/health`,
          timeout: 120_000,
          reuseExistingServer: false,
          stdout: 'pipe',
          stderr: 'pipe',
        },
      }),
});
