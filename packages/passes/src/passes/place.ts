/**
 * `place` puts the matched ops on a device group. Later directives win, as in any program. A
 * device belongs to one group; groups are numbered in order of first use. A design without any
 * `place` runs everything on device 0, the single-device baseline. A group placed as a mesh
 * (design format @3) lists its members row-major over the mesh and keeps the mesh (`dag.meshes`),
 * so replicate / shard / shard_tensor can run over its axes.
 */
import {
  CompileError,
  type Dag,
  deviceCount,
  editable,
  formatPath,
  type GroupMesh,
  meshDevices,
  meshName,
  Names,
  nodeIdOf,
  OP_UPD,
  type OwnTable,
  type PathSegment,
  tableOf,
  withColumns,
} from '@stagecraft/ir';
import { type Pass, type PassContext, rewritten } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';

export const placePass: Pass = {
  name: 'place',
  reads: ['place'],
  writes: [],
  run(dag, ctx) {
    const places = directivesOf(ctx.program, 'place');
    const devices = deviceCount(ctx.design.cluster);
    const groups: number[][] = dag.groups.map((g) => [...g]);
    const meshes: (GroupMesh | null)[] = dag.groups.map((_, g) => dag.meshes?.[g] ?? null);
    const keyOf = (list: readonly number[], mesh: GroupMesh | null) =>
      mesh ? `${meshName(mesh)}:${list.join(',')}` : list.join(',');
    const groupOfKey = new Map(groups.map((g, i) => [keyOf(g, meshes[i]!), i]));
    const ownerOfDevice = new Map<number, { group: number; path: string }>();
    const groupFor = (devs: readonly number[], path: string, mesh: GroupMesh | null = null): number => {
      const sorted = [...devs].sort((a, b) => a - b);
      sorted.forEach((dev, j) => {
        if (sorted[j - 1] === dev) throw new CompileError({ path, message: `device ${dev} is listed twice` });
        if (dev >= devices) {
          throw new CompileError({
            path: mesh ? path : `${path}[${devs.indexOf(dev)}]`,
            message: `device ${dev} is outside the cluster (devices 0..${devices - 1})`,
          });
        }
      });
      // A mesh keeps its order: member r is the r-th row-major, and faces member r of other groups.
      const list = mesh ? [...devs] : sorted;
      const key = keyOf(list, mesh);
      const known = groupOfKey.get(key);
      if (known !== undefined) return known;
      for (const dev of sorted) {
        const owner = ownerOfDevice.get(dev);
        if (owner) {
          throw new CompileError({
            path,
            message:
              sorted.join(',') === [...groups[owner.group]!].sort((a, b) => a - b).join(',')
                ? `devices [${sorted.join(', ')}] are the group of ${owner.path} laid out ${meshes[owner.group] ? `as mesh ${meshName(meshes[owner.group]!)}` : 'without a mesh'}; place on the same ${mesh ? `mesh ${meshName(mesh)}` : 'devices'} every time`
                : `devices [${sorted.join(', ')}] partly overlap the group [${groups[owner.group]!.join(', ')}] of ${owner.path}; each device belongs to one group`,
          });
        }
      }
      const g = groups.length;
      groups.push(list);
      meshes.push(mesh);
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
    const groupOf = (d: (typeof places)[number]['d'], path: readonly PathSegment[]): number => {
      if (d.mesh === undefined) return groupFor(d.devices!, formatPath([...path, 'devices']));
      const m = meshDevices(d.mesh);
      if (!m.ok)
        throw new CompileError({ path: formatPath([...path, 'mesh', ...m.path]), message: m.message });
      return groupFor(m.devices, formatPath([...path, 'mesh']), m.mesh);
    };
    const index = NodeIndex.of(dag);
    // Which nodes some place matched, so the check for unplaced ops reads only the others.
    const matchedAny = new Uint8Array(t.length);
    for (const { d, index: di, path } of places) {
      const g = groupOf(d, path);
      const matched = index.match(d.filter, [...path, 'filter']);
      if (matched.length === 0)
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
      const stream = d.stream ? names.index(d.stream) : -1;
      if (stream >= 0 && p2pStream === t.p2pStream) p2pStream = editable(t.p2pStream);
      // Indexed, not `for of`: a first run interprets this loop, and the iterator's call per
      // node is most of its cost there.
      for (let j = 0; j < matched.length; j++) {
        const i = matched[j]!;
        matchedAny[i] = 1;
        group[i] = g;
        provPass[i] = pass;
        provDirective[i] = di;
        if (stream >= 0) p2pStream[i] = stream;
      }
    }
    let unplaced = -1;
    const ops = t.op;
    for (let i = 0, n = t.length; i < n && unplaced < 0; i++)
      if (matchedAny[i] === 0 && ops[i]! <= OP_UPD && group[i]! < 0) unplaced = i;
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
    return placed(dag, ctx, meshes.some((m) => m !== null) ? { groups, meshes } : { groups }, out());
  },
};

/** Placing moves ops between groups but keeps what they are: the filter index still holds. */
function placed(before: Dag, ctx: PassContext, parts: Partial<Dag>, table: OwnTable): Dag {
  const after = rewritten(before, ctx, parts, table);
  NodeIndex.carry(before, after);
  return after;
}
