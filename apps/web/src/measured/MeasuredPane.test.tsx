// @vitest-environment happy-dom
import type { Design } from '@stagecraft/ir';
import { chromeTrace } from '@stagecraft/sim';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { measuredOverlay } from '../core/measuredOverlay.ts';
import { initStore, useStore } from '../store/index.ts';
import { clearMeasured, useMeasured } from '../store/measured.ts';
import { MeasuredPane } from './MeasuredPane.tsx';

afterEach(() => {
  cleanup();
  clearMeasured();
});

/** The example as it "ran" with other costs: its simulated step written as the runtime writes traces. */
let prepared: ReturnType<typeof prepare> | undefined;
function prepare() {
  const design = example('1f1b-p4-m8');
  const truth = { ...design, model: { ...design.model, costs: { F: 1.5, BI: 1.25, BW: 0.75 } } } as Design;
  const ran = computed(truth);
  const trace = JSON.stringify(chromeTrace(ran.plan, ran.simulation));
  const overlay = measuredOverlay(design, [{ name: 'trace_rank0.json', text: trace }]);
  if (!overlay.ok) throw new Error(overlay.errors.join('\n'));
  const { graph: _graph, dag: _dag, ...result } = computed(design);
  return { design, truth: ran, trace, overlay, result };
}

function show() {
  prepared ??= prepare();
  const { design, truth: ran, trace, overlay, result } = prepared;
  initStore(design);
  useStore.setState({ result, status: 'ok' } as never);
  useMeasured.setState({
    files: [{ name: 'trace_rank0.json', text: trace }],
    overlay,
    comparedWith: useStore.getState().design,
    status: 'ok',
  });
  render(<MeasuredPane />);
  return { design, overlay, measuredMs: ran.simulation.makespanMs };
}

describe('<MeasuredPane>', () => {
  test('gives the step predicted → measured and one row per divergent instruction, with both starts and durations', () => {
    const { overlay } = show();
    expect(screen.getByTestId('measured-step').textContent).toContain('33.0 ms predicted → 38.5 ms measured');
    const rows = screen.getAllByTestId('divergence');
    expect(rows.length).toBe(Math.min(12, overlay.replay.divergences.length));
    const top = overlay.replay.divergences[0]!;
    const cells = within(rows[0]!)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells[0]).toBe(String(top.device));
    expect(cells[1]).toBe(top.id);
    expect(cells[2]).toMatch(/ms → .* ms/);
    expect(cells[3]).toMatch(/ms → .* ms/);
  });

  test('Apply calibration replaces model and cluster in one undoable edit', () => {
    const { design, overlay } = show();
    fireEvent.click(screen.getByTestId('apply-calibration'));
    const s = useStore.getState();
    expect(s.design.model).toEqual(overlay.calibrated?.model);
    expect(s.design.cluster).toEqual(overlay.calibrated?.cluster);
    expect(s.design.directives).toEqual(design.directives);
    expect(s.history.past.length).toBe(1);
  });

  test('Apply calibration waits while the design changed since the traces were compared', () => {
    show();
    act(() => useMeasured.setState({ comparedWith: { ...useStore.getState().design } }));
    const button = screen.getByTestId('apply-calibration') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.title).toBe('comparing the traces with the design as it is now');
  });

  test('Remove takes the overlay away', () => {
    show();
    fireEvent.click(screen.getByTestId('measured-clear'));
    expect(useMeasured.getState().overlay).toBeNull();
    expect(screen.queryByTestId('measured-pane')).toBeNull();
  });
});
