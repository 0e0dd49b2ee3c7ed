/**
 * `place` puts the matched ops on a device group. Later directives win, as in any program. A
 * device belongs to one group; groups are numbered in order of first use. A design without any
 * `place` runs everything on device 0, the single-device baseline.
 */
import {
  CompileError,
  type ComputeNode,
  type Dag,
  type DagNode,
  formatPath,
  patchCompute,
} from '@stagecraft/ir';
import { deviceCount } from '../cluster.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';

export const placePass: Pass = {
  name: 'place',
  run(dag, ctx) {
    const places = directivesOf(ctx.program, 'place');
    const devices = deviceCount(ctx.design.cluster);
    const groups: number[][] = dag.groups.map((g) => [...g]);
    const groupOfKey = new Map(groups.map((g, i) => [g.join(','), i]));
    const ownerOfDevice = new Map<number, { group: number; path: string }>();
    const groupFor = (devs: readonly number[], path: string): number => {
      const sorted = [...devs].sort((a, b) => a - b);
      sorted.forEach((dev, j) => {
        if (sorted.indexOf(dev) !== j)
          throw new CompileError({ path, message: `device ${dev} is listed twice` });
        if (dev >= devices) {
          throw new CompileError({
            path: `${path}[${devs.indexOf(dev)}]`,
            message: `device ${dev} is outside the cluster (devices 0..${devices - 1})`,
          });
        }
      });
      const key = sorted.join(',');
      const known = groupOfKey.get(key);
      if (known !== undefined) return known;
      for (const dev of sorted) {
        const owner = ownerOfDevice.get(dev);
        if (owner) {
          throw new CompileError({
            path,
            message: `devices [${sorted.join(', ')}] partly overlap the group [${groups[owner.group]!.join(', ')}] of ${owner.path}; each device belongs to one group`,
          });
        }
      }
      const g = groups.length;
      groups.push(sorted);
      groupOfKey.set(key, g);
      for (const dev of sorted) ownerOfDevice.set(dev, { group: g, path });
      return g;
    };
    const nodes: DagNode[] = dag.nodes.slice();
    if (places.length === 0) {
      const g = groupFor([0], 'cluster');
      const provenance = { pass: 'place', directive: null };
      nodes.forEach((n, i) => {
        if (n.kind === 'compute') nodes[i] = patchCompute(n, { group: g, provenance });
      });
      return placed(dag, { ...dag, nodes, groups });
    }
    const index = NodeIndex.of(dag);
    // Which nodes some place matched, so the check for unplaced ops reads only the others.
    const matchedAny = new Uint8Array(nodes.length);
    for (const { d, index: di, path } of places) {
      const g = groupFor(d.devices, formatPath([...path, 'devices']));
      const matched = index.match(d.filter, [...path, 'filter']);
      if (matched.length === 0)
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
      const provenance = { pass: 'place', directive: di };
      for (const i of matched) {
        matchedAny[i] = 1;
        const n = nodes[i] as ComputeNode;
        nodes[i] = patchCompute(
          n,
          d.stream ? { group: g, provenance, p2pStream: d.stream } : { group: g, provenance },
        );
      }
    }
    let unplaced: DagNode | undefined;
    for (let i = 0; i < nodes.length && !unplaced; i++) {
      if (matchedAny[i] === 1) continue;
      const n = nodes[i]!;
      if (n.kind === 'compute' && n.group < 0) unplaced = n;
    }
    if (unplaced) {
      const tags = Object.entries(dag.blocks[unplaced.block]!.tags)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      throw new CompileError({
        path: 'directives',
        message: `${unplaced.id} (block ${unplaced.block}${tags ? `, ${tags}` : ''}) is not placed on any device; add a place directive for it`,
      });
    }
    return placed(dag, { ...dag, nodes, groups });
  },
};

/** Placing moves ops between groups but keeps what they are: the filter index still holds. */
function placed(before: Dag, after: Dag): Dag {
  NodeIndex.carry(before, after);
  return after;
}
