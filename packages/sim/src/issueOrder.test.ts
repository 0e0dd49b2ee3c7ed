import { DESIGN_FORMAT, type Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../test/repoFiles.ts';
import { simulate } from './simulate.ts';

// Closed forms (Narayanan et al., SC'21, "Efficient Large-Scale Language Model Training on GPU
// Clusters Using Megatron-LM", §2.2; docs/cost-model.md): 1F1B (m + p − 1)·T, interleaved with
// v chunks m·T + (p − 1)·T/v, T = F + B of one rank's whole share of the model.

function stepMs(design: Design): number {
  const c = compile(design, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const s = simulate(c.plan);
  if (!s.ok) throw new Error(s.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return s.sim.makespanMs;
}

/** The Qwen3-30B-A3B PP4 × EP8 example with `m` microbatches. */
let examples: { file: string; design: Design }[] = [];
beforeAll(async () => {
  examples = await exampleDesigns();
});

function qwen(schedule: '1f1b' | 'interleaved-1f1b', m: number): Design {
  const file = `qwen3-30b-a3b-pp4-ep8-${schedule}.json`;
  const design = examples.find((e) => e.file.endsWith(file))?.design;
  if (!design) throw new Error(`examples/${file} is missing`);
  const [first, ...rest] = design.directives;
  if (first?.op !== 'schedule') throw new Error('the example starts with its schedule');
  return { ...design, directives: [{ ...first, microbatches: m }, ...rest] };
}

/**
 * An MoE pipeline on the ideal cluster: p = 4 groups of 2 devices, each stage an attention block
 * and an expert block sharded over its group (all-to-alls on stream `ep`), one rank's share
 * costing F = 1, B = 2 (T = 3).
 */
function idealMoe(builder: '1f1b' | 'interleaved-1f1b', m: number): Design {
  const v = builder === '1f1b' ? 1 : 2;
  const blocks = [];
  for (let s = 0; s < 4 * v; s++) {
    const c = 0.5 / v;
    blocks.push({ tags: { PP: s }, F: c, BI: c, BW: c });
    blocks.push({ tags: { PP: s, EP: 0 }, F: c, BI: c, BW: c, experts: 4, topK: 1 });
  }
  const groups = [0, 1, 2, 3].map((r) => [2 * r, 2 * r + 1]);
  return {
    format: DESIGN_FORMAT,
    name: `MoE PP4 EP2 ${builder}`,
    model: { kind: 'synthetic', blocks },
    cluster: { kind: 'ideal', devices: 8 },
    directives: [
      { op: 'schedule', builder, ranks: 4, microbatches: m, groups, ...(v > 1 ? { chunks: v } : {}) },
      ...groups.map((devices) => ({
        op: 'shard' as const,
        filter: { EP: '*' as const },
        devices,
        stream: 'ep',
      })),
    ],
  };
}

describe('communication lanes are issued in the order their consumers run on the compute stream', () => {
  for (const m of [4, 8, 16, 32, 64]) {
    it(`interleaved 1F1B on Qwen3-30B-A3B PP4 × EP8 keeps its closed form against 1F1B (m = ${m})`, () => {
      // T measured as 1F1B's step over its m + 3 slots: the all-to-alls each schedule waits for
      // are in T alike, so the ratio is the bubble the schedules differ by.
      const t = stepMs(qwen('1f1b', m)) / (m + 3);
      const ratio = stepMs(qwen('interleaved-1f1b', m)) / ((m + 1.5) * t);
      expect(ratio).toBeGreaterThanOrEqual(0.95);
      expect(ratio).toBeLessThanOrEqual(1.05);
    });
  }

  it('ranks interleaved 1F1B ahead of 1F1B on the Qwen3-30B-A3B PP4 × EP8 example', () => {
    expect(stepMs(qwen('interleaved-1f1b', 16))).toBeLessThan(stepMs(qwen('1f1b', 16)));
  });

  it('keeps both closed forms exact with expert parallelism on the ideal cluster', () => {
    for (const m of [4, 16]) {
      expect(stepMs(idealMoe('1f1b', m))).toBeCloseTo((m + 3) * 3, 9);
      expect(stepMs(idealMoe('interleaved-1f1b', m))).toBeCloseTo((m + 1.5) * 3, 9);
    }
  });
});
