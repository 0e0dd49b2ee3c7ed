/**
 * Saved designs (issue 22, item 11): an edited example forks once, Ctrl+S with nothing changed
 * adds no version, and Open renames, deletes and searches.
 */
import { expect, type Page, test } from '@playwright/test';
import { openApp, settled } from './app.ts';

interface Saved {
  id: string;
  name: string;
  version: number;
}

async function savedDesigns(page: Page): Promise<Saved[]> {
  const r = await page.request.get('/api/designs');
  return ((await r.json()) as { designs: Saved[] }).designs;
}

async function designId(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (
        window as unknown as { stagecraft: { store: { getState(): { designId: string } } } }
      ).stagecraft.store.getState().designId,
  );
}

test('an example edited again and again, and opened again, is one saved design with a version per save', async ({
  page,
}) => {
  await openApp(page);
  const before = await savedDesigns(page);
  const status = page.getByTestId('save-status');
  await page.getByTestId('palette-gpipe').click();
  await expect(status).toHaveText('saved · v1');
  await page.getByTestId('palette-zb-h1').click();
  await expect(status).toHaveText('saved · v2');
  await page.getByTestId('palette-1f1b').click();
  await expect(status).toHaveText('saved · v3');
  const fork = await designId(page);
  // Opened again from the gallery and edited: a version of the same copy, not another copy.
  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-1f1b-p4-m8').click();
  await settled(page);
  await expect(status).toHaveText('not saved');
  await page.getByTestId('palette-gpipe').click();
  await expect(status).toHaveText('saved · v4');
  expect(await designId(page)).toBe(fork);
  const after = await savedDesigns(page);
  expect(after.length).toBe(before.length + 1);
  expect(after.find((d) => d.id === fork)?.version).toBe(4);

  // Ctrl+S (and Save) with nothing changed adds no version, and says so.
  await page.keyboard.press('Control+S');
  await page.getByTestId('save').click();
  await expect(page.getByTestId('notice')).toContainText('nothing to save: no change since version 4');
  await page.waitForTimeout(1200);
  expect((await savedDesigns(page)).find((d) => d.id === fork)?.version).toBe(4);
  await expect(status).toHaveText('saved · v4');
});

test('Open searches saved designs, renames one (a new version) and deletes one', async ({ page }) => {
  await openApp(page);
  // Two designs of our own to work on, saved through the API.
  const design = await page.evaluate(
    () =>
      (
        window as unknown as { stagecraft: { store: { getState(): { design: unknown } } } }
      ).stagecraft.store.getState().design,
  );
  for (const [id, name] of [
    ['search-me-a1', 'Needle schedule'],
    ['search-me-b2', 'Haystack schedule'],
  ] as const) {
    const r = await page.request.put(`/api/designs/${id}`, {
      data: { design: { ...(design as object), name } },
    });
    expect(r.status()).toBe(200);
  }
  await page.getByTestId('open-saved').click();
  const dialog = page.getByTestId('open-dialog');
  await expect(dialog.getByTestId('saved-search-me-a1')).toBeVisible();
  await dialog.getByTestId('open-search').fill('needle');
  await expect(dialog.locator('li.saved-row')).toHaveCount(1);
  await expect(dialog.getByTestId('saved-search-me-a1')).toContainText('Needle schedule');

  await dialog.getByTestId('rename-search-me-a1').click();
  await dialog.getByTestId('rename-input-search-me-a1').fill('Needle, renamed');
  await dialog.getByTestId('rename-ok-search-me-a1').click();
  await expect(dialog.getByTestId('saved-search-me-a1')).toContainText('Needle, renamed');
  await expect(dialog.getByTestId('saved-search-me-a1')).toContainText('v2');
  const renamed = await page.request.get('/api/designs/search-me-a1/versions');
  const versions = ((await renamed.json()) as { versions: { version: number; name: string }[] }).versions;
  // The old name stays in the history.
  expect(versions.map((v) => v.name)).toEqual(['Needle, renamed', 'Needle schedule']);

  await dialog.getByTestId('open-search').fill('haystack');
  await dialog.getByTestId('delete-search-me-b2').click();
  await dialog.getByTestId('delete-ok-search-me-b2').click();
  await expect(dialog.getByTestId('saved-search-me-b2')).toHaveCount(0);
  expect((await page.request.get('/api/designs/search-me-b2')).status()).toBe(404);
  expect((await page.request.get('/api/designs/search-me-a1')).status()).toBe(200);
  await dialog.getByTestId('open-search').fill('');
  await expect(dialog.getByTestId('saved-search-me-a1')).toBeVisible();
});

test('an edit followed at once by a reload is there after it: sent as the page went away', async ({
  page,
}) => {
  await openApp(page);
  const status = page.getByTestId('save-status');
  await page.getByTestId('design-name').fill('Reloaded at once');
  await page.getByTestId('design-name').press('Enter');
  await expect(status).toHaveText('unsaved changes');
  // Leaving with an edit unsaved asks first; the user goes on.
  page.once('dialog', (d) => {
    expect(d.type()).toBe('beforeunload');
    void d.accept();
  });
  await page.reload();
  await expect(page.getByTestId('design-name')).toHaveValue('Reloaded at once');
  await expect(status).toHaveText(/^saved · v\d+$/);
});

test("an example's one working copy is found again after a reload, and Open lists it under the example with its date", async ({
  page,
}) => {
  await openApp(page);
  const status = page.getByTestId('save-status');
  await page.getByTestId('palette-gpipe').click();
  await expect(status).toHaveText('saved · v1');
  const copy = await designId(page);
  // Back to the bare example after a reload, then poked at again: the same copy, not another.
  await page.goto('/');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await expect.poll(() => designId(page)).toBe(copy);
  await page.getByTestId('palette-zb-h1').click();
  await expect(status).toHaveText('saved · v2');
  expect(await designId(page)).toBe(copy);
  const copies = (await savedDesigns(page)).filter(
    (d) => (d as Saved & { example?: string }).example === '1f1b-p4-m8',
  );
  expect(copies.map((d) => d.id)).toEqual([copy]);

  await page.getByTestId('open-saved').click();
  const row = page.getByTestId(`saved-row-${copy}`);
  await expect(row).toHaveAttribute('data-copy-of', '1f1b-p4-m8');
  await expect(row).toContainText('working copy of 1f1b-p4-m8');
  await expect(row.locator('time')).not.toBeEmpty();
  // Right under its example.
  const order = await page
    .locator('[data-testid^="saved-row-"]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')));
  expect(order.indexOf(`saved-row-${copy}`)).toBe(order.indexOf('saved-row-1f1b-p4-m8') + 1);
});
