// @vitest-environment happy-dom
import type { TimelineEvent } from '@stagecraft/sim';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exampleDesign, run, runExample } from '../../test/simulatedExamples.ts';
import { Gantt, PALETTE_DRAG_TYPE, planOutline, SVG_OP_LIMIT } from './index.ts';

afterEach(cleanup);

const root = () => screen.getByTestId('gantt');
const centre = (id: string) => {
  const r = root().stagecraftGantt!.locate(id)!;
  return { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
};

describe('<Gantt>', () => {
  it('renders an element with data-op-id for every op and labels compute with its microbatch', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} />);
    expect(root().dataset.render).toBe('svg');
    const ids = [...root().querySelectorAll('[data-op-id]')].map((e) => e.getAttribute('data-op-id'));
    expect(new Set(ids)).toEqual(new Set(sim.timeline!.map((e) => e.id)));
    const f3 = root().querySelector('[data-op-id="F.b2.mb3"]')!;
    expect(f3.getAttribute('data-op')).toBe('F');
    expect(f3.textContent).toBe('3');
    expect(root().querySelector('[data-op-id="B.b0.mb7"]')!.textContent).toBe('7');
  });

  it('draws one lane per device and stream, and the bubbles of each device', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} />);
    const lanes = [...root().querySelectorAll('[data-lane]')].map((e) => e.getAttribute('data-lane'));
    expect(lanes).toEqual([
      '0/compute',
      '0/p2p',
      '1/compute',
      '1/p2p',
      '2/compute',
      '2/p2p',
      '3/compute',
      '3/p2p',
    ]);
    const dev3 = [...root().querySelectorAll('[data-bubble-device="3"]')].map((e) => [
      Number(e.getAttribute('data-start-ms')),
      Number(e.getAttribute('data-end-ms')),
    ]);
    expect(dev3).toEqual([
      [0, 3],
      [27, 33],
    ]);
    expect(root().querySelectorAll('[data-memory-device]').length).toBe(4);
  });

  it('outlines DualPipeV overlapped pairs and labels both microbatches', () => {
    const { sim, plan } = runExample('dualpipev-p4-m10');
    render(<Gantt sim={sim} plan={plan} width={1600} />);
    const unit = sim.timeline!.find((e) => e.op === 'OVERLAP')!;
    const el = root().querySelector(`[data-op-id="${unit.id}"]`)!;
    expect([...el.querySelectorAll('[data-member-id]')].map((m) => m.getAttribute('data-member-id'))).toEqual(
      unit.members,
    );
    expect(el.textContent).toMatch(/^\d+′?\/\d+′?$/);
  });

  it('shows tags, costs and provenance of the op under the pointer', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const onHover = vi.fn<(op: TimelineEvent | null) => void>();
    render(<Gantt sim={sim} plan={plan} width={1200} onHover={onHover} />);
    fireEvent.pointerMove(root(), centre('B.b1.mb2'));
    expect(onHover).toHaveBeenLastCalledWith(expect.objectContaining({ id: 'B.b1.mb2' }));
    const tip = screen.getByTestId('gantt-tooltip');
    expect(tip.textContent).toContain('B.b1.mb2');
    expect(tip.textContent).toContain('MB=2');
    expect(tip.textContent).toContain('pass place');
    expect(tip.textContent).toContain('(2 ms)');
  });

  it('draws from a plan outline, and shows op details once the whole plan follows', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const { rerender } = render(<Gantt sim={sim} plan={planOutline(plan)} width={1200} />);
    expect(root().querySelectorAll('[data-op-id]').length).toBe(sim.timeline!.length);
    fireEvent.pointerMove(root(), centre('B.b1.mb2'));
    expect(screen.getByTestId('gantt-tooltip').textContent).toContain('MB=2');
    expect(screen.getByTestId('gantt-tooltip').textContent).not.toContain('pass place');
    rerender(<Gantt sim={sim} plan={plan} width={1200} />);
    expect(screen.getByTestId('gantt-tooltip').textContent).toContain('pass place');
  });

  it('says how long a bubble idles when the pointer rests on it', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} />);
    // Device 3 idles for its first 3 ms, waiting for microbatch 0.
    const f0 = root().stagecraftGantt!.locate('F.b3.mb0')!;
    fireEvent.pointerMove(root(), { clientX: f0.x - 20, clientY: f0.y + f0.height / 2 });
    expect(screen.getByTestId('gantt-bubble-tooltip').textContent).toBe(
      'idle 3 ms on device 3 (0 ms → 3 ms); 9 ms in all, 27.3% of the step',
    );
  });

  it('selects the clicked op', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const onSelect = vi.fn();
    render(<Gantt sim={sim} plan={plan} width={1200} onSelect={onSelect} />);
    fireEvent.click(root(), centre('F.b0.mb4'));
    expect(onSelect).toHaveBeenLastCalledWith('F.b0.mb4');
  });

  it('turns a drag of one op onto another into a reorder before or after it', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const onReorder = vi.fn();
    render(<Gantt sim={sim} plan={plan} width={1200} onReorder={onReorder} />);
    const from = centre('F.b0.mb1');
    const target = root().stagecraftGantt!.locate('F.b0.mb0')!;
    fireEvent.pointerDown(root(), { ...from, button: 0 });
    fireEvent.pointerMove(window, { clientX: target.x + 2, clientY: from.clientY });
    expect(screen.getByTestId('gantt-insert-mark').dataset.position).toBe('before');
    expect(screen.getByTestId('gantt-drag-ghost').style.display).toBe('block');
    fireEvent.pointerUp(window, { clientX: target.x + 2, clientY: from.clientY });
    expect(onReorder).toHaveBeenCalledWith({ op: 'F.b0.mb1', target: 'F.b0.mb0', position: 'before' });
    expect(screen.getByTestId('gantt-drag-ghost').style.display).toBe('none');
  });

  it('lands an op released in a bubble beside the nearest op of that lane', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const onReorder = vi.fn();
    render(<Gantt sim={sim} plan={plan} width={1200} onReorder={onReorder} />);
    // Device 0 idles from 4 ms to 10 ms, between F.b0.mb3 and B.b0.mb0.
    const from = centre('F.b0.mb1');
    const b0 = root().stagecraftGantt!.locate('B.b0.mb0')!;
    fireEvent.pointerDown(root(), { ...from, button: 0 });
    fireEvent.pointerMove(window, { clientX: b0.x - 10, clientY: from.clientY });
    fireEvent.pointerUp(window, { clientX: b0.x - 10, clientY: from.clientY });
    expect(onReorder).toHaveBeenCalledWith({ op: 'F.b0.mb1', target: 'B.b0.mb0', position: 'before' });
  });

  it('shows a refused reorder inline', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} refusal="B.b0.mb0 must come after F.b0.mb0" />);
    expect(screen.getByRole('alert').textContent).toBe('B.b0.mb0 must come after F.b0.mb0');
  });

  it('hands a palette item dropped on an op to onDropPaletteItem', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const onDrop = vi.fn();
    render(<Gantt sim={sim} plan={plan} width={1200} onDropPaletteItem={onDrop} />);
    const data = new Map([[PALETTE_DRAG_TYPE, 'split_backward']]);
    const dataTransfer = {
      types: [PALETTE_DRAG_TYPE],
      getData: (t: string) => data.get(t) ?? '',
      dropEffect: 'none',
    };
    // happy-dom has no DragEvent: a mouse event carrying the data transfer stands in for it.
    const drag = (type: string) => {
      const ev = new MouseEvent(type, { bubbles: true, cancelable: true, ...centre('B.b2.mb0') });
      Object.defineProperty(ev, 'dataTransfer', { value: dataTransfer });
      act(() => {
        root().dispatchEvent(ev);
      });
      return ev;
    };
    expect(drag('dragover').defaultPrevented).toBe(true);
    expect(root().querySelector('[stroke-dasharray="3 2"]')).not.toBeNull();
    drag('drop');
    expect(onDrop).toHaveBeenCalledWith(
      'split_backward',
      expect.objectContaining({ id: 'B.b2.mb0', op: 'B' }),
    );
  });

  it('draws SEND→RECV arrows on demand', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const { rerender } = render(<Gantt sim={sim} plan={plan} width={1200} />);
    expect(root().querySelectorAll('[data-arrow]').length).toBe(0);
    rerender(<Gantt sim={sim} plan={plan} width={1200} showArrows />);
    const arrows = [...root().querySelectorAll('[data-arrow]')].map((a) => a.getAttribute('data-arrow'));
    expect(arrows).toContain('SEND.F.b0.mb0.d1>RECV.F.b0.mb0.d1');
    expect(arrows.length).toBe(sim.timeline!.filter((e) => e.op === 'SEND').length);
  });

  it('in canvas mode lays hit-test elements over the visible ops and zooms into a window', async () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} render="canvas" />);
    expect(root().dataset.render).toBe('canvas');
    const layer = screen.getByTestId('gantt-hit-layer');
    await waitFor(() => expect(layer.querySelectorAll('[data-op-id]').length).toBe(sim.timeline!.length));
    act(() => root().stagecraftGantt!.zoomTo(10, 15));
    const w = root().stagecraftGantt!.window();
    expect(w.t0).toBeCloseTo(10, 6);
    expect(w.t1).toBeGreaterThan(14.9);
    expect(w.t1).toBeLessThan(15.5);
    expect(root().stagecraftGantt!.opAt(centre('F.b0.mb5').clientX, centre('F.b0.mb5').clientY)).toBe(
      'F.b0.mb5',
    );
  });

  it('draws a plan of more than SVG_OP_LIMIT ops on canvas, with a hit element per visible op', async () => {
    const base = exampleDesign('1f1b-p4-m8');
    const { sim, plan } = run({
      ...base,
      model: { kind: 'synthetic', stages: 8, costs: { F: 1, BI: 1, BW: 1 } },
      cluster: { kind: 'ideal', devices: 8 },
      directives: [{ op: 'schedule', builder: '1f1b', microbatches: 32 }],
    });
    expect(sim.ops).toBeGreaterThan(SVG_OP_LIMIT);
    render(<Gantt sim={sim} plan={plan} width={1400} />);
    expect(root().dataset.render).toBe('canvas');
    expect(root().dataset.makespanMs).toBe(String((32 + 8 - 1) * 3));
    const layer = screen.getByTestId('gantt-hit-layer');
    await waitFor(() => expect(layer.querySelectorAll('[data-op-id]').length).toBe(sim.timeline!.length));
  });

  it('on canvas, draws a new simulation at once and lays its hit layer out after that frame', () => {
    vi.useFakeTimers();
    try {
      const a = runExample('1f1b-p4-m8');
      const b = runExample('zb-h1-p4-m8');
      const { rerender } = render(<Gantt sim={a.sim} plan={a.plan} width={1200} render="canvas" />);
      act(() => vi.advanceTimersByTime(100));
      const layer = screen.getByTestId('gantt-hit-layer');
      expect(layer.querySelector('[data-op-id^="BW."]')).toBeNull();
      rerender(<Gantt sim={b.sim} plan={b.plan} width={1200} render="canvas" />);
      // The timeline shows the new simulation in this commit; the invisible hit layer follows.
      expect(root().dataset.makespanMs).toBe(String(b.sim.makespanMs));
      expect(layer.querySelector('[data-op-id^="BW."]')).toBeNull();
      act(() => vi.advanceTimersByTime(100));
      expect(layer.querySelectorAll('[data-op-id]').length).toBe(b.sim.timeline!.length);
      expect(layer.querySelector('[data-op-id^="BW."]')).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('rebuilds the canvas hit layer once a wheel pan has settled, not on every step', () => {
    vi.useFakeTimers();
    try {
      const { sim, plan } = runExample('1f1b-p4-m8');
      render(<Gantt sim={sim} plan={plan} width={1200} render="canvas" />);
      act(() => root().stagecraftGantt!.zoomTo(0, 4));
      const layer = screen.getByTestId('gantt-hit-layer');
      const first = layer.querySelector('[data-op-id]');
      for (let i = 0; i < 5; i++) fireEvent.wheel(root(), { deltaX: 200, deltaY: 0 });
      expect(root().stagecraftGantt!.window().t0).toBeGreaterThan(0);
      // Hidden and untouched while the wheel turns.
      expect(layer.style.display).toBe('none');
      expect(layer.querySelector('[data-op-id]')).toBe(first);
      act(() => vi.advanceTimersByTime(500));
      expect(layer.style.display).toBe('');
      expect(layer.querySelector('[data-op-id]')).not.toBe(first);
      expect(layer.dataset.visibleOps).toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('reveals an op far outside the window, centred', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} render="canvas" />);
    act(() => root().stagecraftGantt!.zoomTo(0, 4));
    expect(screen.getByTestId('gantt-hit-layer').querySelector('[data-op-id="B.b0.mb7"]')).toBeNull();
    act(() => {
      expect(root().stagecraftGantt!.reveal('B.b0.mb7')).toBe(true);
    });
    const w = root().stagecraftGantt!.window();
    const op = sim.timeline!.find((e) => e.id === 'B.b0.mb7')!;
    expect(w.t0).toBeLessThanOrEqual(op.startMs);
    expect(w.t1).toBeGreaterThanOrEqual(op.endMs);
    expect(screen.getByTestId('gantt-hit-layer').querySelector('[data-op-id="B.b0.mb7"]')).not.toBeNull();
    expect(root().stagecraftGantt!.reveal('no-such-op')).toBe(false);
  });

  it('zooms and pans from the keyboard', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    render(<Gantt sim={sim} plan={plan} width={1200} />);
    const handle = root().stagecraftGantt!;
    fireEvent.keyDown(root(), { key: '+' });
    const zoomed = handle.window();
    // A third of the step less is shown (give or take the plot's right margin).
    expect(zoomed.t1 - zoomed.t0).toBeGreaterThan(33 / 1.5 - 0.01);
    expect(zoomed.t1 - zoomed.t0).toBeLessThan(33 / 1.5 + 0.5);
    fireEvent.keyDown(root(), { key: 'ArrowRight' });
    expect(handle.window().t0).toBeGreaterThan(zoomed.t0);
    fireEvent.keyDown(root(), { key: '0' });
    expect(handle.window()).toEqual({ t0: 0, t1: 33 });
  });

  it('counts zoom and pan gestures for the frame benchmark when asked to', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    window.__stagecraftGanttFrames = undefined;
    render(<Gantt sim={sim} plan={plan} width={1200} measureFrames />);
    act(() => root().stagecraftGantt!.zoomTo(2, 8));
    const collected = (): { gestures: number } | undefined => window.__stagecraftGanttFrames;
    expect(collected()?.gestures).toBe(1);
    window.__stagecraftGanttFrames = undefined;
  });
});
