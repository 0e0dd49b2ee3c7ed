/**
 * What the timeline reads of a plan: each device's stages and streams in order (its lanes), and
 * the instructions it looks details up in. A Plan is one. So is an outline whose streams keep only
 * the instructions a first frame draws from, the plan's other instructions following later.
 */
import { type GroupMesh, type Instruction, PlanView } from '@stagecraft/ir';

export interface TimelinePlan {
  readonly devices: readonly {
    readonly device: number;
    readonly stages: readonly number[];
    /** Its group and, for a group lowered once, the devices it stands for (mesh labels read them). */
    readonly group?: number;
    readonly replicas?: readonly number[];
    readonly streams: readonly { readonly stream: string; readonly instructions: readonly Instruction[] }[];
  }[];
  /** The groups and, for a plan@3, their meshes: a band's label gives its mesh coordinates. */
  readonly groups?: readonly (readonly number[])[];
  readonly meshes?: readonly (GroupMesh | null)[];
  /** SEND id → RECV id of each transfer, for an outline that leaves the SENDs and RECVs out. */
  readonly transfers?: ReadonlyMap<string, string>;
}

/**
 * The plan cut to its lanes, its overlapped units (their members' tags colour and label the units)
 * and its transfers (the arrows): a result's first frame draws from this; op details need the
 * whole plan.
 */
export function planOutline(plan: TimelinePlan): TimelinePlan {
  return {
    ...(plan.meshes ? { groups: plan.groups, meshes: plan.meshes } : {}),
    devices: plan.devices.map((d) => ({
      device: d.device,
      stages: d.stages,
      // Mesh labels and the range's bubble read them (rangeReading.ts).
      group: d.group,
      ...(d.replicas ? { replicas: d.replicas } : {}),
      streams: d.streams.map((s) => ({
        stream: s.stream,
        instructions: s.instructions.filter((i) => i.op === 'OVERLAP'),
      })),
    })),
    transfers: new PlanView(plan).transfers,
  };
}

/**
 * The device group an op of `device` runs on, when that group is a mesh: its members (row-major)
 * and its mesh, so a palette drop on a timeline op can ask which axis. Undefined for a flat group
 * (a drop then targets the op's own device, as it always has).
 */
export function meshGroupOf(
  plan: TimelinePlan,
  device: number,
): { devices: readonly number[]; mesh: GroupMesh } | undefined {
  if (!plan.meshes || !plan.groups) return undefined;
  const lane = new PlanView(plan).deviceOf(device);
  const group = lane?.group;
  if (group === undefined || group < 0) return undefined;
  const mesh = plan.meshes[group];
  const devices = plan.groups[group];
  return mesh && devices ? { devices, mesh } : undefined;
}
