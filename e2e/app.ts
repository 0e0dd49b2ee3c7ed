/** Driving the designer the way a user does, through the page's stable test hooks. */
import { expect, type Locator, type Page } from '@playwright/test';

/**
 * Deletes the examples' working copies earlier tests made: an example opens with its copy's
 * versions otherwise (one copy per example, found again), and a test counting versions from 1
 * would depend on the tests before it.
 */
export async function dropWorkingCopies(page: Page): Promise<void> {
  const r = await page.request.get('/api/designs');
  const { designs } = (await r.json()) as { designs: { id: string; example?: string }[] };
  for (const d of designs) if (d.example !== undefined) await page.request.delete(`/api/designs/${d.id}`);
}

export async function openApp(page: Page, path = '/'): Promise<void> {
  // A path naming a saved design (`/#design=…`) opens a copy the test made: kept.
  if (path === '/') await dropWorkingCopies(page);
  await page.goto(path);
  await expect(page.getByTestId('dag-canvas').locator('[data-testid=dag-node]').first()).toBeVisible();
  await expect(page.getByTestId('gantt').locator('[data-op-id]').first()).toBeAttached();
  await expect(page.getByTestId('compute-status')).toContainText('recomputed');
}

export async function metric(
  page: Page,
  name: 'makespan' | 'bubble' | 'bubble-ideal' | 'ops',
): Promise<number> {
  return Number(await page.getByTestId(`metric-${name}`).getAttribute('data-value'));
}

/**
 * Waits until the latest edit is computed (none still in the worker), its DAG laid out too (it
 * arrives after the timeline: a drop aimed at the previous result's DAG would land as the new one
 * replaces it), and returns its errors as `path: message` lines: none when the result on screen is
 * the latest design's.
 */
export async function settled(page: Page, { timeout = 30_000 } = {}): Promise<string[]> {
  const read = () =>
    page.evaluate(() => {
      const s = (
        window as unknown as {
          stagecraft: {
            store: {
              getState(): {
                status: string;
                revision: number;
                resultRevision: number;
                graphRevision: number;
                passView: unknown;
                errors: { path: string; message: string }[];
              };
            };
          };
        }
      ).stagecraft.store.getState();
      // The timeline renders a result after the rest of the page (components/TimelinePane.tsx).
      const shown = document.querySelector('.timeline-pane')?.getAttribute('data-result-revision');
      return {
        done:
          s.status === 'error' ||
          (s.resultRevision === s.revision &&
            (s.passView !== null || s.graphRevision === s.resultRevision) &&
            (shown == null || Number(shown) === s.resultRevision) &&
            // A new layout's rows are painted in slices over several tasks (gantt/painter.ts).
            document.querySelector('[data-testid="gantt"][data-painting]') === null),
        errors: s.errors.map((e) => `${e.path}: ${e.message}`),
      };
    });
  // A mesh example compiles for seconds on a loaded machine, and its DAG is laid out after.
  await expect.poll(async () => (await read()).done, { timeout }).toBe(true);
  return (await read()).errors;
}

/** Waits until a metric differs from `before` and returns the new value. */
export async function metricChange(page: Page, name: 'makespan' | 'bubble', before: number): Promise<number> {
  await expect.poll(() => metric(page, name)).not.toBe(before);
  return metric(page, name);
}

export function dagNode(page: Page, id: string): Locator {
  return page.getByTestId('dag-canvas').locator(`[data-node-id="${id}"]`);
}

export function ganttOp(
  page: Page,
  id: string,
  within: Locator = page.getByTestId('gantt').first(),
): Locator {
  return within.locator(`[data-op-id="${id}"]`).first();
}

/** A pointer drag on the timeline from the centre of one op to a point of another. */
export async function dragOp(page: Page, from: string, to: string, side: 'before' | 'after'): Promise<void> {
  const a = await ganttOp(page, from).boundingBox();
  const b = await ganttOp(page, to).boundingBox();
  if (!a || !b) throw new Error(`op ${!a ? from : to} is not on the timeline`);
  const y = a.y + a.height / 2;
  await page.mouse.move(a.x + a.width / 2, y);
  await page.mouse.down();
  const x = side === 'before' ? b.x + 2 : b.x + b.width - 2;
  await page.mouse.move((a.x + x) / 2, y, { steps: 4 });
  await page.mouse.move(x, b.y + b.height / 2, { steps: 4 });
  await page.mouse.up();
}
