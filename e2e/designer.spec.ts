import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { dagNode, dragOp, ganttOp, metric, metricChange, openApp, settled } from './app.ts';

test.beforeEach(async ({ page }) => {
  await openApp(page);
});

test('the first screen shows the 1F1B p=4 m=8 example: DAG, timelines and metrics', async ({ page }) => {
  await expect(page.getByTestId('design-name')).toHaveValue('1F1B, p=4, m=8');
  await expect(page.getByTestId('metric-makespan')).toHaveText('33.0 ms');
  // 1F1B's first rank is busy from its first op to its last: the steady step is the step.
  await expect(page.getByTestId('metric-steady-step')).toHaveText('33.0 ms');
  // (p-1)/(m+p-1) = 3/11
  expect(await metric(page, 'bubble')).toBeCloseTo(3 / 11, 6);
  await expect(dagNode(page, 'F.b0.mb0')).toBeVisible();
  for (let d = 0; d < 4; d++) await expect(ganttOp(page, `F.b${d}.mb0`)).toBeAttached();
  await expect(page.getByTestId('gantt').locator('[data-op-id^="BW."]')).toHaveCount(0);
});

test("the DAG's edges are drawn, not hit: the pointer goes through them to the pane", async ({ page }) => {
  const edge = page.getByTestId('dag-canvas').locator('.react-flow__edge').first();
  await expect(edge).toBeAttached();
  // A hit-testable edge made the browser's first hit test after a new graph stroke every edge in
  // view (0.7–1.3 s on DeepSeek-V3).
  expect(await edge.evaluate((e) => getComputedStyle(e).pointerEvents)).toBe('none');
  expect(
    await edge
      .locator('path')
      .first()
      .evaluate((e) => getComputedStyle(e).pointerEvents),
  ).toBe('none');
});

test('dropping split_backward on a DAG node adds BW ops and lowers the bubble', async ({ page }) => {
  const before = await metric(page, 'bubble');
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  const after = await metricChange(page, 'bubble', before);
  expect(after).toBeLessThan(before);
  await expect(page.getByTestId('gantt').locator('[data-op-id^="BW.b1."]')).toHaveCount(8);
  // The new directive opens in the inspector with the filter of the node it was dropped on.
  await expect(page.getByTestId('inspector')).toContainText('split_backward');
  await expect(page.getByTestId('field-filter-PP')).toHaveValue('1');
});

test('after a drop the DAG, the program and op details follow the new timeline', async ({ page }) => {
  const canvas = page.getByTestId('dag-canvas');
  await expect(canvas.locator('[data-op="BW"]')).toHaveCount(0);
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(page.getByTestId('gantt').locator('[data-op-id^="BW.b1."]')).toHaveCount(8);
  await expect(page.getByTestId('program-list').locator('[data-op="split_backward"]')).toHaveCount(1);
  // The canvas is laid out after the timeline's frame: its BI and BW nodes come in a later one.
  await expect(canvas.locator('[data-op="BW"]').first()).toBeVisible();
  await expect(canvas.locator('[data-op="BI"]').first()).toBeVisible();
  // Hovering a new node shows its details.
  await dagNode(page, 'BW.b1.mb0').hover();
  await expect(page.getByTestId('node-details')).toContainText('BW.b1.mb0');
  // The timeline is drawn from the plan's outline; the whole plan follows for its op details.
  await ganttOp(page, 'BW.b1.mb0').hover();
  const tooltip = page.getByTestId('gantt-tooltip');
  await expect(tooltip).toHaveAttribute('data-tooltip-op', 'BW.b1.mb0');
  await expect(tooltip).toContainText('made by');
});

test('dropping recompute on a timeline op adds it for the stage of that op', async ({ page }) => {
  await page
    .getByTestId('palette-recompute')
    .dragTo(page.getByTestId('gantt').locator('[data-op-id="F.b2.mb3"]'));
  await expect(page.getByTestId('directive-1')).toContainText('recompute');
  await expect(page.getByTestId('field-filter-PP')).toHaveValue('2');
});

