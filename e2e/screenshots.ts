/**
 * The README's screenshots, taken from the running app (`npx tsx e2e/screenshots.ts`): the main
 * view of the default example after a split_backward drop, and the compare view of three pinned
 * schedules. Writes docs/screenshots/main.png and docs/screenshots/compare.png.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, expect, type Page } from '@playwright/test';

const env = process.env;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = 4794;
const base = `http://127.0.0.1:${port}`;

async function waitForServer(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the server did not start');
}

async function settled(page: Page): Promise<void> {
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
}

async function main(): Promise<void> {
  const server: ChildProcess = spawn(process.execPath, [join(root, 'e2e/serve.mjs'), String(port)], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitForServer();
    const browser = await chromium.launch({
      executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const page = await browser.newPage({ viewport: { width: 1680, height: 1000 }, deviceScaleFactor: 1 });
    // Main: the default example, split backward dropped on stage 1, the new BW node hovered.
    await page.goto(base);
    await settled(page);
    await page.getByTestId('palette-split_backward').dragTo(page.locator('[data-node-id="B.b1.mb0"]'));
    await settled(page);
    await page.locator('[data-node-id="BW.b1.mb0"]').hover();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(root, 'docs/screenshots/main.png') });
    // Compare: 1F1B, Zero Bubble H1 and DualPipeV on the same model, from a fresh page.
    await page.goto('about:blank');
    await page.setViewportSize({ width: 1680, height: 1320 });
    await page.goto(base);
    await settled(page);
    await page.getByTestId('pin').click();
    await page.getByTestId('palette-zb-h1').click();
    await settled(page);
    await page.getByTestId('pin').click();
    await page.getByTestId('palette-dualpipev').click();
    await settled(page);
    await page.getByTestId('pin').click();
    await page.getByTestId('tab-compare').click();
    await expect(page.getByTestId('compare').locator('figure[data-variant]')).toHaveCount(3);
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(root, 'docs/screenshots/compare.png') });
    await browser.close();
  } finally {
    server.kill('SIGTERM');
  }
}

await main();
