/** Files and small annoyances (issue 22, items 9 and 10): export names per format, a refusal that goes. */
import { expect, test } from '@playwright/test';
import { dragOp, openApp, settled } from './app.ts';

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

test('the export menu greys the formats the design cannot be written in, with the reason, and says plan@3 on meshes', async ({
  page,
}) => {
  // Llama-3-70B on 64 GPUs compiles for seconds, and settled() waits for its DAG too.
  test.setTimeout(60_000);
  await page
    .getByTestId('palette-recompute')
    .dragTo(page.getByTestId('gantt').locator('[data-op-id="F.b2.mb3"]'));
  await expect(page.getByTestId('directive-1')).toContainText('recompute');
  expect(await settled(page)).toEqual([]);
  await page.getByTestId('export-menu').click();
  const piper = page.getByTestId('export-piper');
  await expect(piper).toBeDisabled();
  await expect(piper).toContainText('recompute has no Piper op');
  await expect(page.getByTestId('export-torch-csv-compute_only')).toBeEnabled();
  await expect(page.getByTestId('export-plan')).toHaveText('Plan (stagecraft/plan@2)');
  await page.getByTestId('export-menu').click();

  // Llama-3-70B TP8 × PP4 × DP2: tensor parallel on meshes.
  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-llama3-70b-tp8-pp4-dp2').click();
  expect(await settled(page)).toEqual([]);
  await page.getByTestId('export-menu').click();
  for (const kind of ['torch-csv-compute_only', 'torch-csv-compute_comms']) {
    const item = page.getByTestId(`export-${kind}`);
    await expect(item).toBeDisabled();
    await expect(item).toContainText('torch.distributed.pipelining runs a pure pipeline: tensor parallelism');
  }
  await expect(page.getByTestId('export-plan')).toHaveText('Plan (stagecraft/plan@3)');
  await expect(page.getByTestId('export-chrome-trace')).toBeEnabled();
});
