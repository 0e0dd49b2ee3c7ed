/**
 * The timeline's hands as Perfetto and the Zero Bubble playground have them (issue 30, §4):
 * Ctrl/⌘+wheel zooms, the wheel scrolls the devices, Shift+wheel pans, W/A/S/D step; a zoomed
 * 16-device timeline still scrolls to every device; the search steps through its matches; a hovered
 * op outlines its microbatch everywhere.
 */
import { expect, type Page, test } from '@playwright/test';
import { ganttOp, openApp } from './app.ts';

const SIXTEEN = {
  format: 'stagecraft/design@1',
  name: '1F1B p=16 m=32',
  model: { kind: 'synthetic', stages: 16, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 16 },
  directives: [{ op: 'schedule', builder: '1f1b', microbatches: 32 }],
};

async function openSixteen(page: Page) {
  const put = await page.request.put('/api/designs/e2e-hands-16', { data: { design: SIXTEEN } });
  expect(put.ok()).toBe(true);
  await page.goto('/#design=e2e-hands-16');
  const gantt = page.getByTestId('gantt').first();
  await expect(gantt).toHaveAttribute('data-layout', 'ready');
  await expect(gantt).toHaveAttribute('data-ops', /\d+/);
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  return gantt;
}

const span = (w: { t0: number; t1: number }) => w.t1 - w.t0;

test('ctrl+wheel zooms, the wheel scrolls the devices, shift+wheel pans', async ({ page }) => {
  const gantt = await openSixteen(page);
  const window = () => gantt.evaluate((el) => el.stagecraftGantt!.window());
  const whole = await window();
  const box = (await gantt.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 120);
  // A plain wheel scrolls the devices and leaves the time window alone.
  await page.mouse.wheel(0, 300);
  await expect.poll(() => gantt.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  expect(await window()).toEqual(whole);
  // Ctrl+wheel zooms in around the pointer.
  await page.keyboard.down('Control');
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -100);
  await page.keyboard.up('Control');
  await expect.poll(async () => span(await window())).toBeLessThan(span(whole) / 2);
  const zoomed = await window();
  // Zoomed in, the plain wheel still scrolls: down to the last device.
  const scroll0 = await gantt.evaluate((el) => el.scrollTop);
  for (let i = 0; i < 40; i++) await page.mouse.wheel(0, 400);
  await expect
    .poll(() => gantt.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 2))
    .toBe(true);
  expect(await gantt.evaluate((el) => el.scrollTop)).toBeGreaterThan(scroll0);
  expect(span(await window())).toBeCloseTo(span(zoomed), 6);
  // The last device's ops are in the pane's visible rows.
  const last = (await gantt.evaluate((el) => el.stagecraftGantt!.locate('F.b15.mb0')))!;
  const pane = (await gantt.boundingBox())!;
  expect(last.y).toBeGreaterThan(pane.y);
  expect(last.y + last.height).toBeLessThan(pane.y + pane.height);
  // Shift+wheel pans later in time at the same zoom.
  await page.keyboard.down('Shift');
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 100);
  await page.keyboard.up('Shift');
  await expect.poll(async () => (await window()).t0).toBeGreaterThan(zoomed.t0);
  expect(span(await window())).toBeCloseTo(span(zoomed), 6);
});

test('W and S zoom, A and D pan, with the timeline focused', async ({ page }) => {
  const gantt = await openSixteen(page);
  const window = () => gantt.evaluate((el) => el.stagecraftGantt!.window());
  const whole = await window();
  await gantt.focus();
  await page.keyboard.press('w');
  await page.keyboard.press('w');
  const zoomed = await window();
  expect(span(zoomed)).toBeLessThan(span(whole) / 2);
  await page.keyboard.press('d');
  await expect.poll(async () => (await window()).t0).toBeGreaterThan(zoomed.t0);
  const right = await window();
  await page.keyboard.press('a');
  await expect.poll(async () => (await window()).t0).toBeLessThan(right.t0);
  await page.keyboard.press('s');
  await expect.poll(async () => span(await window())).toBeGreaterThan(span(zoomed));
  // Ctrl+S stays the page's: it does not zoom the timeline out.
  const before = await window();
  await page.keyboard.press('Control+s');
  expect(await window()).toEqual(before);
});

test('the search steps through its matches: next, previous, "2 of N"', async ({ page }) => {
  await openApp(page);
  const search = page.getByTestId('op-search');
  const note = page.getByTestId('op-search-note');
  const selected = page.getByTestId('selection-details');
  await search.fill('mb3');
  await search.press('Enter');
  await expect(note).toHaveText(/^1 of \d+$/);
  const total = Number((await note.textContent())!.split(' of ')[1]);
  // Every op of microbatch 3, on every device.
  expect(total).toBe(await page.getByTestId('gantt').locator('[data-op-id*=".mb3"]').count());
  const first = await selected.getAttribute('data-op-id');
  await search.press('Enter');
  await expect(note).toHaveText(`2 of ${total}`);
  await expect(selected).not.toHaveAttribute('data-op-id', first!);
  await page.getByTestId('op-search-previous').click();
  await expect(note).toHaveText(`1 of ${total}`);
  await expect(selected).toHaveAttribute('data-op-id', first!);
  // Before the first comes the last.
  await search.press('Shift+Enter');
  await expect(note).toHaveText(`${total} of ${total}`);
  await page.getByTestId('op-search-next').click();
  await expect(note).toHaveText(`1 of ${total}`);
});

test('hovering an op outlines its microbatch on every device', async ({ page }) => {
  await openApp(page);
  const gantt = page.getByTestId('gantt');
  await ganttOp(page, 'F.b1.mb3').hover();
  const outlines = gantt.locator('[data-highlight="microbatch"]');
  const ofMb3 = gantt.locator('[data-op-id*=".mb3"]');
  await expect(outlines).toHaveCount(await ofMb3.count());
  const devices = new Set(await ofMb3.evaluateAll((els) => els.map((e) => e.getAttribute('data-device'))));
  expect(devices).toEqual(new Set(['0', '1', '2', '3']));
  // Another microbatch's op moves the outlines to it; leaving the timeline clears them.
  await ganttOp(page, 'B.b2.mb5').hover();
  await expect(outlines).toHaveCount(await gantt.locator('[data-op-id*=".mb5"]').count());
  await page.mouse.move(5, 5);
  await expect(outlines).toHaveCount(0);
});
