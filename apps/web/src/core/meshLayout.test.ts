import { meshDevices, parseDesign } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import {
  currentMeshLayout,
  meshGroups,
  meshLayoutProblems,
  scheduleStages,
  withMeshLayout,
} from './meshLayout.ts';
import { modelPipelineStages, stageCountProblem } from './modelStages.ts';

const devicesOf = (layout: Parameters<typeof meshGroups>[0]) =>
  meshGroups(layout).map((g) => {
    const r = meshDevices(g);
    if (!r.ok) throw new Error(r.message);
    return r.devices;
  });

describe('laying the pipeline stages out on a mesh', () => {
  test('with the first axis across the stages, it writes the Llama-3-70B recipe layout exactly', () => {
    const llama = example('llama3-70b-tp8-pp4-dp2');
    const layout = {
      stages: 4,
      axes: ['dp', 'tp'],
      sizes: [2, 8],
      order: 'first-axis-across-stages',
    } as const;
    const schedule = llama.directives[0]!;
    if (schedule.op !== 'schedule') throw new Error('the example starts with its schedule');
    expect(meshGroups(layout)).toEqual(schedule.groups);
    expect(currentMeshLayout(llama)).toEqual(layout);
  });

  test('with each stage a block, stage s gets the next dp × tp devices, row-major', () => {
    const groups = devicesOf({ stages: 2, axes: ['dp', 'tp'], sizes: [2, 2], order: 'stage-blocks' });
    expect(groups).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
  });

  test('every device is used at most once, in either order, for any shape that fits', () => {
    for (const order of ['stage-blocks', 'first-axis-across-stages'] as const)
      for (const sizes of [[4], [2, 4], [2, 2, 2], [3, 1, 2]]) {
        const groups = devicesOf({ stages: 3, axes: sizes.map((_, k) => `a${k}`), sizes, order });
        const all = groups.flat();
        expect(new Set(all).size).toBe(all.length);
        expect(Math.max(...all)).toBe(3 * sizes.reduce((a, b) => a * b, 1) - 1);
      }
  });

  test('a mesh larger than the cluster is refused saying how many devices it needs and has', () => {
    const cluster = { preset: 'dgx-h100', nodes: 4 };
    expect(
      meshLayoutProblems({ stages: 4, axes: ['dp', 'tp'], sizes: [2, 8], order: 'stage-blocks' }, cluster),
    ).toEqual(['the mesh needs 4 stages × 2 × 8 = 64 devices; the cluster has 32']);
  });

  test('sizes that do not match the axes, and bad axis names, are refused naming the field', () => {
    const cluster = { kind: 'ideal' as const, devices: 64 };
    expect(
      meshLayoutProblems({ stages: 4, axes: ['dp', 'tp'], sizes: [2], order: 'stage-blocks' }, cluster),
    ).toEqual(['sizes: 1 sizes for 2 axes (dp, tp)']);
    expect(
      meshLayoutProblems({ stages: 4, axes: ['DP'], sizes: [2], order: 'stage-blocks' }, cluster),
    ).toEqual(['axes: axis names are lower case, e.g. "dp", "tp"']);
    expect(
      meshLayoutProblems({ stages: 4, axes: ['dp', 'dp'], sizes: [2, 2], order: 'stage-blocks' }, cluster),
    ).toEqual(['axes: an axis is named twice']);
  });

  test('the written design is an @3 design that compiles, each stage on its mesh', () => {
    const base = example('1f1b-p4-m8');
    const design = { ...base, cluster: { kind: 'ideal' as const, devices: 16 } };
    expect(scheduleStages(base)).toBe(4);
    const r = withMeshLayout(design, { stages: 4, axes: ['dp', 'tp'], sizes: [2, 2], order: 'stage-blocks' });
    if (!r.ok) throw new Error(r.error);
    expect(parseDesign(JSON.parse(JSON.stringify(r.design))).ok).toBe(true);
    const out = computed(r.design);
    expect(out.plan.meshes).toEqual(Array.from({ length: 4 }, () => ({ axes: ['dp', 'tp'], shape: [2, 2] })));
    expect(out.plan.groups[3]).toEqual([12, 13, 14, 15]);
  });

  test('without a schedule there are no stages to lay out, and the refusal says so', () => {
    const base = example('1f1b-p4-m8');
    const r = withMeshLayout(
      { ...base, directives: [] },
      { stages: 4, axes: ['dp'], sizes: [2], order: 'stage-blocks' },
    );
    expect(r).toEqual({ ok: false, error: "a mesh lays out the schedule's stages: add a schedule first" });
  });

  test('8 stages on a 4-stage model are refused before they are applied, saying why; 2 and 4 go ahead', () => {
    const base = example('1f1b-p4-m8');
    const design = { ...base, cluster: { kind: 'ideal' as const, devices: 16 } };
    expect(modelPipelineStages(design.model)).toBe(4);
    expect(stageCountProblem(design, 8, 4)).toBe(
      'stages: the model has 4 PP stages, which do not divide into 8 stages (1f1b)',
    );
    const r = withMeshLayout(design, { stages: 8, axes: ['dp'], sizes: [2], order: 'stage-blocks' });
    expect(r).toEqual({
      ok: false,
      error: 'stages: the model has 4 PP stages, which do not divide into 8 stages (1f1b)',
    });
    for (const stages of [2, 4])
      expect(withMeshLayout(design, { stages, axes: ['dp'], sizes: [2], order: 'stage-blocks' }).ok).toBe(
        true,
      );
  });

  test('the stage count is checked against ranks × chunks, and a transformer’s stages are counted from its layout', () => {
    const llama = example('llama3.1-405b-tp8-pp16-dp64');
    expect(modelPipelineStages(llama.model)).toBe(128);
    // Interleaved 1F1B with eight chunks: 16 ranks are 128 virtual stages; 32 ranks would be 256.
    expect(stageCountProblem(llama, 16, 128)).toBeNull();
    expect(stageCountProblem(llama, 32, 128)).toBe(
      'stages: the model has 128 PP stages, which do not divide into 32 stages × 8 chunks = 256 virtual stages (interleaved-1f1b)',
    );
  });
});
