import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { run } from '../../test/simulatedExamples.ts';
import { buildDagGraph } from '../core/dagGraph.ts';
import { layoutGantt } from './layout.ts';
import { meshGroupOf, planOutline } from './timelinePlan.ts';

/** Two stages, each a dp2 × tp2 mesh, data parallel over dp. */
const design: Design = {
  format: 'stagecraft/design@3',
  name: 'pp2 × dp2 × tp2',
  model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
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
    { op: 'replicate', filter: {}, axis: 'dp' },
  ],
};

describe('mesh coordinates in the designer', () => {
  it('labels each timeline band with its stage and mesh coordinates, from the plan or its outline', () => {
    const { sim, plan } = run(design);
    const labels = layoutGantt(sim, plan).bands.map((b) => b.label);
    expect(labels).toEqual([
      'dev 0 · PP 0 · dp 0 · tp 0',
      'dev 1 · PP 0 · dp 0 · tp 1',
      'dev 2 · PP 0 · dp 1 · tp 0',
      'dev 3 · PP 0 · dp 1 · tp 1',
      'dev 4 · PP 1 · dp 0 · tp 0',
      'dev 5 · PP 1 · dp 0 · tp 1',
      'dev 6 · PP 1 · dp 1 · tp 0',
      'dev 7 · PP 1 · dp 1 · tp 1',
    ]);
    expect(layoutGantt(sim, planOutline(plan)).bands.map((b) => b.label)).toEqual(labels);
  });

  it('labels each DAG lane with the devices and the mesh its members fold into', () => {
    const { compiled } = run(design);
    expect(buildDagGraph(compiled.dag).lanes.map((l) => l.label)).toEqual([
      'devices 0–3 · dp 0–1 · tp 0–1',
      'devices 4–7 · dp 0–1 · tp 0–1',
    ]);
  });

  it("gives a timeline op's mesh group, from the plan or its outline, so a drop on it can ask for the axis", () => {
    const { plan } = run(design);
    const group = { devices: [4, 5, 6, 7], mesh: { axes: ['dp', 'tp'], shape: [2, 2] } };
    expect(meshGroupOf(plan, 6)).toEqual(group);
    expect(meshGroupOf(planOutline(plan), 6)).toEqual(group);
  });

  it('gives no mesh group for a flat group: a drop there targets the op’s own device', () => {
    const { plan } = run({
      ...design,
      directives: [{ op: 'schedule', builder: '1f1b', ranks: 2, microbatches: 2 }],
    });
    expect(meshGroupOf(plan, 1)).toBeUndefined();
  });
});
