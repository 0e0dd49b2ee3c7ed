/**
 * The README's screenshots, taken from the running app (`npx tsx e2e/screenshots.ts`): the main
 * view of the default example after a split_backward drop, the compare view of three pinned
 * schedules, a real model (Qwen3-30B-A3B, PP 4 × EP 8, DualPipeV) from the examples gallery, and
 * a mesh at full scale (Llama 3.1 405B, TP8 × PP16 × DP64 on 8,192 GPUs), and the planner tab
 * (Qwen3-1B's design swept against m, and a layout search of its model).
 * Writes docs/screenshots/main.png, compare.png, real-model.png, mesh.png and planner.png.
 */
import { join } from 'node:path';
import { chromium, expect, type Page } from '@playwright/test';
import { settled } from './app.ts';
import { REPOSITORY_ROOT as root, startAppServer } from './appServer.ts';
import { CHROMIUM_LAUNCH } from './chromium.ts';

const port = 4794;

/** Opens an example from the gallery on a fresh page and waits for its result and DAG. */
async function openExample(page: Page, base: string, file: string, name: RegExp): Promise<void> {
  await page.goto('about:blank');
  await page.setViewportSize({ width: 1680, height: 1000 });
  await page.goto(base);
  await settled(page);
  await page.getByTestId('open-examples').click();
  await page.getByTestId(`example-${file}`).click();
  await expect(page.getByTestId('design-name')).toHaveValue(name);
  // Its timeline is drawn on a canvas (thousands of ops), its DAG laid out after: a mesh example
  // compiles for seconds on a loaded machine.
  expect(await settled(page, { timeout: 60_000 })).toEqual([]);
  // The DAG's layout follows the result: wait until it is the opened design's, not the default's.
  await expect(page.locator('.dag-lane-title').first()).not.toHaveText('device 0', { timeout: 60_000 });
  await page.waitForTimeout(1500);
}

async function main(): Promise<void> {
  const server = await startAppServer(port);
  const { base } = server;
  try {
    const browser = await chromium.launch(CHROMIUM_LAUNCH);
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
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(base);
    await settled(page);
    await page.getByTestId('pin').click();
    await page.getByTestId('palette-zb-h1').click();
    await settled(page);
    await page.getByTestId('pin').click();
    await page.getByTestId('palette-dualpipev').click();
    await settled(page);
    await page.getByTestId('pin').click();
    // The builder switch's notice has been read: the picture is of the comparison.
    const notice = page.getByTestId('notice');
    if (await notice.count()) await notice.getByRole('button', { name: 'dismiss' }).click();
    await page.getByTestId('tab-compare').click();
    await expect(page.getByTestId('compare').locator('figure[data-variant]')).toHaveCount(3);
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(root, 'docs/screenshots/compare.png') });
    // A real model: Qwen3-30B-A3B on four DGX H100 nodes, opened from the gallery.
    await openExample(page, base, 'qwen3-30b-a3b-pp4-ep8-dualpipev', /Qwen3-30B-A3B/i);
    await page.screenshot({ path: join(root, 'docs/screenshots/real-model.png') });
    // A mesh at full scale: each stage a dp64 × tp8 mesh strided over the cluster.
    await openExample(page, base, 'llama3.1-405b-tp8-pp16-dp64', /405B/);
    await page.screenshot({ path: join(root, 'docs/screenshots/mesh.png') });
    // The planner on Qwen3-1B (PP 2 × DP 2 × EP 2 on one node): a sweep of the design against m,
    // then a short search of its model's layouts, the fastest point hovered.
    await page.goto('about:blank');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(base);
    await settled(page);
    await page.getByTestId('open-examples').click();
    await page.getByTestId('example-qwen3-1b-pp2-dp2-ep2-1f1b').click();
    await settled(page);
    await page.getByTestId('tab-planner').click();
    await page.getByTestId('sweep-values').fill('2, 4, 8, 16, 32');
    await page.getByTestId('sweep-run').click();
    await expect(page.getByTestId('sweep-stepMs').locator('circle')).toHaveCount(5, { timeout: 60_000 });
    await page.getByTestId('plan-budget').fill('15');
    await page.getByTestId('plan-start').click();
    await expect(page.getByTestId('plan-progress')).toHaveAttribute('data-status', /done|cancelled/, {
      timeout: 60_000,
    });
    await page.locator('[data-testid="front-point"].best').hover();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(root, 'docs/screenshots/planner.png') });
    await browser.close();
  } finally {
    server.stop();
  }
}

await main();
