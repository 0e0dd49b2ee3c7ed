/** The examples gallery in sections, with search, saying which examples do not fit in memory (issue 30, §4). */
import { readdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { openApp } from './app.ts';

test('the gallery groups its examples, finds them by search and says which do not fit in memory', async ({
  page,
}) => {
  await openApp(page);
  await page.getByTestId('open-examples').click();
  const gallery = page.getByTestId('examples-gallery');
  for (const group of ['schedules', 'real-models', 'meshes'])
    await expect(gallery.getByTestId(`gallery-group-${group}`)).toBeVisible();
  await expect(
    gallery.getByTestId('gallery-group-schedules').getByTestId('example-1f1b-p4-m8'),
  ).toBeVisible();
  await expect(
    gallery.getByTestId('gallery-group-meshes').getByTestId('example-llama3.1-405b-tp8-pp16-dp64'),
  ).toBeVisible();
  // Every example of the repository is in one section, once.
  const examples = readdirSync(new URL('../examples/', import.meta.url)).filter((f) => f.endsWith('.json'));
  const cards = await gallery.locator('[data-testid^="example-"]').count();
  expect(cards).toBe(examples.length);
  // ZeRO-1 overflows all 32 GPUs, ZeRO-3 fits.
  await expect(gallery.getByTestId('example-llama3-70b-pp4-dp8-zero1').getByTestId('gallery-oom')).toHaveText(
    /^does not fit: 32 of 32 GPUs over memory \(peak \d+\.\d GiB\)$/,
  );
  await expect(
    gallery.getByTestId('example-llama3-70b-pp4-dp8-zero3').getByTestId('gallery-oom'),
  ).toHaveCount(0);
  // Search narrows every section at once.
  await gallery.getByTestId('gallery-search').fill('405b');
  await expect(gallery.locator('[data-testid^="example-"]')).toHaveCount(
    examples.filter((f) => f.includes('405b')).length,
  );
  await expect(gallery.getByTestId('gallery-group-schedules')).toHaveCount(0);
  await gallery.getByTestId('gallery-search').fill('no such example');
  await expect(gallery).toContainText('No example matches “no such example”');
});
