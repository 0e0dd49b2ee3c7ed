/**
 * `place` puts the matched ops on a device group. Later directives win, as in any program. A
 * device belongs to one group; groups are numbered in order of first use. A design without any
 * `place` runs everything on device 0, the single-device baseline.
 */
import {
  CompileError,
  type Dag,
  editable,
  formatPath,
  Names,
  nodeIdOf,
  OP_UPD,
  type OwnTable,
  tableOf,
  withColumns,
} from '@stagecraft/ir';
import { type Pass, type PassContext, rewritten } from '../driver/pass.ts';
import { deviceCount } from '../model/cluster.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';

export const placePass: Pass = {
  name: 'place',
  reads: ['place'],
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
    const t = tableOf(dag);
    const names = new Names(t.names);
    const pass = names.index('place');
    // The columns place writes; the others are the input's.
    const group = editable(t.group);
    const provPass = editable(t.provPass);
    const provDirective = editable(t.provDirective);
    let p2pStream = t.p2pStream;
    const out = (): OwnTable =>
      withColumns(t, { group, provPass, provDirective, p2pStream, names: names.names });
    if (places.length === 0) {
      const g = groupFor([0], 'cluster');
      for (let i = 0; i < t.length; i++)
        if (t.op[i]! <= OP_UPD) {
          group[i] = g;
          provPass[i] = pass;
          provDirective[i] = -1;
        }
      return placed(dag, ctx, { groups }, out());
    }
    const index = NodeIndex.of(dag);
    // Which nodes some place matched, so the check for unplaced ops reads only the others.
    const matchedAny = new Uint8Array(t.length);
    for (const { d, index: di, path } of places) {
      const g = groupFor(d.devices, formatPath([...path, 'devices']));
      const matched = index.match(d.filter, [...path, 'filter']);
      if (matched.length === 0)
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
      const stream = d.stream ? names.index(d.stream) : -1;
      if (stream >= 0 && p2pStream === t.p2pStream) p2pStream = editable(t.p2pStream);
      for (const i of matched) {
        matchedAny[i] = 1;
        group[i] = g;
        provPass[i] = pass;
        provDirective[i] = di;
        if (stream >= 0) p2pStream[i] = stream;
      }
    }
    let unplaced = -1;
    for (let i = 0; i < t.length && unplaced < 0; i++)
      if (matchedAny[i] === 0 && t.op[i]! <= OP_UPD && group[i]! < 0) unplaced = i;
    if (unplaced >= 0) {
      const block = t.block[unplaced]!;
      const tags = Object.entries(dag.blocks[block]!.tags)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      throw new CompileError({
        path: 'directives',
        message: `${nodeIdOf(dag, unplaced)} (block ${block}${tags ? `, ${tags}` : ''}) is not placed on any device; add a place directive for it`,
      });
    }
    return placed(dag, ctx, { groups }, out());
  },
};

/** Placing moves ops between groups but keeps what they are: the filter index still holds. */
function placed(before: Dag, ctx: PassContext, parts: Partial<Dag>, table: OwnTable): Dag {
  const after = rewritten(before, ctx, parts, table);
  NodeIndex.carry(before, after);
  return after;
}
