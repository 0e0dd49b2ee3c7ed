// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { initStore, useStore } from '../store/index.ts';
import { MeshLayoutForm } from './MeshLayoutForm.tsx';

afterEach(cleanup);

describe('<MeshLayoutForm>', () => {
  test('a shape that needs more devices than the cluster has is named, and cannot be applied', () => {
    initStore(example('1f1b-p4-m8'));
    render(<MeshLayoutForm />);
    expect((screen.getByLabelText('stages') as HTMLInputElement).value).toBe('4');
    fireEvent.change(screen.getByLabelText('sizes'), { target: { value: '2, 2' } });
    expect(screen.getByRole('alert').textContent).toBe(
      'the mesh needs 4 stages × 2 × 2 = 16 devices; the cluster has 4',
    );
    expect((screen.getByTestId('mesh-apply') as HTMLButtonElement).disabled).toBe(true);
  });

  test('Apply writes the stages as meshes in the schedule, and the form then reads them back', () => {
    const base = example('1f1b-p4-m8');
    initStore({ ...base, cluster: { kind: 'ideal', devices: 16 } });
    render(<MeshLayoutForm />);
    // With no ranks and no groups, the schedule runs one stage per device until laid out.
    expect((screen.getByLabelText('stages') as HTMLInputElement).value).toBe('16');
    fireEvent.change(screen.getByLabelText('stages'), { target: { value: '4' } });
    fireEvent.change(screen.getByLabelText('axes'), { target: { value: 'dp, tp' } });
    fireEvent.change(screen.getByLabelText('sizes'), { target: { value: '2, 2' } });
    fireEvent.change(screen.getByLabelText('layout'), { target: { value: 'first-axis-across-stages' } });
    expect(screen.getByTestId('mesh-summary').textContent).toBe('4 stages × 2 × 2 (dp × tp) = 16 devices');
    fireEvent.click(screen.getByTestId('mesh-apply'));
    const schedule = useStore.getState().design.directives[0]!;
    expect(schedule).toMatchObject({
      op: 'schedule',
      groups: [0, 1, 2, 3].map((s) => ({ axes: ['dp', 'tp'], shape: [2, 2], start: 2 * s, strides: [8, 1] })),
    });
    expect((screen.getByLabelText('layout') as HTMLSelectElement).value).toBe('first-axis-across-stages');
    expect((screen.getByLabelText('sizes') as HTMLInputElement).value).toBe('2, 2');
  });
});
