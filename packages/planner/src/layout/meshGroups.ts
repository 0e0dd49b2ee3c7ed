/**
 * The sub-groups a layout's collectives run over, on the mesh layoutDesign writes for each
 * pipeline rank: axes (dp outer, ep, tp) with tp innermost, the rank's GPUs contiguous from
 * rank × dp × tp. A collective over some axes runs once per combination of the other axes' indices;
 * what a bound may charge is the cheapest of them, so each group is described by the distinct
 * ways its members sit on the nodes (sim/src/costModel.ts, groupSpan).
 */
import { type CostCluster, type GroupSpan, groupSpan } from '@stagecraft/sim';

export type MeshAxis = 'outer' | 'ep' | 'tp';

export interface MeshShape {
  pp: number;
  dp: number;
  tp: number;
  ep: number;
}

/** Per pipeline rank, the distinct spans of its sub-groups along `axes`. */
export function subgroupSpans(
  cost: CostCluster & { kind: 'custom' },
  m: MeshShape,
  axes: readonly MeshAxis[],
): GroupSpan[][] {
  const shape = { outer: m.dp / m.ep, ep: m.ep, tp: m.tp };
  const stride = { outer: m.ep * m.tp, ep: m.tp, tp: 1 };
  const all: MeshAxis[] = ['outer', 'ep', 'tp'];
  const fixed = all.filter((a) => !axes.includes(a));
  const coordinates = (list: readonly MeshAxis[]) => {
    let out = [0];
    for (const a of list)
      out = out.flatMap((base) => Array.from({ length: shape[a] }, (_, i) => base + i * stride[a]));
    return out;
  };
  const starts = coordinates(fixed);
  const offsets = coordinates(axes);
  return Array.from({ length: m.pp }, (_, r) => {
    const first = r * m.dp * m.tp;
    const seen = new Map<string, GroupSpan>();
    for (const s of starts) {
      const span = groupSpan(
        cost,
        offsets.map((o) => first + s + o),
      );
      seen.set(`${span.n}/${span.nodes}/${span.perNode}`, span);
    }
    return [...seen.values()];
  });
}
