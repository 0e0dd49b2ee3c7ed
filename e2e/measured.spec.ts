/**
 * The measured overlay (issue 21 part 3): a measured step brought into the designer is drawn under
 * the prediction on one time axis with the instructions that diverge most, and applying the
 * calibration makes the prediction the measured step. The "measured" trace is the default
 * example's step simulated with other costs, written as Stagecraft's runtime writes its traces.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { type Design, planFingerprint } from '@stagecraft/ir';
import { chromeTrace } from '@stagecraft/sim';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { dagNode, metric, metricChange, openApp, settled } from './app.ts';

const root = join(import.meta.dirname, '..');
const example = JSON.parse(readFileSync(join(root, 'examples/1f1b-p4-m8.json'), 'utf8')) as Design;

/** The example as it "ran": slower forwards, faster weight gradients than its nominal 1 ms each. */
function measuredRun(): { trace: string; stepMs: number } {
  const truth = {
    ...example,
    model: { ...example.model, costs: { F: 1.5, BI: 1.25, BW: 0.75 } },
  } as Design;
  const run = runDesign(truth, { keepSnapshots: false });
  if (!run.ok) throw new Error('the measured design does not compile');
  const sim = simulateRun(run, true).result;
  if (!sim.ok) throw new Error('the measured design does not simulate');
  return { trace: JSON.stringify(chromeTrace(run.compiled.plan, sim.sim)), stepMs: sim.sim.makespanMs };
}

/** The trace split by device, one file per rank, as a multi-process run writes it. */
function perRank(trace: string): { name: string; mimeType: string; buffer: Buffer }[] {
  const doc = JSON.parse(trace) as { traceEvents: { pid: number }[] };
  const pids = [...new Set(doc.traceEvents.map((e) => e.pid))].sort((a, b) => a - b);
  return pids.map((pid) => ({
    name: `trace_rank${pid}.json`,
    mimeType: 'application/json',
    buffer: Buffer.from(
      JSON.stringify({ ...doc, traceEvents: doc.traceEvents.filter((e) => e.pid === pid) }),
    ),
  }));
}

async function dropFile(page: Page, name: string, text: string): Promise<void> {
  await page
    .getByTestId('gantt')
    .first()
    .evaluate(
      (el, file) => {
        const dt = new DataTransfer();
        dt.items.add(new File([file.text], file.name, { type: 'application/json' }));
        for (const type of ['dragenter', 'dragover', 'drop'])
          el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      },
      { name, text },
    );
}

test('a measured trace shows its lanes under the prediction and the divergences, and its calibration becomes the prediction', async ({
  page,
}) => {
  await openApp(page);
  const predicted = await metric(page, 'makespan');
  const { trace, stepMs } = measuredRun();

  // Several files at once: one trace per rank.
  const files = perRank(trace);
  expect(files.length).toBe(4);
  await page.getByLabel('Measured traces').setInputFiles(files);

  const pane = page.getByTestId('measured-pane');
  await expect(pane).toBeVisible();
  await expect(pane).toContainText('trace_rank0.json, trace_rank1.json, trace_rank2.json, trace_rank3.json');
  // One lane band per device, each op where it was measured; both timelines on one axis.
  const lanes = page.getByTestId('measured-lanes');
  await expect(lanes.locator('[data-op-id="F.b0.mb0"]')).toBeAttached();
  await expect(lanes.locator('[data-op-id]')).toHaveCount(
    await page.getByTestId('gantt').first().locator('[data-op-id]').count(),
  );
  const axisMs = Math.max(predicted, stepMs);
  await expect(lanes.getByTestId('gantt')).toHaveAttribute('data-makespan-ms', String(stepMs));
  const step = page.getByTestId('measured-step');
  expect(Number(await step.getAttribute('data-measured-ms'))).toBeCloseTo(stepMs, 6);
  expect(Number(await step.getAttribute('data-predicted-ms'))).toBeCloseTo(predicted, 6);
  expect(axisMs).toBeGreaterThan(predicted);

  // The divergence list names device, instruction, predicted → measured start and duration.
  const rows = page.getByTestId('divergence');
  await expect(rows.first()).toBeVisible();
  await expect(rows.first()).toContainText('→');
  const first = rows.first();
  expect(await first.getAttribute('data-device')).toMatch(/^\d+$/);
  expect(await first.getAttribute('data-op-id')).toMatch(/^(F|B|BI|BW|UPD)\./);

  // A row's instruction is selected on the timelines, as a click on the op selects it.
  const id = (await first.getAttribute('data-op-id'))!;
  await first.getByRole('button', { name: id }).click();
  await expect(first.getByRole('button', { name: id })).toHaveAttribute('aria-pressed', 'true');
  expect(
    await page.evaluate(
      () =>
        (
          window as unknown as { stagecraft: { store: { getState(): { target: { id: string } | null } } } }
        ).stagecraft.store.getState().target?.id,
    ),
  ).toBe(id);

  await page.getByTestId('apply-calibration').click();
  const calibrated = await metricChange(page, 'makespan', predicted);
  expect(calibrated).toBeCloseTo(stepMs, 3);
  expect(await settled(page)).toEqual([]);
  // Compared again with the new prediction: it now replays the measured step.
  await expect.poll(async () => Number(await step.getAttribute('data-predicted-ms'))).toBeCloseTo(stepMs, 3);
  // Which figure the measured step is, against the CLI's.
  await expect(step).toHaveAttribute(
    'title',
    /stagecraft compare --measured.*`stagecraft run` prints a longer one/,
  );
  // The fitted costs are in the model form: the measured 1.5 ms forward, and the fused 2 ms
  // backward split as the model splits it (half each); F&B is their sum.
  const blocks = page.getByTestId('model-blocks');
  await expect(blocks.locator('tbody tr')).toHaveCount(4);
  await expect(blocks.locator('tbody tr').first()).toContainText('stage 01.50 ms1.00 ms1.00 ms');

  // One undo puts the model and cluster back.
  await page.keyboard.press('Control+Z');
  expect(await metricChange(page, 'makespan', calibrated)).toBeCloseTo(predicted, 6);
});

