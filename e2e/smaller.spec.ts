/** The designer's smaller promises (issue 30 §4): a skip link to the timeline, fields that say when they apply. */
import { expect, test } from '@playwright/test';
import { openApp } from './app.ts';

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

test('the first tab stop skips to the timeline, past the toolbar, palette, program and DAG', async ({
  page,
}) => {
  // The first element a Tab reaches, in document order.
  const first = await page.evaluate(
    () =>
      document
        .querySelector(
          'button:not([disabled]), a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])',
        )
        ?.getAttribute('data-testid') ?? null,
  );
  expect(first).toBe('skip-to-timeline');
  const skip = page.getByTestId('skip-to-timeline');
  await skip.focus();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('.timeline-pane [data-testid="gantt"]')).toBeFocused();
});

test('the inspector says its fields apply on Enter or when left', async ({ page }) => {
  await page.getByTestId('directive-0').locator('.program-main').click();
  await expect(page.getByTestId('inspector-apply-hint')).toHaveText(
    'A field applies on Enter (Ctrl+Enter in a text box) or when you leave it.',
  );
});

test('"1e3" microbatches asks before compiling a design a hundred times larger', async ({ page }) => {
  await page.getByTestId('directive-0').locator('.program-main').click();
  const field = page.getByTestId('field-microbatches');
  await field.fill('1e3');
  await field.press('Enter');
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toContainText(/Compile a design \d+× larger\?/);
  await expect(dialog).toContainText(/about [\d,]+ ops/);
  await page.getByTestId('confirm-cancel').click();
  await expect(page.getByTestId('directive-0')).toContainText('m=8');
  await field.fill('1e3');
  await field.press('Enter');
  await page.getByTestId('confirm-accept').click();
  await expect(page.getByTestId('directive-0')).toContainText('m=1000');
});

for (const example of [
  'llama3-8b-dgx-h100-pp4-1f1b',
  'qwen3-30b-a3b-pp4-ep8-dualpipev',
  'deepseek-v3-pp16-ep128-dualpipe',
]) {
  test(`at 1440×900 the metric bar of ${example} keeps to one row, and a long name fits the header`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('open-examples').click();
    await page.getByTestId(`example-${example}`).click();
    await expect(page.getByTestId('compute-status')).toContainText('recomputed', { timeout: 30_000 });
    const tops = await page
      .locator('.metrics .metric')
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(new Set(tops).size, `metric rows: ${tops.join(', ')}`).toBe(1);
    const name = page.getByTestId('design-name');
    await name.fill(`${'A very long design name, '.repeat(3)}with every detail in it`);
    await name.press('Enter');
    // Nothing of the header leaves the screen: every button stays whole and in view.
    for (const b of await page.locator('header.toolbar button').all()) {
      const box = (await b.boundingBox())!;
      expect(box.x + box.width, (await b.textContent()) ?? '').toBeLessThanOrEqual(1440);
    }
    const header = page.locator('header.toolbar');
    expect(await header.evaluate((h) => h.scrollWidth <= h.clientWidth)).toBe(true);
  });
}
