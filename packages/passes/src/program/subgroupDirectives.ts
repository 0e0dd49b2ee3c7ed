/**
 * Piper's way of writing a mesh: one directive per sub-group, each with its own device list
 * (`replicate` over [0, 128, 256, …], another over [1, 129, 257, …], …). An SPMD group runs every
 * sub-group alike, so such directives are one directive over mesh axes: here they are merged into
 * it (`devices` naming the group, `axis` the axes the listed devices vary along), before any pass
 * runs, which makes a Piper program written by export compile to the plan its design does. A set
 * that leaves a sub-group out is refused: its members would run a program the others do not.
 */
import {
  CompileError,
  type Directive,
  formatPath,
  type GroupMesh,
  meshCoords,
  meshDevices,
  subgroupOf,
  subgroupsOf,
} from '@stagecraft/ir';
import type { ExpandedDirective } from '../driver/compileTypes.ts';

type Collective = Extract<Directive, { op: 'replicate' | 'shard' | 'shard_tensor' }>;

interface PlacedMesh {
  readonly devices: readonly number[];
  readonly mesh: GroupMesh;
}

export function mergeSubgroupDirectives(program: ExpandedDirective[]): ExpandedDirective[] {
  const meshes: PlacedMesh[] = [];
  const at = new Map<number, { mesh: number; rank: number }>();
  for (const { directive: d } of program) {
    if (d.op !== 'place' || d.mesh === undefined) continue;
    const m = meshDevices(d.mesh);
    if (!m.ok) continue;
    const key = m.devices.join(',');
    if (meshes.some((x) => x.devices.join(',') === key)) continue;
    const k = meshes.length;
    meshes.push({ devices: m.devices, mesh: m.mesh });
    m.devices.forEach((dev, rank) => {
      if (!at.has(dev)) at.set(dev, { mesh: k, rank });
    });
  }
  if (meshes.length === 0) return program;
  // Sub-group directives by what they say besides their devices, their mesh and their axes.
  const sets = new Map<string, { first: number; mesh: number; mask: number; seen: Map<number, number> }>();
  const drop = new Set<number>();
  const merged = new Map<number, Directive>();
  program.forEach(({ directive: d, path }, i) => {
    if (d.op !== 'replicate' && d.op !== 'shard' && d.op !== 'shard_tensor') return;
    if (d.devices === undefined || d.axis !== undefined) return;
    const sub = subgroupOfList(d.devices, meshes, at);
    if (!sub) return;
    const { devices: _devices, ...rest } = d;
    const key = `${sub.mesh}:${sub.mask}:${JSON.stringify(rest)}`;
    let set = sets.get(key);
    if (!set) sets.set(key, (set = { first: i, mesh: sub.mesh, mask: sub.mask, seen: new Map() }));
    const prev = set.seen.get(sub.index);
    if (prev !== undefined)
      throw new CompileError({
        path: formatPath([...path, 'devices']),
        message: `devices [${d.devices.join(', ')}] are a sub-group ${formatPath(program[prev]!.path)} already covers`,
      });
    set.seen.set(sub.index, i);
    if (i !== set.first) drop.add(i);
  });
  for (const set of sets.values()) {
    const { mesh, devices } = meshes[set.mesh]!;
    const all = subgroupsOf(mesh, set.mask);
    const first = program[set.first]!;
    const missing = all.findIndex((_, k) => !set.seen.has(k));
    const names = mesh.axes.filter((_, a) => set.mask & (1 << a));
    if (missing >= 0)
      throw new CompileError({
        path: formatPath([...first.path, 'devices']),
        message: `devices [${(first.directive as Collective).devices!.join(', ')}] are one sub-group along ${names.join(' × ')} of the mesh on [${devices.join(', ')}], but no ${first.directive.op} like it covers [${all[missing]!.map((r) => devices[r]).join(', ')}]: every sub-group of an SPMD group runs alike`,
      });
    const d = first.directive as Collective;
    merged.set(set.first, { ...d, devices: [...devices], axis: names } as Directive);
  }
  return program.flatMap((e, i) =>
    drop.has(i) ? [] : merged.has(i) ? [{ ...e, directive: merged.get(i)! }] : [e],
  );
}

/** The sub-group a device list is, if it is one (not a whole mesh): its mesh, axes and index. */
function subgroupOfList(
  list: readonly number[],
  meshes: readonly PlacedMesh[],
  at: ReadonlyMap<number, { mesh: number; rank: number }>,
): { mesh: number; mask: number; index: number } | undefined {
  const where = list.map((d) => at.get(d));
  const m = where[0]?.mesh;
  if (m === undefined || where.some((w) => w?.mesh !== m)) return undefined;
  const { mesh, devices } = meshes[m]!;
  if (list.length === devices.length) return undefined;
  // The axes the listed members' coordinates vary along.
  const coords = where.map((w) => meshCoords(mesh, w!.rank));
  let mask = 0;
  for (let a = 0; a < mesh.axes.length; a++) if (coords.some((c) => c[a] !== coords[0]![a])) mask |= 1 << a;
  if (mask === 0) return undefined;
  const sub = subgroupOf(mesh, mask, where[0]!.rank);
  const want = new Set(sub.ranks);
  if (sub.ranks.length !== list.length || !where.every((w) => want.has(w!.rank))) return undefined;
  return { mesh: m, mask, index: sub.index };
}
