import type { Design, Filter } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compactDesign } from '../../../../test/splitBackwardDesigns.ts';
import { synthetic } from '../../test/designs.ts';
import { compile } from '../compile/compile.ts';
import { executedPlan, exportPiperProgram, importPiper } from './piperProgram.ts';

function exported(design: Design) {
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return { compiled: r, piper: exportPiperProgram(design, r.program, r.plan, r.dag) };
}

const orderRows = (program: readonly { op: string; filters?: Filter[][] }[]) =>
  program.flatMap((d) => (d.op === 'order' ? d.filters! : []));

describe('Piper export of a schedule with split_backward', () => {
  it('writes each split B as a BI row with a BW row right after it, and leaves no split_backward', () => {
    const design = compactDesign({ builder: '1f1b', chunks: 1, split: { PP: 1 } });
    const { piper } = exported(design);
    if (!piper.ok) throw new Error(JSON.stringify(piper.errors));
    expect(piper.program.map((d) => d.op)).not.toContain('split_backward');
    const rows = orderRows(piper.program);
    const passes = (row: Filter[]) => row.map((f) => f.PASS);
    for (const [j, row] of rows.entries()) {
      expect(passes(row).includes('BI') && passes(row).includes('BW')).toBe(false);
      if (row.some((f) => f.PASS === 'BI'))
        expect(rows[j + 1]).toEqual(row.filter((f) => f.PASS === 'BI').map((f) => ({ ...f, PASS: 'BW' })));
    }
    // Every backward of PP region 1 is split, and only those.
    const halves = rows.flat().filter((f) => f.PASS === 'BI' || f.PASS === 'BW');
    expect(halves).toHaveLength(2 * 8);
    expect(halves.every((f) => f.PP === 1)).toBe(true);
    expect(rows.flat().filter((f) => f.PASS === 'B' && f.PP === 1)).toEqual([]);
  });

  it('overlaps BI with the forward of DualPipeV’s F&B rows and writes the BW in the row after', () => {
    const design = compactDesign({ builder: 'dualpipev', chunks: 2, split: { PP: '*' } });
    const { compiled, piper } = exported(design);
    if (!piper.ok) throw new Error(JSON.stringify(piper.errors));
    const rows = orderRows(piper.program);
    const overlapped = rows.findIndex(
      (row) => row.some((f) => f.PASS === 'F') && row.some((f) => f.PASS === 'BI'),
    );
    expect(overlapped).toBeGreaterThanOrEqual(0);
    expect(rows[overlapped + 1]!.map((f) => f.PASS)).toEqual(['BW']);
    expect(rows.flat().some((f) => f.PASS === 'B')).toBe(false);
    const back = importPiper(piper.text, { model: design.model, cluster: design.cluster, name: design.name });
    if (!back.ok) throw new Error(JSON.stringify(back.errors));
    const again = compile(back.design, { keepSnapshots: false });
    if (!again.ok) throw new Error(JSON.stringify(again.errors));
    expect(executedPlan(again.plan)).toEqual(executedPlan(compiled.plan));
  });

  it('refuses, naming the split_backward, a B filter that names split and fused backwards at once', () => {
    // One device runs both regions; the order names each microbatch's B of both in one filter.
    const design = synthetic(
      [
        { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
        { op: 'place', filter: {}, devices: [0] },
        {
          op: 'order',
          filters: [
            [{ PP: 0, MB: 0, PASS: 'F' }],
            [{ PP: 1, MB: 0, PASS: 'F' }],
            [{ MB: 0, PASS: 'B' }],
            [{ PP: 0, MB: 1, PASS: 'F' }],
            [{ PP: 1, MB: 1, PASS: 'F' }],
            [{ MB: 1, PASS: 'B' }],
          ],
        },
        { op: 'split_backward', filter: { PP: 1 } },
      ],
      { devices: 1 },
    );
    expect(exported(design).piper).toEqual({
      ok: false,
      errors: [
        {
          path: 'directives[3]',
          message: "split_backward changes the plan, and Piper's six ops cannot express it",
        },
      ],
    });
  });
});

describe('Piper export of a design on device meshes', () => {
  const onMeshes: Design = {
    format: 'stagecraft/design@3',
    name: 'pp2 × dp2 × tp2',
    model: {
      kind: 'synthetic',
      blocks: [0, 1].map((pp) => ({ name: `layer ${pp}`, tags: { PP: pp, TP: 0 }, F: 1, BI: 1, BW: 1 })),
    },
    cluster: { kind: 'ideal', devices: 8 },
    directives: [
      {
        op: 'schedule',
        builder: '1f1b',
        microbatches: 2,
        groups: [
          { axes: ['dp', 'tp'], shape: [2, 2] },
          { axes: ['dp', 'tp'], shape: [2, 2], start: 4 },
        ],
      },
      { op: 'shard_tensor', filter: { TP: '*' }, axis: 'tp' },
      { op: 'replicate', filter: {}, axis: 'dp' },
    ],
  };

  it('writes a directive over an axis as one directive per sub-group with its device list, compiling to the same plan', () => {
    const { compiled, piper } = exported(onMeshes);
    if (!piper.ok) throw new Error(JSON.stringify(piper.errors));
    const lists = (op: string) =>
      piper.program.flatMap((d) => (d.op === op && 'devices' in d ? [d.devices] : []));
    expect(piper.program.some((d) => 'axis' in d)).toBe(false);
    expect(lists('shard_tensor')).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
    ]);
    expect(lists('replicate')).toEqual([
      [0, 2],
      [1, 3],
      [4, 6],
      [5, 7],
    ]);
    const again = compile({ ...onMeshes, directives: piper.program }, { keepSnapshots: false });
    if (!again.ok) throw new Error(JSON.stringify(again.errors));
    expect(executedPlan(again.plan)).toEqual(executedPlan(compiled.plan));
  });

  it('refuses sub-group directives that leave a sub-group out, naming it', () => {
    const { piper } = exported(onMeshes);
    if (!piper.ok) throw new Error(JSON.stringify(piper.errors));
    const program = piper.program.filter((d) => !(d.op === 'replicate' && d.devices?.[0] === 5));
    const r = compile({ ...onMeshes, directives: program }, { keepSnapshots: false });
    const at = program.findIndex((d) => d.op === 'replicate' && d.devices?.[0] === 4);
    expect(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      `directives[${at}].devices: devices [4, 6] are one sub-group along dp of the mesh on [4, 5, 6, 7], but no replicate like it covers [5, 7]: every sub-group of an SPMD group runs alike`,
    ]);
  });
});