test('switching the schedule to DualPipeV from the palette changes the step time', async ({ page }) => {
  const before = await metric(page, 'makespan');
  await page.getByTestId('palette-dualpipev').click();
  const after = await metricChange(page, 'makespan', before);
  expect(after).toBeLessThan(before);
  await expect(page.getByTestId('directive-0')).toContainText('dualpipev');
  await expect(page.getByTestId('model-stages')).toHaveValue('8');
});

test('a reorder on the timeline that breaks a dependency is refused with the reason', async ({ page }) => {
  const before = await metric(page, 'makespan');
  // A backward cannot run before the forward of its own microbatch.
  await dragOp(page, 'B.b0.mb0', 'F.b0.mb0', 'before');
  await expect(page.getByTestId('gantt-refusal')).toBeVisible();
  await expect(page.getByTestId('gantt-refusal')).toContainText('B.b0.mb0');
  expect(await metric(page, 'makespan')).toBe(before);
  await expect(page.getByTestId('program-list').locator('li')).toHaveCount(1);
});

test('a valid reorder on the timeline is an edit of the schedule and recomputes', async ({ page }) => {
  // On the last stage, run microbatch 1's forward before microbatch 0's.
  await dragOp(page, 'F.b3.mb1', 'F.b3.mb0', 'before');
  await expect(page.getByTestId('schedule-fold-0')).toContainText('1 edit: move 3F1 before 3F0');
  await expect(page.getByTestId('program-list').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('gantt-refusal')).toHaveCount(0);
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
});

test('two pinned variants are compared on one time axis with their differences', async ({ page }) => {
  await page.getByTestId('pin').click();
  await page.getByTestId('palette-zb-h1').click();
  await metricChange(page, 'makespan', 33);
  await page.getByTestId('pin').click();
  await page.getByTestId('tab-compare').click();
  const compare = page.getByTestId('compare');
  await expect(compare.locator('figure[data-variant]')).toHaveCount(2);
  await expect(compare.getByTestId('gantt')).toHaveCount(2);
  const step = compare.locator('tr[data-metric="step"]');
  await expect(step.locator('td[data-verdict="baseline"]')).toHaveCount(1);
  await expect(step.locator('td[data-verdict="better"]')).toHaveCount(1);
  await expect(compare.locator('tr[data-metric="bubble"] td[data-verdict="better"]')).toHaveCount(1);
});

test('undo and redo restore every edit (buttons and Ctrl+Z / Ctrl+Shift+Z)', async ({ page }) => {
  await page.getByTestId('palette-gpipe').click();
  await expect(page.getByTestId('directive-0')).toContainText('gpipe');
  await page.getByTestId('palette-zb-h1').click();
  const zb = await metricChange(page, 'makespan', 33);
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('directive-0')).toContainText('gpipe');
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('directive-0')).toContainText('1f1b');
  await expect(page.getByTestId('undo')).toBeDisabled();
  await page.keyboard.press('Control+Shift+z');
  await page.keyboard.press('Control+Shift+z');
  await expect(page.getByTestId('directive-0')).toContainText('zb-h1');
  await expect.poll(() => metric(page, 'makespan')).toBe(zb);
  await page.getByTestId('undo').click();
  await expect(page.getByTestId('directive-0')).toContainText('gpipe');
  await page.getByTestId('redo').click();
  await expect(page.getByTestId('directive-0')).toContainText('zb-h1');
});

test('an invalid directive shows its error inline while the last valid result stays', async ({ page }) => {
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  const valid = await metric(page, 'makespan');
  const pp = page.getByTestId('field-filter-PP');
  await pp.fill('9');
  await pp.press('Enter');
  // The new directive stays selected, so the schedule's fold shows it.
  const item = page.getByTestId('program-list').locator('li[data-op="split_backward"]');
  const error = item.getByTestId('directive-error');
  await expect(error).toContainText(/directives\[\d+\]\.filter\.PP/);
  await expect(error).toContainText('PP=9');
  await expect(page.getByTestId('compute-status')).toContainText('last valid result');
  expect(await metric(page, 'makespan')).toBe(valid);
  await expect(ganttOp(page, 'BW.b1.mb0')).toBeAttached();
});

