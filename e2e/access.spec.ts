/**
 * Keyboard, dialogs and forms (issue 22, items 7 and 8): modal dialogs, the DAG as one tab stop,
 * a label on every input, and a model form that suggests exactly the presets that exist.
 */
import { expect, type Page, test } from '@playwright/test';
import { TRANSFORMER_PRESET_NAMES } from '../packages/ir/src/design/transformerPresets.ts';
import { openApp, settled } from './app.ts';

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

async function focusInside(page: Page, testid: string): Promise<boolean> {
  return page.evaluate(
    (id) => document.querySelector(`[data-testid="${id}"]`)?.contains(document.activeElement) ?? false,
    testid,
  );
}

for (const [opener, dialog] of [
  ['open-examples', 'examples-gallery'],
  ['open-saved', 'open-dialog'],
  ['open-versions', 'versions-dialog'],
] as const) {
  test(`the ${dialog} is modal: focus moves in and stays, Escape and a backdrop click close it`, async ({
    page,
  }) => {
    await page.getByTestId(opener).click();
    const box = page.getByTestId(dialog);
    await expect(box).toBeVisible();
    await expect(box).toHaveAttribute('role', 'dialog');
    await expect(box).toHaveAttribute('aria-modal', 'true');
    await expect.poll(() => focusInside(page, dialog)).toBe(true);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
      expect(await focusInside(page, dialog), `after Tab press ${i + 1}`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect(box).toBeHidden();
    // Focus goes back to the button that opened it.
    await expect(page.getByTestId(opener)).toBeFocused();
    await page.getByTestId(opener).click();
    await expect(box).toBeVisible();
    await page.mouse.click(5, 300);
    await expect(box).toBeHidden();
  });
}

test('the DAG is one tab stop: arrow keys move between its ops, Tab leaves it for the next control', async ({
  page,
}) => {
  const canvas = page.getByTestId('dag-canvas');
  await canvas.focus();
  await page.keyboard.press('ArrowRight');
  await expect(canvas).toHaveAttribute('data-selected-node', /.+/);
  const first = await canvas.getAttribute('data-selected-node');
  await page.keyboard.press('ArrowRight');
  await expect(canvas).not.toHaveAttribute('data-selected-node', first!);
  await page.keyboard.press('ArrowDown');
  await expect(canvas).toHaveAttribute('data-selected-node', /.+/);
  // Enter expands the stage of the active op (its microbatches drawn one by one), Enter again collapses it.
  const expanded = () =>
    page.evaluate(
      () =>
        (
          window as unknown as { stagecraft: { store: { getState(): { expandedStages: string[] } } } }
        ).stagecraft.store.getState().expandedStages.length,
    );
  await page.keyboard.press('Enter');
  await expect.poll(expanded).toBe(1);
  await page.keyboard.press('Enter');
  await expect.poll(expanded).toBe(0);
  // No op node, edge or stage toggle is a tab stop: the timeline is a few Tab presses away (the
  // DAG's expand/collapse-all and zoom buttons, the split bar, the timeline's search, fold and
  // arrow controls, its SVG and PNG buttons), not one per node.
  let presses = 0;
  for (; presses < 30; presses++) {
    const at = await page.evaluate(() => {
      const a = document.activeElement;
      return {
        node: a?.closest('[data-testid="dag-node"], .react-flow__edge') != null,
        gantt: a?.getAttribute('data-testid') === 'gantt',
      };
    });
    expect(at.node, `Tab ${presses} landed on a DAG node or edge`).toBe(false);
    if (at.gantt) break;
    await page.keyboard.press('Tab');
  }
  expect(presses).toBeLessThanOrEqual(14);
});

test('every input, select and text area of the page has a label', async ({ page }) => {
  // Show every form: a transformer model, a custom cluster, and a directive with a filter.
  await page.getByTestId('palette-split_backward').dragTo(page.locator('[data-testid="dag-node"]').first());
  await settled(page);
  await page.getByTestId('directive-1').click();
  await page.getByTestId('model-kind').selectOption('transformer');
  await settled(page);
  await page.getByTestId('cluster-kind').selectOption('custom');
  await settled(page);
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((e) => (e as HTMLInputElement).type !== 'hidden' && e.getClientRects().length > 0)
      .filter((e) => {
        const el = e as HTMLInputElement;
        return !(
          (el.labels && el.labels.length > 0) ||
          el.getAttribute('aria-label') ||
          el.getAttribute('aria-labelledby')
        );
      })
      .map((e) => e.outerHTML.slice(0, 120)),
  );
  expect(unlabelled).toEqual([]);
});

test('the model form suggests exactly the registry’s presets, and every suggestion loads', async ({
  page,
}) => {
  test.setTimeout(120_000);
  // A transformer is timed on GPUs: one DGX H100 node first, then the model.
  await page.getByTestId('cluster-kind').selectOption('preset');
  await settled(page);
  await page.getByTestId('model-kind').selectOption('transformer');
  await settled(page);
  // One pipeline stage per GPU of the node.
  await page.getByTestId('model-annotate-PP').fill('8');
  await page.getByTestId('model-annotate-PP').press('Enter');
  expect(await settled(page)).toEqual([]);
  const suggested = await page
    .locator('datalist#model-presets option')
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  expect(suggested).toEqual([...TRANSFORMER_PRESET_NAMES]);
  for (const name of suggested) {
    const field = page.getByTestId('model-preset');
    await field.fill(name);
    await field.press('Enter');
    await expect(field).toHaveValue(name);
    expect(await settled(page), name).toEqual([]);
    const preset = await page.evaluate(
      () =>
        (
          window as unknown as {
            stagecraft: { store: { getState(): { design: { model: { preset?: string } } } } };
          }
        ).stagecraft.store.getState().design.model.preset,
    );
    expect(preset).toBe(name);
    await expect(page.getByTestId('metric-ops')).not.toHaveText('0');
  }
});
