/** The designer's smaller promises (issue 30 §4): a skip link to the timeline, fields that say when they apply. */
import { expect, test } from '@playwright/test';
import { openApp } from './app.ts';

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

test('the first tab stop skips to the timeline, past the toolbar, palette, program and DAG', async ({
  page,
}) => {
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('Tab');
  const skip = page.getByTestId('skip-to-timeline');
  await expect(skip).toBeFocused();
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
