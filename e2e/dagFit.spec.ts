/**
 * The DAG fits itself again after a builder switch, a timeline move and an expanded stage, at
 * 1440×900: every op column (UPD last) in the pane, and the zoom buttons and the op counter over no
 * label (issue 30, §3).
 */
import { expect, type Page, test } from '@playwright/test';
import { dragOp, openApp, settled } from './app.ts';
import { labelBoxes, overlapping } from './labelBoxes.ts';

test.use({ viewport: { width: 1440, height: 900 } });

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

/** The DAG of the latest edit drawn and fitted: its UPD ops all in the pane, no tool over a label. */
async function expectFitted(page: Page) {
  expect(await settled(page)).toEqual([]);
  const canvas = page.getByTestId('dag-canvas');
  await expect(canvas).toHaveAttribute('aria-busy', 'false');
  const updates = await page.evaluate(
    () =>
      (
        window as unknown as {
          stagecraft: { store: { getState(): { graph: { nodes: { data: { op: string } }[] } } } };
        }
      ).stagecraft.store
        .getState()
        .graph.nodes.filter((n) => n.data.op === 'UPD').length,
  );
  expect(updates).toBeGreaterThan(0);
  // Drawn only when in view: every one of them is.
  await expect(canvas.locator('[data-op="UPD"]')).toHaveCount(updates);
  const pane = (await canvas.boundingBox())!;
  for (const upd of await canvas.locator('[data-op="UPD"]').all()) {
    const b = (await upd.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(pane.x);
    expect(b.x + b.width).toBeLessThanOrEqual(pane.x + pane.width);
    expect(b.y).toBeGreaterThanOrEqual(pane.y);
    expect(b.y + b.height).toBeLessThanOrEqual(pane.y + pane.height);
  }
  const boxes = await labelBoxes(page);
  const tools = await page.evaluate(() =>
    ['.dag-tools', '.react-flow__controls'].map((s) => {
      const r = document.querySelector(`[data-testid=dag-canvas] ${s}`)!.getBoundingClientRect();
      return { text: s, x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  for (const tool of tools)
    expect(overlapping([tool, ...boxes]).filter((p) => p.includes(tool.text))).toEqual([]);
}

test('after a builder switch the DAG is fitted again', async ({ page }) => {
  await expectFitted(page);
  for (const builder of ['zb-h1', 'interleaved-1f1b', 'dualpipev']) {
    await page.getByTestId(`palette-${builder}`).click();
    await expect(page.getByTestId('program-list')).toContainText(builder);
    await expectFitted(page);
  }
});

test('after a move on the timeline the DAG is fitted again', async ({ page }) => {
  await page.getByTestId('palette-zb-h1').click();
  await expectFitted(page);
  await dragOp(page, 'BW.b1.mb0', 'F.b1.mb3', 'after');
  await expect(page.getByTestId('schedule-fold-0')).toContainText('move 1BW0 after 1F3');
  await expectFitted(page);
});

test('after a stage is expanded the DAG is fitted again, its ops in view', async ({ page }) => {
  await page.getByTestId('palette-zb-h1').click();
  await expectFitted(page);
  const toggle = page.locator('[data-testid^="stage-toggle-"]').first();
  await toggle.click();
  await expect(toggle).toHaveText('▾ collapse');
  await expectFitted(page);
  // Every microbatch of the stage is drawn, in the pane.
  const pane = (await page.getByTestId('dag-canvas').boundingBox())!;
  const last = page.getByTestId('dag-canvas').locator('[data-node-id="BW.b0.mb7"]');
  const b = (await last.boundingBox())!;
  expect(b.x + b.width).toBeLessThanOrEqual(pane.x + pane.width);
});