test('a chrome trace exported through the API parses and holds the step', async ({ page }) => {
  await page.getByTestId('export-menu').click();
  const download = page.waitForEvent('download', { timeout: 10_000 });
  await page.getByTestId('export-chrome-trace').click();
  const file = await (await download).path().catch(async (e) => {
    const notice = page.getByTestId('notice');
    throw (await notice.count()) ? new Error((await notice.textContent()) ?? '') : e;
  });
  const trace = JSON.parse(readFileSync(file, 'utf8'));
  const events: { ph: string; name: string; pid: number; ts: number; dur?: number }[] = Array.isArray(trace)
    ? trace
    : trace.traceEvents;
  const ops = events.filter((e) => e.ph === 'X');
  expect(new Set(ops.map((e) => e.pid)).size).toBe(4);
  expect(ops.filter((e) => e.name.startsWith('F')).length).toBeGreaterThanOrEqual(32);
  // Trace times are microseconds: the step ends at 33 ms.
  expect(Math.max(...ops.map((e) => e.ts + (e.dur ?? 0)))).toBeCloseTo(33_000, -1);
});

test('the pass inspector shows the DAG after a pass with the nodes it added', async ({ page }) => {
  await page.getByTestId('pass-insert-send-recv').click();
  const canvas = page.getByTestId('dag-canvas');
  await expect(canvas).toContainText('DAG after insert-send-recv');
  await expect(canvas.locator('.dag-node.hl-added').first()).toBeVisible();
  await expect(canvas.locator('.dag-node.hl-added[data-op="F"]')).toHaveCount(0);
});

test('hovering a DAG node shows its tags, costs, memory and the directive that made it', async ({ page }) => {
  await dagNode(page, 'F.b2.mb0').hover();
  const details = page.getByTestId('node-details');
  await expect(details).toContainText('PP=2');
  await expect(details).toContainText('1.00 ms');
  await expect(details).toContainText('+256 MiB');
  await expect(page.getByTestId('node-provenance')).toContainText('directives[0].expansion[3]');
});

test('microbatches of a stage expand on demand', async ({ page }) => {
  await expect(page.getByTestId('dag-canvas').locator('[data-node-id^="F.b1."]')).toHaveCount(1);
  await page.getByTestId('stage-toggle-1:1').click();
  await expect(page.getByTestId('collapse-all')).toBeEnabled();
  // The canvas draws only what is in view: fit the wider drawing first.
  await page.locator('.react-flow__controls-fitview').click();
  await expect(page.getByTestId('dag-canvas').locator('[data-op="F"][data-node-id^="F.b1."]')).toHaveCount(8);
});

