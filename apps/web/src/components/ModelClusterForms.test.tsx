// @vitest-environment happy-dom
import { TRANSFORMER_PRESETS } from '@stagecraft/ir';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { initStore } from '../store/index.ts';
import { ModelForm } from './ModelClusterForms.tsx';

afterEach(cleanup);

describe('<ModelForm> of a transformer preset', () => {
  test('fields the design leaves to the preset show the preset value as their placeholder', () => {
    initStore(example('llama3-8b-dgx-h100-pp4-1f1b'));
    render(<ModelForm />);
    const preset = TRANSFORMER_PRESETS['llama3-8b']!;
    const layers = screen.getByTestId('model-layers') as HTMLInputElement;
    expect(layers.value).toBe('');
    expect(layers.placeholder).toBe(String(preset.layers));
    expect((screen.getByTestId('model-hidden') as HTMLInputElement).placeholder).toBe('4096');
    // A field the design sets shows its own value.
    expect((screen.getByTestId('model-microbatchSize') as HTMLInputElement).value).toBe('1');
  });
});
