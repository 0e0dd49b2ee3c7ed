// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { initStore, useStore } from '../store/index.ts';
import { Inspector } from './Inspector.tsx';

afterEach(cleanup);

function type(testid: string, text: string, key?: string) {
  const input = screen.getByTestId(testid);
  fireEvent.change(input, { target: { value: text } });
  if (key) fireEvent.keyDown(input, { key });
}

describe('<Inspector> fields', () => {
  beforeEach(() => {
    initStore(example('1f1b-p4-m8'));
    useStore.getState().select(0);
    render(<Inspector />);
  });

  test('microbatches 0 and -3 are refused at the field with the message, and not applied', () => {
    const design = useStore.getState().design;
    type('field-microbatches', '0', 'Enter');
    expect(screen.getByTestId('field-microbatches-error').textContent).toBe('must be ≥ 1');
    type('field-microbatches', '-3', 'Enter');
    expect(screen.getByTestId('field-microbatches-error').textContent).toBe('must be ≥ 1');
    expect(useStore.getState().design).toBe(design);
    expect(useStore.getState().revision).toBe(0);
  });

  test('a field error clears as soon as the text is valid, and the value applies on Enter', () => {
    type('field-microbatches', '0', 'Enter');
    type('field-microbatches', '12');
    expect(screen.queryByTestId('field-microbatches-error')).toBeNull();
    type('field-microbatches', '12', 'Enter');
    expect(useStore.getState().design.directives[0]).toMatchObject({ microbatches: 12 });
  });

  test('a field error clears when the text goes back to the value the design holds', () => {
    type('field-microbatches', 'many', 'Enter');
    expect(screen.getByTestId('field-microbatches-error').textContent).toBe('a number');
    type('field-microbatches', '8', 'Enter');
    expect(screen.queryByTestId('field-microbatches-error')).toBeNull();
  });

  test('choosing another builder for the schedule switches it as the palette does', () => {
    fireEvent.change(screen.getByTestId('field-builder'), { target: { value: 'dualpipev' } });
    const s = useStore.getState();
    expect(s.design.name).toBe('DualPipeV, p=4, m=8');
    expect(s.notice?.text).toContain('the model is cut into 8 stages');
  });
});

describe('<Inspector> tensor parallelism options', () => {
  beforeEach(() => {
    initStore(example('llama3-70b-tp8-pp4-dp2'));
    useStore.getState().select(1);
    render(<Inspector />);
  });

  test('sequence parallelism and scatter-gather sends are set on the shard_tensor and cleared again', () => {
    fireEvent.click(screen.getByTestId('field-sequence_parallel'));
    fireEvent.click(screen.getByTestId('field-scatter_gather_sends'));
    expect(useStore.getState().design.directives[1]).toMatchObject({
      op: 'shard_tensor',
      sequence_parallel: true,
      scatter_gather_sends: true,
    });
    fireEvent.click(screen.getByTestId('field-sequence_parallel'));
    expect(useStore.getState().design.directives[1]).not.toHaveProperty('sequence_parallel');
  });
});
