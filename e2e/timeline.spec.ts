/**
 * The timeline as Perfetto users expect it (issue 22, item 2): a click selects an op and its
 * details stay, a drag on the axis measures a range, an op is found by id, p2p and memory lanes
 * fold, and the selected op's SEND→RECV flows are drawn.
 */
import { expect, type Page, test } from '@playwright/test';
import { ganttOp, openApp } from './app.ts';

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

function gantt(page: Page) {
  return page.getByTestId('gantt').first();
}

test('clicking an op selects it and its details stay while the pointer moves on', async ({ page }) => {
  await ganttOp(page, 'F.b1.mb2').click();
  const details = page.getByTestId('selection-details');
  await expect(details).toHaveAttribute('data-op-id', 'F.b1.mb2');
  await expect(details).toContainText('made by');
  // Hovering another op shows its tooltip; the selection's panel stays as it was.
  await ganttOp(page, 'B.b3.mb5').hover();
  await expect(page.getByTestId('gantt-tooltip')).toHaveAttribute('data-tooltip-op', 'B.b3.mb5');
  await expect(details).toHaveAttribute('data-op-id', 'F.b1.mb2');
  // Its flows: what stage 0 sent it and what it sends on to stage 2, drawn in red.
  const flows = (await gantt(page).getAttribute('data-flows'))!.split(' ');
  expect(flows).toHaveLength(2);
  await expect(gantt(page).locator('[data-flow]')).toHaveCount(2);
  await page.getByTestId('selection-close').click();
  await expect(details).toHaveCount(0);
  await expect(gantt(page).locator('[data-flow]')).toHaveCount(0);
});

test('a selected SEND shows the one arrow to its RECV on the receiving device', async ({ page }) => {
  const send = gantt(page).locator('[data-op="SEND"][data-device="0"]').first();
  const id = (await send.getAttribute('data-op-id'))!;
  await send.click();
  await expect(page.getByTestId('selection-details')).toHaveAttribute('data-op-id', id);
  const flows = (await gantt(page).getAttribute('data-flows'))!.split(' ');
  expect(flows).toHaveLength(1);
  const recv = flows[0]!.split('>')[1]!;
  expect(flows[0]!.startsWith(`${id}>`)).toBe(true);
  await expect(ganttOp(page, recv)).toHaveAttribute('data-device', '1');
});

test('dragging a range on the axis reads its duration and the bubble inside it', async ({ page }) => {
  const box = (await gantt(page).boundingBox())!;
  const step = Number(await gantt(page).getAttribute('data-makespan-ms'));
  // Where the first forward starts and ends: ranks 1..3 idle meanwhile (3 of 4 devices).
  const f = (await ganttOp(page, 'F.b0.mb0').boundingBox())!;
  const y = box.y + 10;
  await page.mouse.move(f.x + 1, y);
  await page.mouse.down();
  await page.mouse.move(f.x + f.width / 2, y, { steps: 3 });
  await page.mouse.move(f.x + f.width - 1, y, { steps: 3 });
  await page.mouse.up();
  const range = page.getByTestId('gantt-range');
  await expect(range).toContainText('bubble');
  const duration = Number(await range.getAttribute('data-duration-ms'));
  const ratio = Number(await range.getAttribute('data-bubble-ratio'));
  expect(duration).toBeGreaterThan(0.8);
  expect(duration).toBeLessThan(1.01);
  expect(ratio).toBeCloseTo(0.75, 1);
  expect(duration).toBeLessThan(step);
  // The drag neither panned the timeline nor selected an op.
  await expect(page.getByTestId('selection-details')).toHaveCount(0);
  // A click on the axis clears it.
  await page.mouse.click(box.x + box.width / 2, y);
  await expect(range).toHaveCount(0);
});

test('searching an op by id selects it and brings it into view', async ({ page }) => {
  // Zoomed far into the start of the step, the op searched for lies outside the window.
  await gantt(page).evaluate((el) => el.stagecraftGantt!.zoomTo(0, 0.5));
  const search = page.getByTestId('op-search');
  await search.fill('B.b2.mb6');
  await search.press('Enter');
  await expect(page.getByTestId('selection-details')).toHaveAttribute('data-op-id', 'B.b2.mb6');
  // The window moved from the step's start to the op.
  await expect.poll(() => gantt(page).evaluate((el) => el.stagecraftGantt!.window().t0)).toBeGreaterThan(10);
  await expect(ganttOp(page, 'B.b2.mb6')).toBeInViewport();
  await search.fill('no.such.op');
  await search.press('Enter');
  await expect(page.getByTestId('op-search-note')).toContainText('no op matches');
});

