/** The planner tab (issue 31 §3): a sweep of the current design, and a small layout search whose front opens in the designer. */
import { expect, test } from '@playwright/test';
import { openApp, settled } from './app.ts';

test('the sweep plots step, bubble and peak memory of the current design against m', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('tab-planner').click();
  await page.getByTestId('sweep-values').fill('4, 8, 2-3');
  await page.getByTestId('sweep-run').click();
  const plot = page.getByTestId('sweep-plot');
  for (const chart of ['sweep-stepMs', 'sweep-bubbleRatio', 'sweep-peakMemoryBytes'])
    await expect(plot.getByTestId(chart).locator('circle')).toHaveCount(4);
  // 1F1B on 4 ranks of 1 ms F, BI and BW: (m + 3) · 3 ms a step.
  const steps = await plot
    .getByTestId('sweep-stepMs')
    .locator('circle title')
    .evaluateAll((ts) => ts.map((t) => t.textContent));
  expect(steps).toEqual(['m=2: 15.0 ms', 'm=3: 18.0 ms', 'm=4: 21.0 ms', 'm=8: 33.0 ms']);
  // A value that is not one is refused, naming it.
  await page.getByTestId('sweep-values').fill('4, x');
  await page.getByTestId('sweep-run').click();
  await expect(page.getByTestId('notice')).toContainText('values: "x" is not a whole number from 1 up');
});

test('a small search shows its progress and front; a point of the front opens in the designer', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await openApp(page);
  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-qwen3-1b-pp2-dp2-ep2-1f1b').click();
  await settled(page);
  await page.getByTestId('tab-planner').click();
  await page.getByTestId('plan-budget').fill('5');
  await page.getByTestId('plan-start').click();
  const progress = page.getByTestId('plan-progress');
  await expect(progress).toBeVisible();
  await expect(progress).toHaveAttribute('data-status', /done|cancelled/, { timeout: 30_000 });
  const points = page.getByTestId('front-point');
  expect(await points.count()).toBeGreaterThan(0);
  expect(Number(await page.getByTestId('plan-tried').textContent())).toBeGreaterThan(0);
  // Hover shows the layout; a click selects it for the card that opens it.
  const first = points.first();
  await first.hover();
  await expect(page.getByTestId('front-tip')).toContainText(/PP\d/);
  await first.click();
  const label = (await page.getByTestId('plan-selected').locator('b').textContent()) ?? '';
  await page.getByTestId('plan-open').click();
  await expect(page.getByTestId('tab-design')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('notice')).toContainText(`opened the planner's layout ${label}`);
  expect(await settled(page)).toEqual([]);
  // Undo goes back to the design the search started from.
  await page.getByTestId('undo').click();
  await expect(page.getByTestId('design-name')).toHaveValue(/Qwen3 1B/);
  // Pin to compare: the layout is opened and pinned once computed, under its layout's name.
  await page.getByTestId('tab-planner').click();
  await points.first().click();
  await page.getByTestId('plan-pin').click();
  await expect(page.getByTestId('pin')).toHaveText('Pin (1/4)', { timeout: 30_000 });
  await page.getByTestId('tab-compare').click();
  await expect(page.getByTestId('compare').locator('figure[data-variant]')).toHaveCount(1);
});
