import type { CollectiveNode, ComputeNode, Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { after, byId, compiled, ofKind, onTwoStages, preds, succs } from '../../test/parallelDesigns.ts';

const tp = onTwoStages({ op: 'shard_tensor', filter: { PP: 0, TP: '*' }, devices: [0, 1], stream: 'tp' });

describe('shard_tensor (tensor parallelism)', () => {
  it('all-reduces the block’s forward output and its input gradient', () => {
    const dag = after(tp, 'shard-tensor');
    const fwd = byId(dag, 'ALL_REDUCE.tp.F.b0.mb0') as CollectiveNode;
    expect(fwd).toMatchObject({ stream: 'tp', devices: [0, 1], bytes: 10 });
    expect(preds(dag, fwd.id)).toEqual(['F.b0.mb0']);
    expect(succs(dag, fwd.id)).toEqual(['F.b1.mb0']);
    // B.b0 is the first block's backward: its input gradient has no consumer, so no all-reduce.
    expect(
      ofKind(dag, 'ALL_REDUCE')
        .map((n) => n.id)
        .sort(),
    ).toEqual(['ALL_REDUCE.tp.F.b0.mb0', 'ALL_REDUCE.tp.F.b0.mb1']);
  });

  it('all-reduces an inner block’s input gradient on its way to the block before it', () => {
    const dag = after(
      onTwoStages({ op: 'shard_tensor', filter: { PP: 1, TP: '*' }, devices: [2, 3] }),
      'shard-tensor',
    );
    expect(preds(dag, 'ALL_REDUCE.tp.B.b2.mb0')).toEqual(['B.b2.mb0']);
    expect(succs(dag, 'ALL_REDUCE.tp.B.b2.mb0')).toEqual(['SEND.B.b2.mb0.d0']);
    expect(succs(dag, 'ALL_REDUCE.tp.F.b2.mb0')).toEqual(['F.b3.mb0']);
  });

  it('gives each member 1/n of the block’s time, parameters and stash', () => {
    const r = compiled(tp);
    const f = byId(r.dag, 'F.b0.mb0') as ComputeNode;
    expect(f.allocBytes).toBe(50);
    expect(r.dag.blocks[0]).toMatchObject({ paramBytes: 400, activationBytes: 50 });
    expect(r.dag.blocks[0]!.ms).toMatchObject({ F: 0.5, BI: 0.5, BW: 0.5 });
    const ins = r.plan.devices[0]!.streams[0]!.instructions.find((i) => i.id === 'F.b0.mb0');
    expect(ins).toMatchObject({ ms: 0.5 });
  });

  it('divides a column-parallel GEMM’s output width and a row-parallel GEMM’s reduction by n', () => {
    const mlpF = (n: number) => {
      const devices = Array.from({ length: n }, (_, i) => i);
      const f = compiled({
        format: 'stagecraft/design@2',
        name: 'llama tp',
        model: { kind: 'transformer', preset: 'llama3-8b', layers: 1, seqLen: 1024, annotate: { PP: 1 } },
        cluster: { preset: 'dgx-h100', nodes: 1 },
        directives: [
          { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 1 },
          { op: 'place', filter: {}, devices },
          ...(n > 1
            ? [{ op: 'shard_tensor', filter: { TP: '*' }, devices } as Design['directives'][number]]
            : []),
        ],
      })
        .plan.devices[0]!.streams.flatMap((s) => s.instructions)
        .find((i) => i.op === 'F' && 'kernels' in i && i.kernels?.gemms[0]?.n === (2 * 14336) / n);
      if (f?.op !== 'F') throw new Error('no MLP forward');
      return f;
    };
    // SwiGLU: gate and up (4096 → 2 × 14336) column-parallel, down (14336 → 4096) row-parallel.
    expect(mlpF(1).kernels!.gemms).toEqual([
      { m: 1024, k: 4096, n: 2 * 14336 },
      { m: 1024, k: 14336, n: 4096 },
    ]);
    const tp8 = mlpF(8);
    expect(tp8.kernels!.gemms).toEqual([
      { m: 1024, k: 4096, n: (2 * 14336) / 8 },
      { m: 1024, k: 14336 / 8, n: 4096 },
    ]);
    expect(tp8.flops).toBeCloseTo(mlpF(1).flops! / 8, 0);
  });
});

describe('shard_tensor beside expert parallelism', () => {
  // A small MoE transformer on one node: attention tensor parallel over tp, experts over ep.
  const design: Design = {
    format: 'stagecraft/design@3',
    name: 'tp beside ep',
    model: {
      kind: 'transformer',
      layers: 2,
      hidden: 256,
      ffnHidden: 512,
      heads: 4,
      kvHeads: 4,
      vocab: 1024,
      seqLen: 128,
      moe: { experts: 4, topK: 2, expertFfnHidden: 256, sharedExperts: 0, denseLayers: 0 },
    },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [
      {
        op: 'schedule',
        builder: '1f1b',
        ranks: 1,
        microbatches: 1,
        groups: [{ axes: ['ep', 'tp'], shape: [2, 2], start: 0 }],
      },
      { op: 'shard_tensor', filter: { TP: '*' }, axis: 'tp', stream: 'tp' },
      { op: 'shard', filter: { EP: '*' }, axis: 'ep', stream: 'ep' },
    ],
  } as Design;

  it('sums a split block’s output or input gradient over tp before the all-to-all exchanges it', () => {
    const dag = after(design, 'shard-tensor');
    const nodeOf = new Map(dag.nodes.map((n) => [n.id, n]));
    const exchanges = ofKind(dag, 'ALL_TO_ALL');
    expect(exchanges.length).toBeGreaterThan(0);
    const fed = exchanges.flatMap((a) => preds(dag, a.id).map((p) => [a.id, p] as const));
    // Every all-to-all fed by a split block's op waits for that op's all-reduce, in both passes.
    const direct = fed.filter(([, p]) => {
      const n = nodeOf.get(p);
      const compute = n?.op === 'F' || n?.op === 'B' || n?.op === 'BI';
      return compute && dag.blocks[(n as ComputeNode).block]?.tags.TP !== undefined;
    });
    expect(direct).toEqual([]);
    const reduced = fed.filter(([, p]) => p.startsWith('ALL_REDUCE.tp.'));
    expect(reduced.map(([a]) => a.split('.')[1])).toEqual(expect.arrayContaining(['combine-grad']));
  });
});
