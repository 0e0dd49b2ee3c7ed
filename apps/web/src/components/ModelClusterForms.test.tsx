// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { example } from '../core/testDesigns.ts';
import { initStore, useStore } from '../store/index.ts';
import { ClusterForm } from './ModelClusterForms.tsx';

afterEach(cleanup);

const edit = (testid: string, text: string) => {
  const input = screen.getByTestId(testid);
  fireEvent.change(input, { target: { value: text } });
  fireEvent.blur(input);
};

describe('<ClusterForm>', () => {
  beforeEach(() => initStore(example('1f1b-p4-m8')));

  test('a custom cluster edits its node count and each GPU and link field in place', () => {
    render(<ClusterForm />);
    fireEvent.change(screen.getByTestId('cluster-kind'), { target: { value: 'custom' } });
    edit('cluster-nodes', '2');
    edit('cluster-gpus', '4');
    edit('cluster-tflops', '312');
    edit('cluster-memory', '40');
    edit('cluster-intra', '300');
    edit('cluster-inter', '25');
    // Each field replaces only its own value: the GPU's name and the links' latencies stay.
    const cluster = useStore.getState().design.cluster;
    expect(cluster).toMatchObject({ kind: 'custom', nodes: 2, gpusPerNode: 4 });
    expect(cluster).toHaveProperty(
      'gpu',
      expect.objectContaining({ name: 'H100', peakTflops: 312, memoryGiB: 40 }),
    );
    expect(cluster).toHaveProperty('intraNode', { bandwidthGBps: 300, latencyUs: 3 });
    expect(cluster).toHaveProperty('interNode', { bandwidthGBps: 25, latencyUs: 10 });
  });

  test('a preset cluster edits its preset and node count', () => {
    render(<ClusterForm />);
    fireEvent.change(screen.getByTestId('cluster-kind'), { target: { value: 'preset' } });
    edit('cluster-nodes', '4');
    edit('cluster-preset', 'dgx-a100');
    expect(useStore.getState().design.cluster).toEqual({ preset: 'dgx-a100', nodes: 4 });
  });

  test('a field that does not parse keeps the cluster as it was', () => {
    render(<ClusterForm />);
    fireEvent.change(screen.getByTestId('cluster-kind'), { target: { value: 'custom' } });
    edit('cluster-gpus', '0');
    expect(useStore.getState().design.cluster).toMatchObject({ gpusPerNode: 8 });
  });
});
