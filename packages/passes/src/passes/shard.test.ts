import type { CollectiveNode, Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import {
  after,
  byId,
  compiled,
  errorsOf,
  ofKind,
  onTwoStages,
  preds,
  succs,
} from '../../test/parallelDesigns.ts';

const ep = onTwoStages({ op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1], stream: 'ep' });

describe('shard (expert parallelism)', () => {
  it('dispatches with an all-to-all on the edge entering the experts and combines on the edge leaving them', () => {
    const dag = after(ep, 'shard');
    const dispatch = byId(dag, 'ALL_TO_ALL.dispatch.F.b0.mb0') as CollectiveNode;
    expect(dispatch).toMatchObject({ stream: 'ep', devices: [0, 1], group: 0, bytes: 10 * 2 });
    expect(preds(dag, dispatch.id)).toEqual(['F.b0.mb0']);
    expect(succs(dag, dispatch.id)).toEqual(['F.b1.mb0']);
    // The experts' output leaves the stage: the combine sits between them and the SEND.
    expect(preds(dag, 'ALL_TO_ALL.combine.F.b1.mb0')).toEqual(['F.b1.mb0']);
    expect(succs(dag, 'ALL_TO_ALL.combine.F.b1.mb0')).toEqual(['SEND.F.b1.mb0.d2']);
    expect(preds(dag, 'F.b1.mb0')).toEqual(['ALL_TO_ALL.dispatch.F.b0.mb0']);
  });

  it('mirrors them in the backward: the incoming gradient is combined back, the outgoing one dispatched', () => {
    const dag = after(ep, 'shard');
    expect(preds(dag, 'ALL_TO_ALL.combine-grad.RECV.B.b2.mb1.d0')).toEqual(['RECV.B.b2.mb1.d0']);
    expect(succs(dag, 'ALL_TO_ALL.combine-grad.RECV.B.b2.mb1.d0')).toEqual(['B.b1.mb1']);
    expect(preds(dag, 'ALL_TO_ALL.dispatch-grad.B.b1.mb1')).toEqual(['B.b1.mb1']);
    expect(succs(dag, 'ALL_TO_ALL.dispatch-grad.B.b1.mb1')).toEqual(['B.b0.mb1']);
    // 2 microbatches × (dispatch, combine, their gradients); the second stage is untouched.
    expect(ofKind(dag, 'ALL_TO_ALL')).toHaveLength(8);
    expect(ofKind(dag, 'ALL_TO_ALL').every((n) => n.group === 0)).toBe(true);
  });

  it('keeps weight gradients local when the backward is split', () => {
    const dag = after(
      onTwoStages(
        { op: 'split_backward', filter: {} },
        { op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1] },
      ),
      'shard',
    );
    expect(preds(dag, 'BW.b1.mb0')).toEqual(['BI.b1.mb0']);
    expect(succs(dag, 'ALL_TO_ALL.dispatch-grad.BI.b1.mb0')).toEqual(['BI.b0.mb0']);
  });

  it('holds experts/n of the experts’ parameters on each member', () => {
    const plan = compiled(ep).plan;
    expect(plan.devices[0]!.paramBytes).toBe(800 + 1600 / 2);
    expect(plan.devices[2]!.paramBytes).toBe(800 + 1600);
  });

  it('sends each token once per node under node-limited routing: min(nodes_per_token, top-k) copies', () => {
    const dag = after(
      onTwoStages({ op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1], nodes_per_token: 1 }),
      'shard',
    );
    // Edge bytes 10 × 1 copy, where the top-2 without node-limited routing sends 2 copies.
    expect((byId(dag, 'ALL_TO_ALL.dispatch.F.b0.mb0') as CollectiveNode).bytes).toBe(10);
    expect((byId(dag, 'ALL_TO_ALL.combine.F.b1.mb0') as CollectiveNode).bytes).toBe(10);
  });

  it('refuses nodes_per_token above the top-k, or on blocks without routed experts, at the option', () => {
    expect(
      errorsOf(onTwoStages({ op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1], nodes_per_token: 3 })),
    ).toEqual([
      'directives[3].nodes_per_token: 3 nodes per token exceeds the top-k 2 of block 1 (experts 0): a token reaches at most 2 nodes',
    ]);
    expect(
      errorsOf(onTwoStages({ op: 'shard', filter: { PP: 0 }, devices: [0, 1], nodes_per_token: 1 }))[0],
    ).toMatch(
      /^directives\[3\]\.nodes_per_token: node-limited routing needs routed experts; block 0 \(attn 0\)/,
    );
  });

  it('refuses a dispatch dtype on a model without a dtype, at the option', () => {
    expect(
      errorsOf(
        onTwoStages({ op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1], dispatch_dtype: 'fp8' }),
      ),
    ).toEqual([
      'directives[3].dispatch_dtype: a dispatch dtype needs a transformer model (its dtype sizes the tokens); this model is synthetic',
    ]);
  });

  it('sends what enters the experts in the dispatch dtype and what leaves them in the model dtype (FP8 dispatch, BF16 combine)', () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => i);
    const design = (extra: object): Design => ({
      format: 'stagecraft/design@2',
      name: 'qwen3 experts over 2 nodes',
      model: { kind: 'transformer', preset: 'qwen3-30b-a3b', layers: 1, seqLen: 512, annotate: { PP: 1 } },
      cluster: { preset: 'dgx-h100', nodes: 2 },
      directives: [
        { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 1 },
        { op: 'place', filter: {}, devices: sixteen },
        {
          op: 'shard',
          filter: { EP: '*' },
          devices: sixteen,
          ...extra,
        } as Design['directives'][number],
      ],
    });
    const a2a = (extra: object) =>
      compiled(design(extra))
        .plan.devices[0]!.streams.flatMap((s) => s.instructions)
        .filter((i) => i.op === 'ALL_TO_ALL')
        .map((i) => ('bytes' in i ? i.bytes : 0));
    // 512 tokens × 2048 hidden × 2 B = 2 MiB per copy; forward dispatch, combine, then the backward's two.
    const hidden = 512 * 2048 * 2;
    expect(a2a({})).toEqual([8 * hidden, 8 * hidden, 8 * hidden, 8 * hidden]);
    const limited = a2a({ dispatch_dtype: 'fp8', nodes_per_token: 2 });
    expect(limited.slice().sort((x, y) => x - y)).toEqual([hidden, hidden, 2 * hidden, 2 * hidden]);
  });

  it('runs each member’s E/n local experts on n× the tokens per expert, its FLOPs unchanged', () => {
    const devices = (n: number) => Array.from({ length: n }, (_, i) => i);
    const expertsF = (n: number) => {
      const design: Design = {
        format: 'stagecraft/design@2',
        name: 'qwen3 experts',
        model: { kind: 'transformer', preset: 'qwen3-30b-a3b', layers: 1, seqLen: 512, annotate: { PP: 1 } },
        cluster: { preset: 'dgx-h100', nodes: 2 },
        directives: [
          { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 1 },
          { op: 'place', filter: {}, devices: devices(n) },
          ...(n > 1
            ? [{ op: 'shard', filter: { EP: '*' }, devices: devices(n) } as Design['directives'][number]]
            : []),
        ],
      };
      const f = compiled(design)
        .plan.devices[0]!.streams.flatMap((s) => s.instructions)
        .find((i) => i.op === 'F' && 'kernels' in i && i.kernels?.gemms[0]?.count !== undefined);
      if (f?.op !== 'F') throw new Error('no experts forward');
      return f;
    };
    // 512 tokens × top-8 over 128 experts: 32 tokens per expert on one GPU, 16 × 32 under EP16.
    const one = expertsF(1);
    const sixteen = expertsF(16);
    expect(one.kernels!.gemms[0]).toMatchObject({ m: 32, k: 2048, n: 2 * 768, count: 128 });
    expect(sixteen.kernels!.gemms[0]).toMatchObject({ m: 512, k: 2048, n: 2 * 768, count: 8 });
    expect(sixteen.kernels!.gemms[1]).toMatchObject({ m: 512, k: 768, n: 2048, count: 8 });
    expect(sixteen.flops).toBe(one.flops);
  });
});
