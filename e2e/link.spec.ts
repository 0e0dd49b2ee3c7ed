/**
 * A link can carry the design itself (issue 30, §4): compressed in the URL fragment, it opens the
 * same design in a fresh page, and a corrupt one says so instead of opening anything.
 */
import { expect, test } from '@playwright/test';
import { openApp, settled } from './app.ts';

test('the Link button puts the design in the address, and that address opens it in a new page', async ({
  page,
  browser,
}) => {
  await openApp(page);
  await page.getByTestId('palette-zb-h1').click();
  expect(await settled(page)).toEqual([]);
  const name = await page.getByTestId('design-name').inputValue();
  await page.getByTestId('copy-design-link').click();
  await expect(page).toHaveURL(/#d=[A-Za-z0-9_-]+$/);
  const link = page.url();
  const other = await browser.newPage();
  await other.goto(link);
  await expect(other.getByTestId('design-name')).toHaveValue(name);
  await expect(other.getByTestId('compute-status')).toContainText('recomputed');
  const builder = await other.evaluate(
    () =>
      (
        window as unknown as {
          stagecraft: { store: { getState(): { design: { directives: { builder?: string }[] } } } };
        }
      ).stagecraft.store.getState().design.directives[0]?.builder,
  );
  expect(builder).toBe('zb-h1');
  await other.close();
});

test('a corrupt design link is refused with what is wrong', async ({ page }) => {
  await page.goto('/#d=AAAAbrokenlink');
  await expect(page.getByTestId('notice')).toContainText('the link’s design is corrupt');
  // The page still works, on its default example.
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
});
