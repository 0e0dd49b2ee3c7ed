/**
 * A range dragged over the whole step reads the metric bar's bubble (issue 30 §1): on a mesh
 * design whose groups are lowered once and whose communication lanes idle most of the step, as on
 * a pipeline.
 */
import { expect, type Page, test } from '@playwright/test';
import { metric, openApp, settled } from './app.ts';

async function wholeStepRange(page: Page): Promise<{ duration: number; ratio: number }> {
  const gantt = page.getByTestId('gantt').first();
  const box = (await gantt.boundingBox())!;
  const y = box.y + 10;
  // From the axis' right end to past its left one: the range is clamped to [0, the axis' end].
  await page.mouse.move(box.x + box.width - 2, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, y, { steps: 3 });
  await page.mouse.move(box.x + 2, y, { steps: 3 });
  await page.mouse.up();
  const range = page.getByTestId('gantt-range');
  await expect(range).toContainText('bubble');
  return {
    duration: Number(await range.getAttribute('data-duration-ms')),
    ratio: Number(await range.getAttribute('data-bubble-ratio')),
  };
}

for (const example of ['1f1b-p4-m8', 'qwen3-30b-a3b-pp4-ep8-dualpipev', 'llama3-8b-dgx-h100-pp4-1f1b']) {
  test(`a range over the whole step of ${example} reads the bubble of the metric bar`, async ({ page }) => {
    await openApp(page);
    if (example !== '1f1b-p4-m8') {
      await page.getByTestId('open-examples').click();
      await page.getByTestId(`example-${example}`).click();
      expect(await settled(page)).toEqual([]);
    }
    const step = await metric(page, 'makespan');
    const bubble = await metric(page, 'bubble');
    const { duration, ratio } = await wholeStepRange(page);
    // All of the step but the axis' last pixel.
    expect(duration).toBeGreaterThan(step * 0.99);
    expect(ratio).toBeLessThan(1);
    expect(ratio).toBeCloseTo(bubble, 2);
  });
}