test('edits are saved through the API with a version each, and an older version can be restored', async ({
  page,
}) => {
  await page.getByTestId('palette-gpipe').click();
  await expect(page.getByTestId('save-status')).toHaveText('saved · v1');
  await page.getByTestId('palette-zb-h1').click();
  await expect(page.getByTestId('save-status')).toHaveText('saved · v2');
  const url = page.url();
  expect(url).toMatch(/#design=[a-z0-9-]+$/);
  // The API is the source of truth: a fresh page opens the saved design.
  await page.goto('about:blank');
  await openApp(page, url.slice(url.indexOf('/#')));
  await expect(page.getByTestId('directive-0')).toContainText('zb-h1');
  await page.getByTestId('open-versions').click();
  await page.getByTestId('version-1').click();
  await expect(page.getByTestId('directive-0')).toContainText('gpipe');
  await expect(page.getByTestId('save-status')).toHaveText('saved · v3');
  await page.getByTestId('open-saved').click();
  // The generated name followed the builder; restoring version 1 brought back its name too.
  await expect(page.getByTestId('open-dialog')).toContainText('GPipe, p=4, m=8');
});

test('on canvas, the hit element of an op in the last device answers the pointer', async ({ page }) => {
  const design = {
    format: 'stagecraft/design@1',
    name: '1F1B p=8 m=32',
    model: { kind: 'synthetic', stages: 8, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: 8 },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: 32 }],
  };
  const put = await page.request.put('/api/designs/e2e-canvas', { data: { design } });
  expect(put.ok()).toBe(true);
  await page.goto('about:blank');
  await page.goto('/#design=e2e-canvas');
  await expect(page.getByTestId('gantt')).toHaveAttribute('data-render', 'canvas');
  // Below the timeline's visible rows: the element must not be clipped away.
  const op = page.getByTestId('gantt-hit-layer').locator('[data-op-id="F.b7.mb5"]');
  await op.hover();
  await expect(page.getByTestId('gantt-tooltip')).toHaveAttribute('data-tooltip-op', 'F.b7.mb5');
});

test('split backward dropped on stage 1, then zb-h1, then DualPipeV ends in a valid design and names what it removed', async ({
  page,
}) => {
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(page.getByTestId('program-list').locator('li[data-op="split_backward"]')).toHaveCount(1);
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await page.getByTestId('palette-zb-h1').click();
  // The drop's orders are zb-h1's to replace: nothing of the user's is lost, so nothing is asked.
  await expect(page.getByTestId('confirm-dialog')).toHaveCount(0);
  const notice = page.getByTestId('notice');
  await expect(notice).toHaveAttribute('data-kind', 'warning');
  await expect(notice).toContainText('removed split_backward PP=1: zb-h1 splits that backward already');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await page.getByTestId('palette-dualpipev').click();
  await expect(notice).toContainText('the model is cut into 8 stages instead of 4');
  await expect(page.getByTestId('program-list').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('directive-0')).toContainText('dualpipev');
  // The timeline is DualPipeV's own (8 stages), not the last valid result kept beside an error.
  await expect(ganttOp(page, 'F.b7.mb0')).toBeAttached();
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await expect(page.getByTestId('program-list').getByTestId('directive-error')).toHaveCount(0);
  await expect(page.getByTestId('design-name')).toHaveValue('DualPipeV, p=4, m=8');
  await expect(page.getByTestId('save-status')).toHaveText(/^saved · v\d+$/);
  // The one schedule item runs as its hand-expanded form: split + place + order, same metrics.
  const compact = { makespan: await metric(page, 'makespan'), bubble: await metric(page, 'bubble') };
  await page.getByTestId('directive-0').locator('.program-main').click();
  await page.getByTestId('expand-schedule').click();
  await expect(page.getByTestId('program-list').locator('li[data-op="order"]')).toHaveCount(4);
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  expect(await metric(page, 'makespan')).toBe(compact.makespan);
  expect(await metric(page, 'bubble')).toBe(compact.bubble);
});

test('switching builder after a hand reorder asks first: Cancel keeps the edit, confirming drops it', async ({
  page,
}) => {
  await dragOp(page, 'F.b3.mb1', 'F.b3.mb0', 'before');
  const fold = page.getByTestId('schedule-fold-0');
  await expect(fold).toContainText('1 edit: move 3F1 before 3F0');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await page.getByTestId('palette-zb-h1').click();
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toContainText('directives[0].edits[0]: move 3F1 before 3F0');
  await page.getByTestId('confirm-cancel').click();
  await expect(dialog).toHaveCount(0);
  await expect(fold).toContainText('1 edit: move 3F1 before 3F0');
  await expect(page.getByTestId('directive-0')).toContainText('1f1b');
  await page.getByTestId('palette-zb-h1').click();
  await page.getByTestId('confirm-accept').click();
  await expect(page.getByTestId('program-list').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('directive-0')).toContainText('zb-h1');
  await expect(fold).toHaveCount(0);
  await expect(page.getByTestId('notice')).toContainText("dropped the schedule's 1 hand edit");
});

