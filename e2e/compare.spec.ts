/** Compare (issue 22, item 6): four variants on one 1440×900 screen, renamed, against a chosen baseline. */
import { expect, test } from '@playwright/test';
import { openApp, settled } from './app.ts';

test.use({ viewport: { width: 1440, height: 900 } });

test('four pinned variants fit one 1440×900 screen, renamed, against a chosen baseline, best per row marked', async ({
  page,
}) => {
  await openApp(page);
  const pin = page.getByTestId('pin');
  await pin.click();
  for (const builder of ['zb-h1', 'gpipe', 'dualpipev']) {
    await page.getByTestId(`palette-${builder}`).click();
    await expect(page.getByTestId('directive-0')).toContainText(builder);
    await settled(page);
    await pin.click();
  }
  // At 4/4 the pin button says why it does nothing, and a click says it too.
  await expect(pin).toHaveText('Pin (4/4)');
  await expect(pin).toHaveAttribute('aria-disabled', 'true');
  await expect(pin).toHaveAttribute('title', /4 variants are pinned.*unpin one/);
  // (Playwright treats aria-disabled as disabled: the click is forced, as a user's click is not held back.)
  await pin.click({ force: true });
  await expect(page.getByTestId('notice')).toContainText(
    'at most 4 variants can be compared: unpin one first',
  );

  await page.getByTestId('tab-compare').click();
  const compare = page.getByTestId('compare');
  const figures = compare.locator('figure[data-variant]');
  await expect(figures).toHaveCount(4);
  // Every variant's timeline is whole on screen, without scrolling.
  for (let i = 0; i < 4; i++) {
    const box = await figures.nth(i).boundingBox();
    expect(box, `variant ${i}`).not.toBeNull();
    expect(box!.y + box!.height, `bottom of variant ${i}`).toBeLessThanOrEqual(900);
    expect(box!.x + box!.width).toBeLessThanOrEqual(1440);
  }

  // The best step time is starred: ZB-H1 and DualPipeV tie at 27 ms, ahead of 1F1B and GPipe.
  const ids = await figures.evaluateAll((fs) => fs.map((f) => f.getAttribute('data-variant')!));
  const stepRow = compare.locator('tr[data-metric="step"]');
  const best = await stepRow
    .locator('td[data-best]')
    .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-variant')));
  expect(best).toEqual([ids[1], ids[3]]);

  // Rename the last pin.
  const last = ids[3]!;
  await compare.getByTestId(`rename-pin-${last}`).click();
  await compare.getByTestId(`pin-name-${last}`).fill('DualPipeV, mine');
  await compare.getByTestId(`pin-name-${last}`).press('Enter');
  await expect(compare.getByTestId(`pin-label-${last}`)).toHaveText('DualPipeV, mine');
  await expect(figures.nth(3).locator('figcaption')).toContainText('DualPipeV, mine');

  // Choose ZB-H1 (the second pin) as the baseline: the differences are taken against it.
  await compare.getByTestId(`baseline-${ids[1]}`).check();
  await expect(stepRow.locator(`td[data-variant="${ids[1]}"]`)).toHaveAttribute('data-verdict', 'baseline');
  await expect(stepRow.locator(`td[data-variant="${ids[0]}"]`)).toHaveAttribute('data-verdict', 'worse');
  await expect(stepRow.locator('td[data-verdict="baseline"]')).toHaveCount(1);
});

test('variants of different batches are named by builder and m and ranked by time per microbatch, not step time', async ({
  page,
}) => {
  await openApp(page);
  await page.getByTestId('pin').click();
  await page.getByTestId('directive-0').locator('.program-main').click();
  const field = page.getByTestId('field-microbatches');
  await field.fill('16');
  await field.press('Enter');
  await expect(page.getByTestId('directive-0')).toContainText('m=16');
  expect(await settled(page)).toEqual([]);
  await page.getByTestId('pin').click();

  await page.getByTestId('tab-compare').click();
  const compare = page.getByTestId('compare');
  const figures = compare.locator('figure[data-variant]');
  await expect(figures).toHaveCount(2);
  const [m8, m16] = await figures.evaluateAll((fs) => fs.map((f) => f.getAttribute('data-variant')!));
  await expect(compare.getByTestId(`pin-label-${m8}`)).toHaveText('1F1B m=8');
  await expect(compare.getByTestId(`pin-label-${m16}`)).toHaveText('1F1B m=16');

  // m = 16's longer step is not a loss: neither red nor starred.
  const step = compare.locator('tr[data-metric="step"]');
  await expect(step).toContainText('batches differ');
  await expect(step.locator(`td[data-variant="${m16}"]`)).toHaveAttribute('data-verdict', 'differs');
  await expect(step.locator('td[data-best]')).toHaveCount(0);
  await expect(compare.locator('tr[data-metric="microbatches"]')).toContainText('16');
  const perMicrobatch = compare.locator('tr[data-metric="time-per-microbatch"]');
  await expect(perMicrobatch.locator(`td[data-variant="${m16}"]`)).toHaveAttribute('data-verdict', 'better');
  await expect(perMicrobatch.locator(`td[data-variant="${m16}"]`)).toHaveAttribute('data-best', 'true');
});
