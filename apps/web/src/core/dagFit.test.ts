import { describe, expect, it } from 'vitest';
import { dagViewport, FIT_FLOOR, LABEL_PX, labelScale, labelsReadable, MIN_FIT_ZOOM } from './dagFit.ts';

describe('where the DAG canvas opens and how large its labels are', () => {
  it('a graph wider than the pane is shown whole, its last column (UPD) inside the pane', () => {
    const graph = { x: -190, y: 0, width: 1900, height: 420 };
    const v = dagViewport(graph, { width: 1040, height: 380 });
    expect(v.zoom).toBeGreaterThanOrEqual(MIN_FIT_ZOOM);
    expect(v.x + graph.x * v.zoom).toBeGreaterThanOrEqual(0);
    expect(v.x + (graph.x + graph.width) * v.zoom).toBeLessThanOrEqual(1040);
    expect(v.y + graph.height * v.zoom).toBeLessThanOrEqual(380);
  });

  it('a graph too wide to read whole is fitted across as an outline: every column in the pane, labels on hover', () => {
    // DualPipeV's 26 columns in a 1440 px window's DAG pane.
    const graph = { x: -190, y: 0, width: 3766, height: 718 };
    const pane = { width: 870, height: 359 };
    const v = dagViewport(graph, pane);
    expect(v.zoom).toBeLessThan(MIN_FIT_ZOOM);
    expect(v.zoom).toBeGreaterThanOrEqual(FIT_FLOOR);
    expect(v.x + graph.x * v.zoom).toBeGreaterThanOrEqual(0);
    expect(v.x + (graph.x + graph.width) * v.zoom).toBeLessThanOrEqual(pane.width);
    expect(labelsReadable(v.zoom)).toBe(false);
  });

  it('a graph too tall is fitted across from its top, at the readable zoom when its columns allow', () => {
    const v = dagViewport({ x: -190, y: 0, width: 1200, height: 9_000 }, { width: 1000, height: 400 });
    expect(v.zoom).toBe(MIN_FIT_ZOOM);
    expect(v.y).toBe(16);
  });

  it('never fits below the floor: a graph of hundreds of columns opens readable at its start', () => {
    const v = dagViewport({ x: -190, y: 0, width: 105_000, height: 9_000 }, { width: 1000, height: 400 });
    expect(v.zoom).toBe(MIN_FIT_ZOOM);
    expect(v.x + -190 * v.zoom).toBe(16);
    expect(v.y).toBe(16);
  });

  it('a small graph is not blown up past its natural size', () => {
    expect(dagViewport({ x: 0, y: 0, width: 200, height: 100 }, { width: 1000, height: 400 }).zoom).toBe(1);
  });

  it('labels show at least 9 px on screen at any zoom the canvas opens at', () => {
    for (const zoom of [MIN_FIT_ZOOM, 0.5, 0.6, 0.75, 1])
      expect(12 * labelScale(zoom) * zoom).toBeGreaterThanOrEqual(LABEL_PX - 1e-9);
    expect(labelScale(1)).toBe(1);
  });

  it('labels show exactly where they reach 9 px on screen', () => {
    expect(labelsReadable(MIN_FIT_ZOOM)).toBe(true);
    expect(labelsReadable(1)).toBe(true);
    expect(labelsReadable(0.4)).toBe(false);
    expect(labelsReadable(FIT_FLOOR)).toBe(false);
  });

  it('fits the graph beside the tools on the pane, so the counter and zoom buttons cover no label', () => {
    const graph = { x: -190, y: 0, width: 1900, height: 420 };
    const reserved = { top: 36, left: 44 };
    for (const pane of [
      { width: 1040, height: 380 },
      { width: 3000, height: 2000 },
    ]) {
      const v = dagViewport(graph, pane, 16, reserved);
      expect(v.x + graph.x * v.zoom).toBeGreaterThanOrEqual(reserved.left);
      expect(v.y + graph.y * v.zoom).toBeGreaterThanOrEqual(reserved.top);
      expect(v.x + (graph.x + graph.width) * v.zoom).toBeLessThanOrEqual(pane.width);
    }
    // A graph too tall to fit starts just under the counter, not under it.
    const tall = dagViewport(
      { x: -190, y: 0, width: 800, height: 9000 },
      { width: 1000, height: 400 },
      16,
      reserved,
    );
    expect(tall.y).toBe(36 + 16);
  });
});