test('microbatches 0 or -3 are refused at the field with the message, never applied nor saved', async ({
  page,
}) => {
  await page.getByTestId('directive-0').locator('.program-main').click();
  const field = page.getByTestId('field-microbatches');
  const error = page.getByTestId('field-microbatches-error');
  await field.fill('0');
  await field.press('Enter');
  await expect(error).toHaveText('must be ≥ 1');
  await field.fill('-3');
  await field.press('Enter');
  await expect(error).toHaveText('must be ≥ 1');
  await expect(page.getByTestId('directive-0')).toContainText('m=8');
  await expect(page.getByTestId('undo')).toBeDisabled();
  await expect(page.getByTestId('save-status')).toHaveText('not saved');
  // The message goes as soon as the value is valid, before it is committed.
  await field.fill('12');
  await expect(error).toHaveCount(0);
  await field.press('Enter');
  await expect(page.getByTestId('directive-0')).toContainText('m=12');
  await expect(page.getByTestId('save-status')).toHaveText('saved · v1');
});

test('an edit that breaks a schedule edit is marked as the cause, with the compiler’s message', async ({
  page,
}) => {
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  // Device 1 runs microbatch 0's weight gradient later: an edit of the schedule naming that BW.
  await dragOp(page, 'BW.b1.mb0', 'F.b1.mb3', 'after');
  await expect(page.getByTestId('schedule-fold-0')).toContainText('move 1BW0 after 1F3');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await openFold(page, 0);
  await page.getByTestId('directive-1').locator('.program-main').click();
  const pp = page.getByTestId('field-filter-PP');
  await pp.fill('2');
  await pp.press('Enter');
  const edited = page.getByTestId('program-list').locator('li[data-op="split_backward"]');
  await expect(edited.getByTestId('directive-cause')).toContainText(
    'after this edit: directives[0].edits[0].op (PP=1 MB=0 PASS=BW) 1BW0: the schedule runs that backward as one B',
  );
  await expect(edited).toHaveClass(/has-error/);
  await expect(page.getByTestId('schedule-edit-0-0').getByTestId('directive-error')).toContainText(
    'directives[0].edits[0].op',
  );
  await expect(page.getByTestId('compute-status')).toContainText('last valid result');
});

test('split backward on stage 1 then a timeline move: one schedule item with its edits folded, running as the hand-expanded program', async ({
  page,
}) => {
  const list = page.getByTestId('program-list');
  const status = page.getByTestId('compute-status');
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(ganttOp(page, 'BW.b1.mb0')).toBeAttached();
  await expect(status).toContainText('recomputed');
  await dragOp(page, 'BW.b1.mb0', 'F.b1.mb3', 'after');
  const fold = page.getByTestId('schedule-fold-0');
  await expect(fold).toContainText('2 edits: split backward PP=1, move 1BW0 after 1F3');
  await expect(status).toContainText('recomputed');
  // One item at the top of the program: the schedule, whatever is open beneath it.
  await expect(list.locator(':scope > li')).toHaveCount(1);
  await openFold(page, 0);
  await expect(page.getByTestId('schedule-edit-0-0')).toContainText('move1BW0 after 1F3');
  await expect(list.locator('li[data-op="split_backward"]')).toHaveCount(1);
  const compact = { makespan: await metric(page, 'makespan'), bubble: await metric(page, 'bubble') };
  expect(compact.makespan).toBeLessThan(33);

  // The same by hand, as the designer used to write it: expand first, then drop and move.
  for (let k = 0; k < 2; k++) await page.getByTestId('undo').click();
  await expect(list.locator('li')).toHaveCount(1);
  await expect.poll(() => metric(page, 'makespan')).toBe(33);
  await page.getByTestId('directive-0').locator('.program-main').click();
  await page.getByTestId('expand-schedule').click();
  await expect(list.locator('li[data-op="order"]')).toHaveCount(4);
  await expect(status).toContainText('recomputed');
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(ganttOp(page, 'BW.b1.mb0')).toBeAttached();
  await expect(status).toContainText('recomputed');
  await dragOp(page, 'BW.b1.mb0', 'F.b1.mb3', 'after');
  await expect(page.getByTestId('gantt-refusal')).toHaveCount(0);
  await expect.poll(() => metric(page, 'makespan')).toBe(compact.makespan);
  expect(await metric(page, 'bubble')).toBe(compact.bubble);
  await expect(list.locator('li[data-op="order"]')).toHaveCount(4);
  await expect(list.locator('li[data-op="schedule"]')).toHaveCount(0);
});

