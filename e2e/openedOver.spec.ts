/**
 * A design opened over another still on its way: the later choice stands, and nothing of the
 * design before shows under its name (issue 30, §3).
 */
import { expect, test } from '@playwright/test';
import { dagNode, ganttOp, openApp, settled } from './app.ts';

test('a saved design slow to arrive does not replace the example opened after it', async ({ page }) => {
  await openApp(page);
  const design = {
    format: 'stagecraft/design@1',
    name: 'GPipe slow to arrive',
    model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: 4 },
    directives: [{ op: 'schedule', builder: 'gpipe', microbatches: 4 }],
  };
  expect((await page.request.put('/api/designs/e2e-slow', { data: { design } })).ok()).toBe(true);
  let arrived = false;
  await page.route('**/api/designs/e2e-slow', async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
    arrived = true;
  });
  await page.evaluate(() => {
    location.hash = '#design=e2e-slow';
  });
  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-zb-h1-p4-m8').click();
  await expect.poll(() => arrived, { timeout: 10_000 }).toBe(true);
  // Time for the late reply to be handled, were it to be.
  await page.waitForTimeout(300);
  expect(await settled(page)).toEqual([]);
  await expect(page.getByTestId('design-name')).toHaveValue('ZB-H1, p=4, m=8');
  // The DAG and the timeline are ZB-H1's: its split backward, 8 microbatches.
  await expect(dagNode(page, 'BW.b0.mb0')).toBeAttached();
  await expect(ganttOp(page, 'BW.b3.mb7')).toBeAttached();
  await expect(page.getByTestId('dag-canvas')).toHaveAttribute('aria-busy', 'false');
});
