/** Files and small annoyances (issue 22, items 9 and 10): export names per format, a refusal that goes. */
import { expect, test } from '@playwright/test';
import { dragOp, openApp } from './app.ts';

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

test('every export is named after the design, sanitised alike, with a suffix of its own', async ({
  page,
}) => {
  const names: string[] = [];
  for (const kind of [
    'chrome-trace',
    'torch-csv-compute_only',
    'torch-csv-compute_comms',
    'piper',
    'plan',
    'design',
  ]) {
    await page.getByTestId('export-menu').click();
    const download = page.waitForEvent('download');
    await page.getByTestId(`export-${kind}`).click();
    names.push((await download).suggestedFilename());
  }
  expect(names).toEqual([
    '1F1B-p4-m8-trace.json',
    '1F1B-p4-m8-compute.csv',
    '1F1B-p4-m8-comms.csv',
    '1F1B-p4-m8-piper.json',
    '1F1B-p4-m8-plan.json',
    '1F1B-p4-m8.json',
  ]);
});

test('a refused timeline move says why until the user clicks it away', async ({ page }) => {
  await dragOp(page, 'B.b0.mb0', 'F.b0.mb0', 'before');
  const refusal = page.getByTestId('gantt-refusal');
  await expect(refusal).toBeVisible();
  await refusal.click();
  await expect(refusal).toBeHidden();
});

test('at 1280×720 no metric value breaks over two lines', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  // A value on one line is under two of its font sizes high; a wrapped one is over.
  const lines = await page
    .locator('.metric-value')
    .evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(e).fontSize)),
    );
  expect(lines.length).toBeGreaterThan(4);
  for (const ratio of lines) expect(ratio).toBeLessThan(1.8);
});
