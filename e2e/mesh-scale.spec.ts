/**
 * A design at mesh scale reads as well as a small one (issue 30, §3): Llama 3.1 405B on 8,192
 * GPUs, each pipeline stage a dp64 × tp8 mesh strided over the cluster.
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import { labelBoxes, overlapping } from './labelBoxes.ts';

test.setTimeout(90_000);

async function open405b(page: Page) {
  await page.goto('/');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-llama3.1-405b-tp8-pp16-dp64').click();
  await expect(page.getByTestId('design-name')).toHaveValue(/405B/);
  await expect(page.getByTestId('dag-canvas').locator('.dag-lane-title').first()).toContainText('tp8', {
    timeout: 60_000,
  });
  await expect(page.getByTestId('gantt')).toHaveAttribute('data-layout', 'ready', { timeout: 60_000 });
}

const overlap = async (a: Locator, b: Locator) => {
  const x = (await a.boundingBox())!;
  const y = (await b.boundingBox())!;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
};

test('the DAG lane of a stage strided over 8,192 GPUs is summarised, and no tool covers a label', async ({
  page,
}) => {
  await open405b(page);
  const canvas = page.getByTestId('dag-canvas');
  const title = canvas.locator('.dag-lane-title').first();
  await expect(title).toHaveText('64 × tp8 groups: devices 0–7, 128–135, …, 8064–8071 · dp 0–63 · tp 0–7');
  // Every range of the group is one hover away.
  const full = (await title.getAttribute('title'))!;
  expect(full.split(', ')).toHaveLength(64);
  expect(full).toContain('1024–1031');
  // The counter and the zoom buttons lie beside the labels, not over them.
  const labels = [title, ...(await canvas.locator('.dag-row-label').all()).slice(0, 6)];
  for (const tool of [canvas.locator('.dag-tools'), canvas.locator('.react-flow__controls')])
    for (const label of labels) expect(await overlap(tool, label)).toBe(false);
});

test('at 1440×900 no two of the 405B DAG’s labels overlap, a cut one in full on hover', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await open405b(page);
  const canvas = page.getByTestId('dag-canvas');
  await expect(canvas).toHaveAttribute('aria-busy', 'false');
  const boxes = await labelBoxes(page);
  expect(boxes.length).toBeGreaterThan(20);
  expect(overlapping(boxes)).toEqual([]);
  // Every row label gives its full text on hover, and one cut to the label column still says it all.
  const rows = await canvas.locator('.dag-row-label').evaluateAll((els) =>
    els.map((el) => ({
      title: el.getAttribute('title'),
      text: el.textContent,
      cut: el.scrollWidth > el.clientWidth,
    })),
  );
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) expect(r.title).toBe(r.text);
  expect(rows.some((r) => r.cut)).toBe(true);
});

test('the timeline gutter gives a mesh device’s coordinates and its peak memory in full on hover', async ({
  page,
}) => {
  await open405b(page);
  const gantt = page.getByTestId('gantt');
  const box = (await gantt.boundingBox())!;
  // The gutter beside dev 0's compute lane (under the axis row).
  await page.mouse.move(box.x + 30, box.y + 22 + 10);
  await expect(gantt).toHaveAttribute(
    'title',
    // Eight one-layer chunks per rank (PP 0, 16, …, 112); the design fits, so its peak is not OOM.
    /^dev 0 · PP 0,16[^·]* · dp 0–63 · tp 0–7\npeak \d+\.\d GiB of 80\.0 GiB/,
  );
  // Off the gutter, no gutter text.
  await page.mouse.move(box.x + box.width / 2, box.y + 40);
  await expect(gantt).toHaveAttribute('title', '');
});

test('the mesh form refuses 8 stages on a 4-stage model before Apply, saying why', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  const devices = page.getByTestId('cluster-devices');
  await devices.fill('16');
  await devices.press('Enter');
  const form = page.getByTestId('mesh-form');
  await form.getByLabel('axes', { exact: true }).fill('dp');
  await form.getByLabel('sizes', { exact: true }).fill('2');
  await form.getByLabel('stages', { exact: true }).fill('8');
  await expect(form.getByRole('alert')).toHaveText(
    'stages: the model has 4 PP stages, which do not divide into 8 stages (1f1b)',
  );
  await expect(form.getByRole('button', { name: 'Apply to schedule' })).toBeDisabled();
  await form.getByLabel('stages', { exact: true }).fill('4');
  await expect(form.getByTestId('mesh-summary')).toHaveText('4 stages × 2 (dp) = 8 devices');
  await expect(form.getByRole('button', { name: 'Apply to schedule' })).toBeEnabled();
});

test('shard tensor is greyed, with the reason, on an op already tensor parallel', async ({ page }) => {
  const design = {
    format: 'stagecraft/design@1',
    name: 'TP on stage 1',
    model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: 8 },
    directives: [
      {
        op: 'schedule',
        builder: '1f1b',
        microbatches: 4,
        groups: [
          [0, 1],
          [2, 3],
          [4, 5],
          [6, 7],
        ],
      },
      { op: 'shard_tensor', filter: { PP: 1 }, devices: [2, 3] },
    ],
  };
  expect((await page.request.put('/api/designs/e2e-tp-stage1', { data: { design } })).ok()).toBe(true);
  await page.goto('/#design=e2e-tp-stage1');
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
  const shard = page.getByTestId('palette-shard_tensor');
  await page.getByTestId('gantt').locator('[data-op-id="F.b1.mb0"]').first().click();
  await expect(shard).toBeDisabled();
  await expect(shard).toHaveAttribute('title', /is already tensor parallel on devices 2, 3/);
  // Another stage's op takes it.
  await page.getByTestId('gantt').locator('[data-op-id="F.b0.mb0"]').first().click();
  await expect(shard).toBeEnabled();
  await expect(shard).toHaveAttribute('title', /tensor parallel: all-reduce pair/);
});