test('a trace dropped on the timeline is read too, and a bad one is refused naming the file and the event', async ({
  page,
}) => {
  await openApp(page);
  await dropFile(
    page,
    'rank0.json',
    JSON.stringify([{ name: 'F.b0.mb0', ph: 'X', ts: 0, dur: -1, pid: 'CPU functions' }]),
  );
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText('rank0.json: [0].dur');
  await expect(notice).toContainText('F.b0.mb0');
  await expect(page.getByTestId('measured-pane')).toHaveCount(0);

  await dropFile(page, 'trace_rank0.json', measuredRun().trace);
  await expect(page.getByTestId('measured-lanes').locator('[data-op-id="F.b0.mb0"]')).toBeAttached();
});

test('a dropped trace over 64 MiB is refused by its size, unread, naming the CLI command that takes it', async ({
  page,
}) => {
  await openApp(page);
  await page
    .getByTestId('gantt')
    .first()
    .evaluate((el) => {
      const dt = new DataTransfer();
      // 65 MiB of zeros: a size the page must refuse before reading a byte of it.
      dt.items.add(new File([new Uint8Array(65 * 1024 * 1024)], 'huge.json', { type: 'application/json' }));
      for (const type of ['dragenter', 'dragover', 'drop'])
        el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    });
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText(
    'huge.json: 65.0 MiB, over the 64.0 MiB the page reads; compare it with `stagecraft compare <design> --measured huge.json`',
  );
  await expect(page.getByTestId('measured-pane')).toHaveCount(0);
});

test("a measured trace belongs to its design: opening another clears the overlay and the previous design's op in Details", async ({
  page,
}) => {
  await openApp(page);
  await page.getByLabel('Measured traces').setInputFiles(perRank(measuredRun().trace));
  await expect(page.getByTestId('measured-pane')).toBeVisible();
  await dagNode(page, 'F.b0.mb0').hover();
  await expect(page.getByTestId('node-details')).toContainText('F.b0.mb0');

  await page.getByTestId('open-examples').click();
  await page.getByTestId('example-qwen3-30b-a3b-pp4-ep8-dualpipev').click();
  await expect(page.getByTestId('design-name')).toHaveValue(/Qwen3-30B-A3B/);
  expect(await settled(page)).toEqual([]);
  await expect(page.getByTestId('measured-pane')).toHaveCount(0);
  await expect(page.getByTestId('apply-calibration')).toHaveCount(0);
  await expect(page.getByTestId('node-details')).toHaveCount(0);
});

test('a trace that records another plan is refused on load, naming both plans', async ({ page }) => {
  await openApp(page);
  // The runtime's trace of the same schedule with 16 microbatches: it has every id of m = 8.
  const m16 = { ...example, directives: [{ op: 'schedule', builder: '1f1b', microbatches: 16 }] } as Design;
  const run = runDesign(m16, { keepSnapshots: false });
  if (!run.ok) throw new Error('m = 16 does not compile');
  const sim = simulateRun(run, true).result;
  if (!sim.ok) throw new Error('m = 16 does not simulate');
  const trace = chromeTrace(run.compiled.plan, sim.sim);
  const fingerprint = planFingerprint(run.compiled.plan);
  await page.getByLabel('Measured traces').setInputFiles({
    name: 'trace.json',
    mimeType: 'application/json',
    buffer: Buffer.from(
      JSON.stringify({ ...trace, otherData: { ...trace.otherData, planFingerprint: fingerprint } }),
    ),
  });
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText(
    `the trace was measured from plan ${fingerprint}, and this design compiles to plan plan:4d:`,
  );
  await expect(page.getByTestId('measured-pane')).toHaveCount(0);
});
