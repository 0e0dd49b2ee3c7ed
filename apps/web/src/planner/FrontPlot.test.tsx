// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanPoint } from '../api/planJobsApi.ts';
import { FrontPlot } from './FrontPlot.tsx';

afterEach(cleanup);

const GIB = 2 ** 30;
const point = (pp: number, stepMs: number, gib: number, fits = true, tokens?: number): PlanPoint => ({
  layout: {
    pp,
    vp: 1,
    dp: 8 / pp,
    tp: 1,
    ep: 1,
    zero: 1,
    builder: '1f1b',
    microbatches: 8,
    microbatchSize: 1,
  },
  design: {},
  stepMs,
  peakMemoryBytes: gib * GIB,
  fits,
  ...(tokens !== undefined ? { tokensPerSecPerGpu: tokens } : {}),
});
const front = [point(1, 900, 70, false, 900), point(2, 1000, 40, true, 800), point(4, 1300, 20, true, 600)];

function plot(props: Partial<Parameters<typeof FrontPlot>[0]> = {}) {
  const events: string[] = [];
  render(
    <FrontPlot
      front={front}
      best={1}
      measure="step"
      hovered={null}
      selected={null}
      onHover={(i) => events.push(`hover ${i}`)}
      onSelect={(i) => events.push(`select ${i}`)}
      {...props}
    />,
  );
  return events;
}

const cy = (el: Element) => Number(el.getAttribute('cy'));
const cx = (el: Element) => Number(el.getAttribute('cx'));

describe('<FrontPlot>', () => {
  it('plots each layout at its peak memory against its step, the fastest that fits marked, the one over the limit hollow', () => {
    plot();
    const points = screen.getAllByTestId('front-point');
    expect(points).toHaveLength(3);
    const at = (i: number) => points.find((p) => p.getAttribute('data-index') === String(i))!;
    // More memory to the right; a longer step higher up.
    expect(cx(at(0))).toBeGreaterThan(cx(at(1)));
    expect(cx(at(1))).toBeGreaterThan(cx(at(2)));
    expect(cy(at(2))).toBeLessThan(cy(at(1)));
    expect(at(1).getAttribute('class')).toContain('best');
    expect(at(0).getAttribute('class')).toContain('over');
    expect(at(2).getAttribute('aria-label')).toBe('PP4 × DP2 · 1f1b · m=8×1 · ZeRO-1: 1.30 s, 20.0 GiB');
  });

  it('on tokens/s per GPU the faster layout is the higher one', () => {
    plot({ measure: 'tokens' });
    const [, two, four] = ['0', '1', '2'].map(
      (i) => screen.getAllByTestId('front-point').find((p) => p.getAttribute('data-index') === i)!,
    );
    expect(cy(two!)).toBeLessThan(cy(four!));
  });

  it('hovering shows the layout; a click or Enter selects it', () => {
    const events = plot({ hovered: 2 });
    expect(screen.getByTestId('front-tip').textContent).toContain('PP4 × DP2 · 1f1b');
    expect(screen.getByTestId('front-tip').textContent).toContain(
      'step 1.30 s · peak 20.0 GiB · 600 tok/s/GPU',
    );
    const p0 = screen.getAllByTestId('front-point').find((p) => p.getAttribute('data-index') === '0')!;
    fireEvent.mouseEnter(p0);
    fireEvent.click(p0);
    fireEvent.keyDown(p0, { key: 'Enter' });
    fireEvent.mouseLeave(p0);
    expect(events).toEqual(['hover 0', 'select 0', 'select 0', 'hover null']);
  });
});
