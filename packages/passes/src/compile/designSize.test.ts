import { type Design, now, scheduleOpEstimate, scheduleRanks } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { exampleDesigns } from '../../../../test/repoFiles.ts';
import { lowerModel } from '../model/lowerModel.ts';
import { designSizeIssue, estimatedOps } from './designSize.ts';
import { DEFAULT_MAX_OPS } from './pipeline.ts';

const examples = await exampleDesigns();

function example(name: string): Design {
  const found = examples.find((e) => e.file === `${name}.json`);
  if (!found) throw new Error(`no example ${name}`);
  return found.design;
}

describe('estimatedOps', () => {
  test.each(['deepseek-v3-pp16-ep128-dualpipe', 'qwen3-30b-a3b-pp4-ep8-1f1b', 'llama3-8b-dgx-h100-pp4-1f1b'])(
    '%s: a schedule counts the blocks the compiler lowers the model to, on its ranks',
    (name) => {
      const design = example(name);
      const blocks = lowerModel(design.model).length;
      let expected = 0;
      for (const d of design.directives)
        expected +=
          d.op === 'schedule'
            ? scheduleOpEstimate(d.microbatches, blocks, scheduleRanks(d, design.cluster))
            : 1;
      expect(estimatedOps(design)).toBe(expected);
    },
  );

  test('a transformer of a trillion layers is sized without being lowered', () => {
    const design = example('llama3-8b-dgx-h100-pp4-1f1b');
    const huge = { ...design, model: { ...design.model, layers: 1e12 } } as Design;
    const t0 = now();
    expect(estimatedOps(huge)).toBeGreaterThan(1e12);
    expect(now() - t0).toBeLessThan(100);
  });
});

describe('designSizeIssue', () => {
  test.each(examples.map((e) => [e.file, e.design] as const))(
    '%s: within the default op limit',
    (_file, design) => {
      expect(designSizeIssue(design)).toBeUndefined();
    },
  );

  const base = example('1f1b-p4-m8');
  const llama = example('llama3-8b-dgx-h100-pp4-1f1b');
  test.each([
    [
      'synthetic stages',
      { ...base, model: { ...base.model, stages: 1e8 } },
      'design.model.stages',
      /^100,000,000 blocks make at least 200,000,000 ops, over the limit of 2,000,000$/,
    ],
    [
      'transformer layers',
      { ...llama, model: { ...llama.model, layers: 1e7 } },
      'design.model.layers',
      /^[\d,]+ blocks make at least [\d,]+ ops, over the limit of 2,000,000$/,
    ],
    [
      'ideal devices',
      { ...base, cluster: { kind: 'ideal', devices: 1e9 } },
      'design.cluster.devices',
      /^1,000,000,000 devices are more than the op limit of 2,000,000 allows$/,
    ],
    [
      'preset nodes',
      { ...llama, cluster: { ...llama.cluster, nodes: 1e8 } },
      'design.cluster.nodes',
      /^800,000,000 devices are more than the op limit of 2,000,000 allows$/,
    ],
  ])('%s: refused at the field that sets them', (_name, design, path, message) => {
    const issue = designSizeIssue(design as Design);
    expect(issue?.path).toBe(path);
    expect(issue?.message).toMatch(message);
  });

  test('the limit is the one given', () => {
    expect(designSizeIssue(base, 7)?.path).toBe('design.model.stages');
    expect(designSizeIssue(base, DEFAULT_MAX_OPS)).toBeUndefined();
  });
});
