import type { Design, Instruction, Plan } from '@stagecraft/ir';
import { expect, test } from 'vitest';
import { compile } from '../compile/compile.ts';

/** One stage on two devices, its first two blocks tensor parallel with sequence parallelism. */
function design(recompute: boolean): Design {
  return {
    format: 'stagecraft/design@1',
    name: 'tp2-sp',
    model: {
      kind: 'synthetic',
      blocks: [
        { name: 'attn', tags: { TP: 0 }, F: 1, BI: 1, BW: 1 },
        { name: 'mlp', tags: { TP: 1 }, F: 1, BI: 1, BW: 1 },
        { name: 'head', tags: {}, F: 1, BI: 1, BW: 1 },
      ],
    },
    cluster: { kind: 'ideal', devices: 2 },
    directives: [
      { op: 'place', filter: {}, devices: [0, 1] },
      { op: 'shard_tensor', filter: { TP: '*' }, devices: [0, 1], sequence_parallel: true },
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
      ...(recompute ? [{ op: 'recompute', filter: { TP: '*' } }] : []),
    ],
  } as unknown as Design;
}

function instructions(recompute: boolean): { plan: Plan; all: Instruction[] } {
  const r = compile(design(recompute));
  if (!r.ok) throw new Error(r.errors[0]!.message);
  const plan = JSON.parse(JSON.stringify(r.plan)) as Plan;
  return { plan, all: plan.devices.flatMap((d) => d.streams.flatMap((s) => s.instructions)) };
}

const tensorOf = (i: Instruction) => ('tensor' in i ? i.tensor : undefined);
const paramsOf = (i: Instruction) => ('params' in i ? i.params : undefined);

test('sequence parallelism: the model keeps its data flow through the reduce-scatter and all-gather', () => {
  const { plan } = instructions(false);
  expect(plan.model?.blocks.map((b) => b.inputs)).toEqual([[], [0], [1]]);
  expect(plan.model?.loss).toBe(2);
});

test('every reduce-scatter and all-gather of sequence parallelism carries its tensor and no parameters', () => {
  for (const recompute of [false, true]) {
    const { all } = instructions(recompute);
    const activations = all.filter((i) => i.op === 'REDUCE_SCATTER' || i.op === 'ALL_GATHER');
    // Per device, F of blocks 0 and 1 and B of block 1 on 2 microbatches (recompute: F of both again).
    expect(activations).toHaveLength(2 * 2 * (recompute ? 5 : 3) * 2);
    for (const c of activations) {
      expect(paramsOf(c), c.id).toBeUndefined();
      // The tensor the id labels: a recomputed forward's output is the forward's, made again.
      const [, , pass, b, mb] = c.id.split('.');
      expect(tensorOf(c), c.id).toEqual({
        block: Number(b!.slice(1)),
        pass: pass === 'RECOMPUTE' ? 'F' : pass,
        microbatch: Number(mb!.slice(2)),
      });
    }
  }
});

/** Two stages of two devices, each tensor parallel over its pair. */
function pipeline(options: Record<string, boolean>): Instruction[] {
  const r = compile({
    format: 'stagecraft/design@1',
    name: 'pp2-tp2',
    model: {
      kind: 'synthetic',
      blocks: [
        { name: 'layer 0', tags: { PP: 0, TP: 0 }, F: 1, BI: 1, BW: 1 },
        { name: 'layer 1', tags: { PP: 0, TP: 1 }, F: 1, BI: 1, BW: 1 },
        { name: 'layer 2', tags: { PP: 1, TP: 2 }, F: 1, BI: 1, BW: 1 },
        { name: 'head', tags: { PP: 1 }, F: 1, BI: 1, BW: 1 },
      ],
    },
    cluster: { kind: 'ideal', devices: 4 },
    directives: [
      {
        op: 'schedule',
        builder: '1f1b',
        microbatches: 3,
        groups: [
          [0, 1],
          [2, 3],
        ],
      },
      { op: 'shard_tensor', filter: { PP: 0, TP: '*' }, devices: [0, 1], ...options },
      { op: 'shard_tensor', filter: { PP: 1, TP: '*' }, devices: [2, 3], ...options },
    ],
  } as unknown as Design);
  if (!r.ok) throw new Error(r.errors[0]!.message);
  const plan = JSON.parse(JSON.stringify(r.plan)) as Plan;
  expect(plan.model?.blocks.map((b) => b.inputs)).toEqual([[], [0], [1], [2]]);
  return plan.devices.flatMap((d) => d.streams.flatMap((s) => s.instructions));
}

const scatterOf = (i: Instruction) => ('scatter' in i ? i.scatter : undefined);

test('a scatter-gather send between tensor-parallel stages says it carries 1/n of the rows', () => {
  const forms: Record<string, boolean>[] = [{ sequence_parallel: true }, { scatter_gather_sends: true }];
  for (const options of forms) {
    const transfers = pipeline(options).filter((i) => i.op === 'SEND' || i.op === 'RECV');
    expect(transfers.length).toBeGreaterThan(0);
    for (const t of transfers) expect(scatterOf(t), t.id).toBe(2);
  }
  // Whole sends without either option: no field.
  for (const t of pipeline({}).filter((i) => i.op === 'SEND' || i.op === 'RECV'))
    expect(scatterOf(t), t.id).toBeUndefined();
});

const chunksOf = (i: Instruction) => ('chunks' in i ? i.chunks : undefined);

test("comm_overlap's two parts of each collective carry its tensor and, between them, each chunk of its rows once", () => {
  for (const options of [{ sequence_parallel: true, comm_overlap: true }]) {
    const all = pipeline(options).filter((i) => i.op === 'REDUCE_SCATTER' || i.op === 'ALL_GATHER');
    const chunked = all.filter((i) => chunksOf(i) !== undefined);
    expect(chunked.length).toBeGreaterThan(0);
    // Per tensor and op, every member's parts tile 0…of exactly once (4 reduce-scatter chunks, one
    // all-gather chunk per member of TP2): over the pair's two members, each chunk twice.
    const cover = new Map<string, number[]>();
    for (const c of all) {
      const tensor = tensorOf(c);
      expect(tensor, c.id).toBeDefined();
      const chunks = chunksOf(c);
      if (chunks === undefined) continue;
      expect(chunks.of, c.id).toBe(c.op === 'REDUCE_SCATTER' ? 4 : 2);
      const key = `${c.op} ${JSON.stringify(tensor)} d${'devices' in c ? c.devices.join(',') : ''}`;
      const got = cover.get(key) ?? new Array<number>(chunks.of).fill(0);
      for (let k = chunks.from; k < chunks.to; k++) got[k]! += 1;
      cover.set(key, got);
    }
    for (const [key, got] of cover)
      expect(
        got.every((n) => n === 2),
        key,
      ).toBe(true);
  }
  // Without comm_overlap no collective is chunked.
  expect(pipeline({ sequence_parallel: true }).filter((i) => chunksOf(i) !== undefined)).toEqual([]);
});
