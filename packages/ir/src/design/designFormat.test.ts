import { describe, expect, it } from 'vitest';
import { DESIGN_FORMAT, parseDesign } from './design.ts';

const design = (format: string, schedule: Record<string, unknown>) => ({
  format,
  name: 'd',
  model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 4 },
  directives: [schedule, { op: 'split_backward', filter: { PP: 1 } }],
});

const move = { kind: 'move', op: { PP: 3, MB: 1, PASS: 'F' }, before: { PP: 3, MB: 0, PASS: 'F' } };

describe('design format versions', () => {
  it('@1 and @2 designs load as @3 ones with the same model, cluster and directives', () => {
    for (const format of ['stagecraft/design@1', 'stagecraft/design@2']) {
      const old = design(format, { op: 'schedule', builder: '1f1b', microbatches: 8 });
      const r = parseDesign(old);
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect(r.design.format).toBe('stagecraft/design@3');
      expect(r.design.format).toBe(DESIGN_FORMAT);
      expect(r.design.directives).toEqual(old.directives);
      expect(r.design.model).toEqual(old.model);
    }
  });

  it('an @2 design that uses meshes is refused at each mesh and axis, which @2 does not have', () => {
    const r = parseDesign({
      ...design('stagecraft/design@2', { op: 'schedule', builder: '1f1b', microbatches: 8 }),
      directives: [
        { op: 'place', filter: {}, mesh: { axes: ['dp'], shape: [4] } },
        { op: 'replicate', filter: {}, axis: 'dp' },
        { op: 'schedule', builder: '1f1b', microbatches: 8, groups: [[0], { axes: ['tp'], shape: [1] }] },
      ],
    });
    expect(r.ok ? [] : r.errors).toEqual([
      {
        path: 'directives[0].mesh',
        message: 'a mesh needs format "stagecraft/design@3" (this design says @2)',
      },
      {
        path: 'directives[1].axis',
        message: 'a mesh axis needs format "stagecraft/design@3" (this design says @2)',
      },
      {
        path: 'directives[2].groups[1]',
        message: 'a mesh needs format "stagecraft/design@3" (this design says @2)',
      },
    ]);
  });

  it('a place gives devices or a mesh, and a replicate devices or an axis, one of the two', () => {
    const r = parseDesign({
      ...design(DESIGN_FORMAT, { op: 'schedule', builder: '1f1b', microbatches: 8 }),
      directives: [
        { op: 'place', filter: {}, devices: [0], mesh: { axes: ['dp'], shape: [4] } },
        { op: 'replicate', filter: {} },
        { op: 'place', filter: {}, mesh: { axes: ['dp', 'tp'], shape: [4] } },
        { op: 'place', filter: {}, mesh: { axes: ['DP'], shape: [4] } },
      ],
    });
    expect(r.ok ? [] : r.errors).toEqual([
      { path: 'directives[0].mesh', message: 'give "devices" or "mesh", not both' },
      {
        path: 'directives[1].devices',
        message: 'required: the device group ("devices") or the mesh axes ("axis") it runs over',
      },
      { path: 'directives[2].mesh.shape', message: '1 sizes for 2 axes' },
      { path: 'directives[3].mesh.axes[0]', message: 'axis names are lower case, e.g. "dp", "tp"' },
    ]);
  });

  it('an @1 design whose schedule has edits is refused at the edits, which @1 does not have', () => {
    const r = parseDesign(
      design('stagecraft/design@1', { op: 'schedule', builder: '1f1b', microbatches: 8, edits: [move] }),
    );
    expect(r.ok ? [] : r.errors).toEqual([
      {
        path: 'directives[0].edits',
        message: `a schedule's edits need format "stagecraft/design@2" (this design says @1)`,
      },
    ]);
  });

  it('an @3 design keeps its schedule’s edits in their order', () => {
    const overlap = { kind: 'overlap', op: { PP: 3, MB: 2, PASS: 'F' } };
    const r = parseDesign(
      design(DESIGN_FORMAT, { op: 'schedule', builder: '1f1b', microbatches: 8, edits: [move, overlap] }),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.design.directives[0]).toEqual({
      op: 'schedule',
      builder: '1f1b',
      microbatches: 8,
      edits: [move, overlap],
    });
  });

  it('a design newer than this version reads is refused at its format', () => {
    const r = parseDesign(
      design('stagecraft/design@4', { op: 'schedule', builder: '1f1b', microbatches: 8 }),
    );
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(['format']);
  });
});

describe('schedule edits', () => {
  const errorsOf = (edit: unknown) => {
    const r = parseDesign(
      design(DESIGN_FORMAT, { op: 'schedule', builder: '1f1b', microbatches: 8, edits: [move, edit] }),
    );
    return r.ok ? [] : r.errors;
  };

  it('a move names exactly one of before and after, reported at that edit', () => {
    expect(errorsOf({ kind: 'move', op: move.op })).toEqual([
      {
        path: 'directives[0].edits[1]',
        message: 'a move names where its op goes: exactly one of before and after',
      },
    ]);
    expect(errorsOf({ ...move, after: move.before }).map((e) => e.path)).toEqual([
      'directives[0].edits[1].after',
    ]);
  });

  it('an op is named by PP, MB and PASS, and nothing else', () => {
    expect(errorsOf({ kind: 'overlap', op: { PP: 1, PASS: 'F' } }).map((e) => e.path)).toEqual([
      'directives[0].edits[1].op.MB',
    ]);
    expect(errorsOf({ kind: 'overlap', op: { PP: 1, MB: 0, PASS: 'F', EP: 0 } }).length).toBe(1);
    expect(errorsOf({ kind: 'overlap', op: { PP: 1, MB: 0, PASS: 'X' } }).map((e) => e.path)).toEqual([
      'directives[0].edits[1].op.PASS',
    ]);
  });

  it('an edit of an unknown kind is refused at its kind', () => {
    expect(errorsOf({ kind: 'swap', op: move.op }).map((e) => e.path)).toEqual([
      'directives[0].edits[1].kind',
    ]);
  });
});
