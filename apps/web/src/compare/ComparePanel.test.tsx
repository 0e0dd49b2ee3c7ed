// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleDesign, run, runExample } from '../../test/simulatedExamples.ts';
import { ComparePanel } from './index.ts';

afterEach(cleanup);

const variant = (id: string, name: Parameters<typeof runExample>[0]) => {
  const { sim, plan } = runExample(name);
  return { id, name, sim, plan };
};

describe('<ComparePanel>', () => {
  it('shows a timeline per variant on one time axis and the metrics with highlighted differences', () => {
    const v = [variant('a', '1f1b-p4-m8'), variant('b', 'zb-h1-p4-m8')];
    render(<ComparePanel variants={v} width={1000} />);
    const panel = screen.getByTestId('compare');
    expect(within(panel).getAllByTestId('gantt').length).toBe(2);
    const step = panel.querySelector('tr[data-metric="step"]')!;
    const base = step.querySelector('td[data-variant="a"]')!;
    const zb = step.querySelector('td[data-variant="b"]')!;
    expect(base.getAttribute('data-verdict')).toBe('baseline');
    expect(base.textContent).toBe('33 ms');
    expect(zb.getAttribute('data-verdict')).toBe('better');
    expect(zb.querySelector('[data-delta]')!.textContent).toMatch(/^−/);
    const bubbleIdeal = panel.querySelector('tr[data-metric="bubble-ideal"] td[data-variant="a"]')!;
    expect(bubbleIdeal.textContent).toBe('37.5%');
    // Both timelines map the same time to the same pixel: the longer step sets the axis.
    const [g1, g2] = within(panel).getAllByTestId('gantt');
    const x1 = g1!.stagecraftGantt!.locate('F.b0.mb0')!;
    const x2 = g2!.stagecraftGantt!.locate('F.b0.mb0')!;
    expect(x1.x).toBeCloseTo(x2.x, 9);
    expect(x1.width).toBeCloseTo(x2.width, 9);
    // The shorter step marks where it ends on the shared axis.
    expect(g1!.querySelector('[data-step-end]')).toBeNull();
    expect(g2!.querySelector('[data-step-end]')!.getAttribute('data-step-end')).toBe(
      String(v[1]!.sim.makespanMs),
    );
  });

  it('zooms and pans all timelines together', () => {
    const v = [variant('a', '1f1b-p4-m8'), variant('b', 'gpipe-p4-m8')];
    render(<ComparePanel variants={v} width={1000} />);
    const [g1, g2] = screen.getAllByTestId('gantt');
    act(() => g1!.stagecraftGantt!.zoomTo(5, 10));
    expect(g2!.stagecraftGantt!.window().t0).toBeCloseTo(5, 6);
    expect(g2!.stagecraftGantt!.window().t1).toBeCloseTo(g1!.stagecraftGantt!.window().t1, 6);
  });

  it('compares at most four variants and says which it left out', () => {
    const v = ['a', 'b', 'c', 'd', 'e'].map((id) => variant(id, '1f1b-p4-m8'));
    render(<ComparePanel variants={v} width={800} />);
    expect(screen.getAllByTestId('gantt').length).toBe(4);
    expect(screen.getByRole('status').textContent).toContain('first 4 of 5');
  });

  it('folds the per-device memory rows of a large cluster behind the highest device and unfolds them on demand', () => {
    const base = exampleDesign('1f1b-p4-m8');
    const wide = run({
      ...base,
      model: { kind: 'synthetic', stages: 12, costs: { F: 1, BI: 1, BW: 1 } },
      cluster: { kind: 'ideal', devices: 12 },
      directives: [{ op: 'schedule', builder: '1f1b', microbatches: 12 }],
    });
    const v = [
      { id: 'a', name: 'a', sim: wide.sim, plan: wide.plan },
      { id: 'b', name: 'b', sim: wide.sim, plan: wide.plan },
    ];
    render(<ComparePanel variants={v} width={800} />);
    const panel = screen.getByTestId('compare');
    expect(panel.querySelector('tr[data-metric="peak-memory"]')).not.toBeNull();
    expect(panel.querySelector('tr[data-metric="peak-memory-0"]')).toBeNull();
    const toggle = screen.getByTestId('compare-device-rows');
    expect(toggle.textContent).toContain('12 devices');
    fireEvent.click(toggle);
    expect(panel.querySelectorAll('tr[data-metric^="peak-memory-"]').length).toBe(12);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
  });

  it('keeps the per-device rows of a small cluster in view', () => {
    render(<ComparePanel variants={[variant('a', '1f1b-p4-m8')]} width={800} />);
    expect(screen.getByTestId('compare').querySelectorAll('tr[data-metric^="peak-memory-"]').length).toBe(4);
    expect(screen.queryByTestId('compare-device-rows')).toBeNull();
  });

  it('compares against the chosen baseline, stars the best per row, and renames a variant', () => {
    const v = [variant('a', '1f1b-p4-m8'), variant('b', 'zb-h1-p4-m8'), variant('c', 'gpipe-p4-m8')];
    const chosen: string[] = [];
    const renamed: [string, string][] = [];
    const { rerender } = render(
      <ComparePanel
        variants={v}
        width={1000}
        onBaseline={(id) => chosen.push(id)}
        onRename={(id, name) => renamed.push([id, name])}
      />,
    );
    const panel = screen.getByTestId('compare');
    const step = () => panel.querySelector('tr[data-metric="step"]')!;
    expect(step().querySelector('td[data-best]')!.getAttribute('data-variant')).toBe('b');
    fireEvent.click(screen.getByTestId('baseline-b'));
    expect(chosen).toEqual(['b']);
    rerender(<ComparePanel variants={v} width={1000} baseline="b" onBaseline={() => {}} />);
    const verdicts = [...step().querySelectorAll('td')].map((td) => td.getAttribute('data-verdict'));
    expect(verdicts).toEqual(['worse', 'baseline', 'worse']);
    rerender(<ComparePanel variants={v} width={1000} onRename={(id, name) => renamed.push([id, name])} />);
    fireEvent.click(screen.getByTestId('rename-pin-c'));
    const input = screen.getByTestId('pin-name-c');
    fireEvent.change(input, { target: { value: 'GPipe, m=8' } });
    fireEvent.submit(input.closest('form')!);
    expect(renamed).toEqual([['c', 'GPipe, m=8']]);
  });

  it('draws three or more variants with compact lanes, shorter than two variants’ lanes', () => {
    const two = render(
      <ComparePanel variants={[variant('a', '1f1b-p4-m8'), variant('b', '1f1b-p4-m8')]} width={900} />,
    );
    const tall = two.getAllByTestId('gantt')[0]!.stagecraftGantt!.locate('F.b1.mb0')!;
    cleanup();
    render(
      <ComparePanel
        variants={[variant('a', '1f1b-p4-m8'), variant('b', '1f1b-p4-m8'), variant('c', '1f1b-p4-m8')]}
        width={900}
      />,
    );
    const short = screen.getAllByTestId('gantt')[0]!.stagecraftGantt!.locate('F.b1.mb0')!;
    expect(short.height).toBeLessThan(tall.height);
    expect(short.y).toBeLessThan(tall.y);
  });
});