/** Opens the fold beneath schedule `index` if it is closed. */
async function openFold(page: Page, index: number): Promise<void> {
  const toggle = page.getByTestId(`fold-toggle-${index}`);
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
}

test('split backward dropped on stage 1, then its filter widened to every stage, runs as four drops on the expanded program', async ({
  page,
}) => {
  const list = page.getByTestId('program-list');
  const status = page.getByTestId('compute-status');
  await page.getByTestId('palette-split_backward').dragTo(dagNode(page, 'B.b1.mb0'));
  await expect(status).toContainText('recomputed');
  const pp = page.getByTestId('field-filter-PP');
  await pp.fill('*');
  await pp.press('Enter');
  await expect(status).toContainText('recomputed');
  await expect(list.getByTestId('directive-error')).toHaveCount(0);
  for (const stage of [0, 1, 2, 3]) await expect(ganttOp(page, `BW.b${stage}.mb0`)).toBeAttached();
  // One item at the top of the program: the schedule, with the split folded beneath it.
  await expect(list.locator(':scope > li')).toHaveCount(1);
  await expect(page.getByTestId('schedule-fold-0')).toContainText('split backward PP=*');
  const compact = { makespan: await metric(page, 'makespan'), bubble: await metric(page, 'bubble') };
  expect(compact.makespan).toBeLessThan(33);

  // The same by hand: the schedule expanded, then a drop on every stage's backward.
  for (let k = 0; k < 2; k++) await page.getByTestId('undo').click();
  await expect.poll(() => metric(page, 'makespan')).toBe(33);
  await page.getByTestId('directive-0').locator('.program-main').click();
  await page.getByTestId('expand-schedule').click();
  await expect(list.locator('li[data-op="order"]')).toHaveCount(4);
  await expect(status).toContainText('recomputed');
  for (const stage of [0, 1, 2, 3]) {
    await page.getByTestId('palette-split_backward').dragTo(dagNode(page, `B.b${stage}.mb0`));
    await expect(ganttOp(page, `BW.b${stage}.mb0`)).toBeAttached();
    await expect(status).toContainText('recomputed');
  }
  await expect.poll(() => metric(page, 'makespan')).toBe(compact.makespan);
  expect(await metric(page, 'bubble')).toBe(compact.bubble);
});