test('the p2p and memory lanes fold away and come back', async ({ page }) => {
  // The height the lanes take (the SVG's), whatever room the pane gives them.
  const height = async () =>
    Number(await gantt(page).locator('svg[role="img"]').first().getAttribute('height'));
  const open = await height();
  await expect(gantt(page).locator('[data-peak-bytes]')).toHaveCount(4);
  await page.getByTestId('collapse-memory').check();
  await expect(gantt(page).locator('[data-peak-bytes]')).toHaveCount(0);
  await page.getByTestId('collapse-p2p').check();
  await expect.poll(height).toBeLessThan(open);
  // The folded p2p ops are still there, on a thin strip.
  const send = gantt(page).locator('[data-op="SEND"]').first();
  await expect(send).toBeAttached();
  expect((await send.boundingBox())!.height).toBeLessThanOrEqual(4);
  await page.getByTestId('collapse-p2p').uncheck();
  await page.getByTestId('collapse-memory').uncheck();
  await expect.poll(height).toBe(open);
});

test('after an edit that widens the DAG it is fitted again: UPD in view, labels readable', async ({
  page,
}) => {
  const canvas = page.getByTestId('dag-canvas');
  await page.getByTestId('palette-split_backward').dragTo(canvas.locator('[data-node-id="B.b1.mb0"]'));
  await expect(canvas.locator('[data-op="BW"]').first()).toBeVisible();
  const pane = (await canvas.boundingBox())!;
  for (const upd of await canvas.locator('[data-op="UPD"]').all()) {
    const b = (await upd.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(pane.x);
    expect(b.x + b.width).toBeLessThanOrEqual(pane.x + pane.width);
  }
  // Node labels are drawn at 9 px or more on screen.
  const px = await canvas
    .locator('[data-op="F"] .dag-node-label')
    .first()
    .evaluate((el) => {
      const zoom = Number(el.closest('.react-flow')!.getAttribute('data-zoom'));
      return Number.parseFloat(getComputedStyle(el).fontSize) * zoom;
    });
  expect(px).toBeGreaterThanOrEqual(8.9);
});

test('the bar between the DAG and the timeline resizes both', async ({ page }) => {
  const dag = page.getByTestId('dag-canvas');
  const timeline = page.locator('.timeline-pane');
  const before = [(await dag.boundingBox())!.height, (await timeline.boundingBox())!.height];
  const bar = (await page.getByTestId('split-handle').boundingBox())!;
  await page.mouse.move(bar.x + bar.width / 2, bar.y + 3);
  await page.mouse.down();
  await page.mouse.move(bar.x + bar.width / 2, bar.y - 100, { steps: 5 });
  await page.mouse.up();
  const after = [(await dag.boundingBox())!.height, (await timeline.boundingBox())!.height];
  expect(after[0]).toBeCloseTo(before[0]! - 100, -1);
  expect(after[1]).toBeCloseTo(before[1]! + 100, -1);
  // The keyboard moves it too.
  await page.getByTestId('split-handle').focus();
  await page.keyboard.press('ArrowDown');
  expect((await dag.boundingBox())!.height).toBeCloseTo(after[0]! + 32, -1);
});

test('a design over its GPUs’ memory says OOM above the timeline and scrolls to the device', async ({
  page,
  request,
}) => {
  // 1F1B on one DGX H100 node with 64 GiB of static state per stage (8 bytes of state per
  // parameter byte): stage 0 stashes four microbatches' activations and overflows 80 GB.
  const design = {
    format: 'stagecraft/design@1',
    name: 'OOM on stage 0',
    model: {
      kind: 'synthetic',
      stages: 4,
      costs: { F: 1, BI: 1, BW: 1 },
      activationBytes: 6 * 2 ** 30,
      paramBytes: 8 * 2 ** 30,
      outputBytes: 16 * 2 ** 20,
    },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [{ op: 'schedule', builder: '1f1b', ranks: 4, microbatches: 8 }],
  };
  const put = await request.put('/api/designs/e2e-oom', { data: { design } });
  expect(put.ok()).toBe(true);
  await page.goto('/#design=e2e-oom');
  const jump = page.getByTestId('oom-jump');
  await expect(jump).toContainText('OOM on');
  const gantt = page.getByTestId('gantt').first();
  await expect(gantt.locator('[data-memory-device][data-oom]').first()).toBeAttached();
  const first = await gantt
    .locator('[data-memory-device][data-oom]')
    .first()
    .getAttribute('data-memory-device');
  await expect(jump).toContainText(`show dev ${first}`);
  await jump.click();
  await expect(gantt.locator(`[data-device-band="${first}"] text`).first()).toBeInViewport();
  // The strip starts at the static base, which its label names.
  await expect(gantt.locator('[data-base-bytes]').first()).toContainText('from 64');
});

test('the metrics’ definitions are one click away and Escape puts them away', async ({ page }) => {
  await page.getByTestId('metric-help').click();
  const glossary = page.getByTestId('metric-glossary');
  await expect(glossary).toContainText('bubble / ideal');
  await expect(glossary).toContainText('Σ idle / Σ busy');
  await page.keyboard.press('Escape');
  await expect(glossary).toHaveCount(0);
});
