/**
 * Device meshes (design format @3). A group that `place` puts on a mesh is still one SPMD program:
 * its members, listed row-major over the mesh (the last axis varying fastest), run the same
 * instructions. What the mesh adds is named axes, so a collective can run over some axes only:
 * tensor parallelism over `tp` is one all-reduce per set of members that agree on every other
 * coordinate (a sub-group), data parallelism over `dp` another partition of the same members. Each
 * member issues every collective of its program in one order, so every sub-group's members do too.
 */
import * as z from 'zod';

const axisName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'axis names are lower case, e.g. "dp", "tp"')
  .max(32);

/** A nested list of devices, one level per axis. */
type NestedDevices = number | NestedDevices[];
const nestedDevices: z.ZodType<NestedDevices> = z.lazy(() =>
  z.union([z.number().int().min(0), z.array(nestedDevices).min(1).max(1_000_000)]),
);

/**
 * A mesh as a design writes it: named axes over either a nested list of devices (one level per
 * axis) or a shape laid over the device range from `start` (row-major, or with explicit `strides`,
 * e.g. Llama 3's stage s over dp × tp is start 8s, strides [128, 1]).
 */
export const meshSchema = z
  .strictObject({
    axes: z.array(axisName).min(1).max(8),
    shape: z.array(z.number().int().min(1)).min(1).max(8).optional(),
    start: z.number().int().min(0).optional(),
    strides: z.array(z.number().int().min(0)).min(1).max(8).optional(),
    devices: nestedDevices.optional(),
  })
  .superRefine((m, ctx) => {
    if (new Set(m.axes).size !== m.axes.length)
      ctx.addIssue({ code: 'custom', path: ['axes'], message: 'an axis is named twice' });
    if ((m.shape === undefined) === (m.devices === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'a mesh gives either "shape" (over a device range) or "devices" (a nested list), not both',
      });
      return;
    }
    if (m.shape !== undefined && m.shape.length !== m.axes.length)
      ctx.addIssue({
        code: 'custom',
        path: ['shape'],
        message: `${m.shape.length} sizes for ${m.axes.length} axes`,
      });
    if (m.strides !== undefined && m.strides.length !== m.axes.length)
      ctx.addIssue({
        code: 'custom',
        path: ['strides'],
        message: `${m.strides.length} strides for ${m.axes.length} axes`,
      });
    if (m.devices !== undefined && (m.start !== undefined || m.strides !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['devices'],
        message: '"start" and "strides" go with "shape", not with a list of devices',
      });
  });
export type MeshSpec = z.infer<typeof meshSchema>;

/** A group's mesh in the DAG and the plan: axis names and sizes; the group lists its members row-major. */
export interface GroupMesh {
  readonly axes: readonly string[];
  readonly shape: readonly number[];
}

export const groupMeshSchema = z.strictObject({
  axes: z.array(z.string()).min(1),
  shape: z.array(z.number().int().min(1)).min(1),
});

/** The devices of a mesh spec, row-major, and its shape; or the problem (with a path inside the spec). */
export function meshDevices(
  spec: MeshSpec,
):
  | { ok: true; devices: number[]; mesh: GroupMesh }
  | { ok: false; path: (string | number)[]; message: string } {
  if (spec.shape !== undefined) {
    const shape = spec.shape;
    const strides = spec.strides ?? rowMajorStrides(shape);
    const start = spec.start ?? 0;
    const size = shape.reduce((a, b) => a * b, 1);
    if (size > 1_000_000) return { ok: false, path: ['shape'], message: `${size} devices is too many` };
    const devices = new Array<number>(size);
    for (let r = 0; r < size; r++) {
      let rest = r;
      let d = start;
      for (let a = shape.length - 1; a >= 0; a--) {
        d += (rest % shape[a]!) * strides[a]!;
        rest = Math.floor(rest / shape[a]!);
      }
      devices[r] = d;
    }
    return { ok: true, devices, mesh: { axes: [...spec.axes], shape: [...shape] } };
  }
  const shape: number[] = [];
  const devices: number[] = [];
  const walk = (v: NestedDevices, depth: number, path: (string | number)[]): string | undefined => {
    if (depth === spec.axes.length) {
      if (typeof v !== 'number') return `expected a device number at depth ${depth} (one level per axis)`;
      devices.push(v);
      return undefined;
    }
    if (!Array.isArray(v))
      return `expected a list at depth ${depth} (one level per axis: ${spec.axes.join(', ')})`;
    if (shape[depth] === undefined) shape[depth] = v.length;
    else if (shape[depth] !== v.length)
      return `${v.length} entries where the rest of the mesh has ${shape[depth]} along axis "${spec.axes[depth]}"`;
    for (let k = 0; k < v.length; k++) {
      const bad = walk(v[k]!, depth + 1, [...path, k]);
      if (bad !== undefined) {
        errPath = errPath ?? [...path, k];
        return bad;
      }
    }
    return undefined;
  };
  let errPath: (string | number)[] | undefined;
  const bad = walk(spec.devices!, 0, ['devices']);
  if (bad !== undefined) return { ok: false, path: errPath ?? ['devices'], message: bad };
  return { ok: true, devices, mesh: { axes: [...spec.axes], shape } };
}

function rowMajorStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let k = 1;
  for (let a = shape.length - 1; a >= 0; a--) {
    s[a] = k;
    k *= shape[a]!;
  }
  return s;
}

/** Coordinates of the member at `rank` (row-major). */
export function meshCoords(mesh: GroupMesh, rank: number): number[] {
  const c = new Array<number>(mesh.shape.length);
  let rest = rank;
  for (let a = mesh.shape.length - 1; a >= 0; a--) {
    c[a] = rest % mesh.shape[a]!;
    rest = Math.floor(rest / mesh.shape[a]!);
  }
  return c;
}

/** Bit a of the mask for each axis named; the unknown names, if any. */
export function axisMask(mesh: GroupMesh, names: readonly string[]): { mask: number; unknown: string[] } {
  let mask = 0;
  const unknown: string[] = [];
  for (const n of names) {
    const a = mesh.axes.indexOf(n);
    if (a < 0) unknown.push(n);
    else mask |= 1 << a;
  }
  return { mask, unknown };
}

/** Members of one sub-group: the product of the sizes of the masked axes. */
export function subgroupSize(mesh: GroupMesh, mask: number): number {
  let n = 1;
  for (let a = 0; a < mesh.shape.length; a++) if (mask & (1 << a)) n *= mesh.shape[a]!;
  return n;
}

/**
 * The sub-group over the masked axes holding the member at `rank`: its index (row-major over the
 * other axes, so sub-groups are numbered alike on every member) and its members' ranks, row-major
 * over the masked axes, which is the order every member lists them in.
 */
export function subgroupOf(mesh: GroupMesh, mask: number, rank: number): { index: number; ranks: number[] } {
  const coords = meshCoords(mesh, rank);
  const A = mesh.shape.length;
  let index = 0;
  for (let a = 0; a < A; a++) if (!(mask & (1 << a))) index = index * mesh.shape[a]! + coords[a]!;
  const ranks: number[] = [];
  const c = [...coords];
  const masked: number[] = [];
  for (let a = 0; a < A; a++) if (mask & (1 << a)) masked.push(a);
  const n = subgroupSize(mesh, mask);
  for (let k = 0; k < n; k++) {
    let rest = k;
    for (let j = masked.length - 1; j >= 0; j--) {
      const a = masked[j]!;
      c[a] = rest % mesh.shape[a]!;
      rest = Math.floor(rest / mesh.shape[a]!);
    }
    let r = 0;
    for (let a = 0; a < A; a++) r = r * mesh.shape[a]! + c[a]!;
    ranks.push(r);
  }
  return { index, ranks };
}

/** Every sub-group over the masked axes, by index: their members' ranks. */
export function subgroupsOf(mesh: GroupMesh, mask: number): number[][] {
  // The sub-group of rank 0 is every sub-group's pattern, shifted by the first member's offset:
  // one per combination of the coordinates off the mask, found from rank 0's without search.
  const base = subgroupOf(mesh, mask, 0).ranks;
  const size = mesh.shape.reduce((a, b) => a * b, 1);
  const out: number[][] = [];
  const seen = new Uint8Array(size);
  for (let r = 0; r < size; r++) {
    if (seen[r]) continue;
    // r is the first member of its sub-group (row-major, so its masked coordinates are all 0).
    const ranks = base.map((b) => b + r);
    for (const x of ranks) seen[x] = 1;
    out[subgroupOf(mesh, mask, r).index] = ranks;
  }
  return out;
}

/**
 * The label of a sub-group: the coordinates its members share, e.g. `dp=1` for a tensor-parallel
 * sub-group of a dp × tp mesh. Collective keys carry it, so each sub-group's instruction is its own.
 */
export function subgroupLabel(mesh: GroupMesh, mask: number, rank: number): string {
  const coords = meshCoords(mesh, rank);
  const parts: string[] = [];
  for (let a = 0; a < mesh.shape.length; a++)
    if (!(mask & (1 << a))) parts.push(`${mesh.axes[a]}=${coords[a]}`);
  return parts.join(',');
}

/** A member's place in its mesh for labels, e.g. `dp 1 · tp 3`. */
export function meshLabel(mesh: GroupMesh, rank: number): string {
  const coords = meshCoords(mesh, rank);
  return mesh.axes.map((a, k) => `${a} ${coords[k]}`).join(' · ');
}

/** Every member of a mesh at once, e.g. `dp 0–63 · tp 0–7`: the label of a group lowered once. */
export function meshRangeLabel(mesh: GroupMesh): string {
  return mesh.axes
    .map((a, k) => (mesh.shape[k] === 1 ? `${a} 0` : `${a} 0–${mesh.shape[k]! - 1}`))
    .join(' · ');
}

/** Whether two meshes have the same axes and sizes (member r of one then faces member r of the other). */
export function sameMesh(a: GroupMesh | null | undefined, b: GroupMesh | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.axes.join(',') === b.axes.join(',') && a.shape.join(',') === b.shape.join(',');
}

/** "dp2×tp8" for messages. */
export function meshName(mesh: GroupMesh): string {
  return mesh.axes.map((a, k) => `${a}${mesh.shape[k]}`).join('×');
}
