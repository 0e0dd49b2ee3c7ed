import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { computeDesign } from './computeDesign.ts';
import { EXAMPLE_FACTS, exampleGroup, memoryFact } from './exampleFacts.ts';

const files = readdirSync(new URL('../../../../examples/', import.meta.url))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();

describe('what the gallery says of each example', () => {
  it('has a memory fact for every example and for no other', () => {
    expect(Object.keys(EXAMPLE_FACTS).sort()).toEqual(files);
  });

  // The examples of up to 8 devices compile in well under a second each; the larger ones (up to
  // 8,192 GPUs) take seconds each and are checked by regenerating the file (a minute and a half).
  const quick = files.filter((f) => (EXAMPLE_FACTS[f]?.devices ?? 0) <= 8);
  it.each(quick)('%s: the fact is what a compile and simulation of it says now', (file) => {
    const { result } = computeDesign(example(file), new Set(), { layout: false });
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
    expect(memoryFact(result.simulation)).toEqual(EXAMPLE_FACTS[file]);
  });

  it('flags the examples that do not fit, with their count of devices over memory', () => {
    expect(EXAMPLE_FACTS['llama3-70b-pp4-dp8-zero1']!.oomDevices).toBe(32);
    expect(EXAMPLE_FACTS['llama3-70b-pp4-dp8-zero3']!.oomDevices).toBe(0);
  });

  it('fits the flagship examples in their GPUs, with the memory savings their published runs used', () => {
    for (const flagship of [
      'deepseek-v3-pp16-ep128-dualpipe',
      'deepseek-v3-pp16-dp2-ep64-dualpipe',
      'llama3.1-405b-tp8-pp16-dp64',
    ])
      expect(EXAMPLE_FACTS[flagship], flagship).toMatchObject({ oomDevices: 0 });
  });

  it('sorts examples into schedules, real models and meshes', () => {
    expect(exampleGroup(example('1f1b-p4-m8'))).toBe('schedules');
    expect(exampleGroup(example('qwen3-30b-a3b-pp4-ep8-dualpipev'))).toBe('real models');
    expect(exampleGroup(example('llama3.1-405b-tp8-pp16-dp64'))).toBe('meshes');
  });
});
