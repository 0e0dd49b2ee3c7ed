// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { initStore, useStore } from '../store/index.ts';
import { Metrics } from './Metrics.tsx';
import { capacityOf } from './mounts.tsx';

afterEach(cleanup);

function show(name: string) {
  const design = example(name);
  initStore(design);
  const { graph: _graph, ...result } = computed(design);
  useStore.setState({ result, status: 'ok' } as never);
  render(<Metrics />);
}

describe('<Metrics> of a real-model design', () => {
  test('Llama-3-70B ZeRO-1 shows its MFU and flags the peak memory out of memory', () => {
    show('llama3-70b-pp4-dp8-zero1');
    const mfu = Number(screen.getByTestId('metric-mfu').getAttribute('data-value'));
    // A fraction, not a percentage: 0.49 with GEMMs at their measured efficiency and the elementwise
    // kernels' bytes charged (docs/cost-model.md, "Predicted cost of the real-model examples").
    expect(mfu).toBeGreaterThan(0.3);
    expect(mfu).toBeLessThan(0.6);
    expect(screen.getByText('peak memory · OOM')).toBeTruthy();
  });

  test('exposed communication is per GPU, below the step time', () => {
    show('qwen3-30b-a3b-pp4-ep8-1f1b');
    const exposed = Number(screen.getByTestId('metric-exposed-comm').getAttribute('data-value'));
    const step = Number(screen.getByTestId('metric-makespan').getAttribute('data-value'));
    expect(exposed).toBeGreaterThan(0);
    expect(exposed).toBeLessThan(step);
  });
});

describe('<Metrics> steady state', () => {
  test('ZB-H2 shows its 24 ms steady step beside the 27 ms step, with what it means', () => {
    show('zb-h2-p4-m8');
    expect(screen.getByTestId('metric-makespan').getAttribute('data-value')).toBe('27');
    const steady = screen.getByTestId('metric-steady-step');
    expect(Number(steady.getAttribute('data-value'))).toBeCloseTo(24, 9);
    expect(steady.parentElement!.getAttribute('title')).toMatch(/over 3 steps in a row/);
  });
});

describe('the timeline memory capacity', () => {
  test('a cluster preset gives its GPU memory (80 GiB for the DGX H100)', () => {
    expect(capacityOf({ preset: 'dgx-h100', nodes: 1 })?.(0)).toBe(80 * 1024 ** 3);
  });

  test('the ideal cluster has none', () => {
    expect(capacityOf(example('1f1b-p4-m8').cluster)).toBeUndefined();
  });
});