test('a shard_tensor drop on a mesh stage asks for the axis and adds the directive over the one chosen', async ({
  page,
}) => {
  // Llama-3-70B on 64 GPUs: each edit compiles for seconds.
  test.setTimeout(60_000);
  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-llama3-70b-tp8-pp4-dp2').click();
  await expect(page.getByTestId('design-name')).toHaveValue(/Llama-3-70B TP8 x PP4 x DP2/);
  // Without its tensor-parallel directive, the stage's dp2 × tp8 mesh has two axes to choose from.
  await page.getByTestId('directive-delete-1').click();
  await expect(page.getByTestId('program-list').locator('[data-op="shard_tensor"]')).toHaveCount(0);
  expect(await settled(page)).toEqual([]);
  const node = dagNode(page, 'F.b0.mb0');
  await page.getByTestId('palette-shard_tensor').dragTo(node);
  const dialog = page.getByRole('dialog', { name: 'shard tensor over which axis?' });
  await expect(dialog).toHaveAttribute('aria-modal', 'true');
  await expect(dialog.getByRole('button')).toHaveText([
    '✕',
    'dp (2 devices each, 8 sub-groups)',
    'tp (8 devices each, 2 sub-groups)',
    'whole group (16 devices)',
    'Cancel',
  ]);
  await expect(page.getByTestId('confirm-choice-dp')).toBeFocused();
  // Escape adds nothing.
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('program-list').locator('[data-op="shard_tensor"]')).toHaveCount(0);
  // Focus stays inside: Tab from the last button comes back to the first.
  await page.getByTestId('palette-shard_tensor').dragTo(node);
  await page.getByTestId('confirm-cancel').focus();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'close' })).toBeFocused();
  await page.getByTestId('confirm-choice-tp').click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('program-list').locator('[data-op="shard_tensor"]')).toHaveCount(1);
  await expect(page.getByTestId('inspector')).toContainText('shard_tensor');
  await expect(page.getByTestId('field-axis')).toHaveValue('"tp"');
  await expect(page.getByTestId('field-devices')).toHaveValue(/^0, 1, .*, 38, 39$/);
  expect(await settled(page)).toEqual([]);
});

/** A cluster of 16 devices and the mesh form set to 4 stages: both mesh tests start here. */
async function meshFormOn16Devices(page: Page) {
  const devices = page.getByTestId('cluster-devices');
  await devices.fill('16');
  await devices.press('Enter');
  const form = page.getByTestId('mesh-form');
  await form.getByLabel('stages', { exact: true }).fill('4');
  return form;
}

test('the cluster form lays the pipeline stages out on a dp × tp mesh, refusing one the cluster cannot hold', async ({
  page,
}) => {
  const form = await meshFormOn16Devices(page);
  await form.getByLabel('axes', { exact: true }).fill('dp, tp');
  await form.getByLabel('sizes', { exact: true }).fill('2, 4');
  await expect(form.getByRole('alert')).toHaveText(
    'the mesh needs 4 stages × 2 × 4 = 32 devices; the cluster has 16',
  );
  await expect(form.getByRole('button', { name: 'Apply to schedule' })).toBeDisabled();
  await form.getByLabel('sizes', { exact: true }).fill('2, 2');
  await expect(form.getByTestId('mesh-summary')).toHaveText('4 stages × 2 × 2 (dp × tp) = 16 devices');
  await form.getByRole('button', { name: 'Apply to schedule' }).click();
  expect(await settled(page)).toEqual([]);
  // Each stage is one mesh group: the DAG lanes and the timeline bands give the coordinates.
  await expect(page.getByTestId('dag-canvas')).toContainText('devices 12–15 · dp 0–1 · tp 0–1');
  await expect(page.getByTestId('gantt')).toContainText('PP 3 · dp 1 · tp 1');
  await expect(page.getByTestId('directive-0')).toContainText('schedule');
});

test('a replicate drop on a timeline op of a mesh stage asks for the axis and runs over that stage’s group', async ({
  page,
}) => {
  const form = await meshFormOn16Devices(page);
  await form.getByLabel('sizes', { exact: true }).fill('2, 2');
  await form.getByRole('button', { name: 'Apply to schedule' }).click();
  expect(await settled(page)).toEqual([]);
  await page.getByTestId('palette-replicate').dragTo(ganttOp(page, 'F.b2.mb3'));
  await page
    .getByRole('dialog', { name: 'replicate over which axis?' })
    .getByRole('button', { name: /^dp/ })
    .click();
  await expect(page.getByTestId('inspector')).toContainText('replicate');
  await expect(page.getByTestId('field-devices')).toHaveValue('8, 9, 10, 11');
  await expect(page.getByTestId('field-axis')).toHaveValue('"dp"');
  expect(await settled(page)).toEqual([]);
});
