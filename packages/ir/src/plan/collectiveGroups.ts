/**
 * Collective units → collective groups, the one place a plan's collectives are matched: units with
 * equal keys (the `collective` string, or the DAG node of a compiled plan) are one joint step,
 * whose members are device plans (a group lowered once issues for all its replicas). Each group
 * must be issued once by every device plan it lists, with one op, size and set of devices; what
 * breaks that is an issue here, for every reader. Whether members issue their groups in the same
 * order is validation's to check (planIssues.ts): the simulator runs such a plan into a deadlock.
 */
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import type { DeviceIndex } from './deviceIndex.ts';
import type { IssueList } from './issueList.ts';
import type { CollectiveInstruction } from './plan.ts';
import { deviceIndexOf, deviceOf, instructionOf, type UnitPlacement, unitPath } from './planLayout.ts';
import { UNIT_COLLECTIVE } from './unitKind.ts';

/** What a collective unit says, read from its instruction or from a compiled plan's columns. */
export interface CollectiveFacts {
  /** Equal keys: the same collective. */
  key(v: number): unknown;
  devices(v: number): readonly number[];
  op(v: number): CollectiveInstruction['op'];
  bytes(v: number): number;
}

export interface CollectiveGroups {
  readonly collGroup: Int32Array;
  readonly groupOff: Int32Array;
  readonly groupUnits: Int32Array;
  readonly groupDevices: (readonly number[])[];
  readonly groupOp: CollectiveInstruction['op'][];
  readonly groupBytes: Float64Array;
}

export function groupCollectives(
  u: UnitPlacement,
  facts: CollectiveFacts,
  devices: DeviceIndex,
  issues: IssueList,
  arrays: ArraySource = FRESH,
): CollectiveGroups {
  const { N, kind } = u;
  const collGroup = arrays.int32(N, -1);
  const groupOfKey = new Map<unknown, number>();
  const groupCount: number[] = [];
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_COLLECTIVE) continue;
    const key = facts.key(v);
    let g = groupOfKey.get(key);
    if (g === undefined) {
      g = groupCount.length;
      groupOfKey.set(key, g);
      groupCount.push(0);
    }
    collGroup[v] = g;
    groupCount[g]!++;
  }
  const G = groupCount.length;
  const groupOff = new Int32Array(G + 1);
  // No collective (a pipeline alone): no second sweep over every unit.
  if (G === 0)
    return {
      collGroup,
      groupOff,
      groupUnits: new Int32Array(0),
      groupDevices: [],
      groupOp: [],
      groupBytes: new Float64Array(0),
    };
  for (let g = 0; g < G; g++) groupOff[g + 1] = groupOff[g]! + groupCount[g]!;
  const groupUnits = new Int32Array(groupOff[G]!);
  {
    const fill = groupOff.slice(0, G);
    for (let v = 0; v < N; v++) if (collGroup[v]! >= 0) groupUnits[fill[collGroup[v]!]!++] = v;
  }
  const groupDevices: (readonly number[])[] = new Array(G);
  const groupOp: CollectiveInstruction['op'][] = new Array(G);
  const groupBytes = new Float64Array(G);
  // Groups usually share one devices array per device group: check it once per array.
  const checked = new Map<readonly number[], { listed: Set<number>; plans: number[]; ok: boolean }>();
  for (let g = 0; g < G; g++) {
    const head = groupUnits[groupOff[g]!]!;
    const firstOp = facts.op(head);
    const firstBytes = facts.bytes(head);
    const firstDevices = facts.devices(head);
    groupOp[g] = firstOp;
    groupBytes[g] = firstBytes;
    groupDevices[g] = firstDevices;
    let c = checked.get(firstDevices);
    if (!c) {
      const listed = new Set<number>();
      const plans = new Set<number>();
      let fine = true;
      for (const d of firstDevices) {
        if (listed.has(d) || devices.indexOf(d) < 0) {
          issues.add(
            unitPath(u, head, 'devices'),
            listed.has(d) ? `device ${d} is listed twice` : `device ${d} is not in the plan`,
          );
          fine = false;
        }
        listed.add(d);
        plans.add(devices.indexOf(d));
      }
      c = { listed, plans: [...plans], ok: fine };
      checked.set(firstDevices, c);
    }
    const listed = c.listed;
    let ok = c.ok;
    const issued = new Set<number>();
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
      const v = groupUnits[j]!;
      const here = deviceOf(u, v);
      if (issued.has(deviceIndexOf(u, v))) {
        issues.add(unitPath(u, v), `collective "${nameOf(u, head)}" is issued twice on device ${here}`);
        ok = false;
      }
      issued.add(deviceIndexOf(u, v));
      const own = facts.devices(v);
      if (!(own === firstDevices ? listed.has(here) : own.includes(here))) {
        const x = instructionOf(u, v) as CollectiveInstruction;
        issues.add(
          unitPath(u, v, 'devices'),
          `${x.id} runs on device ${here}, which is not in its group [${own.join(', ')}]`,
        );
        ok = false;
      } else if (
        facts.op(v) !== firstOp ||
        facts.bytes(v) !== firstBytes ||
        (own !== firstDevices && !sameSet(own, listed))
      ) {
        issues.add(
          unitPath(u, v),
          `collective "${nameOf(u, head)}" disagrees with ${unitPath(u, head)} on op, bytes or devices`,
        );
        ok = false;
      }
    }
    if (ok)
      for (const di of c.plans)
        if (di >= 0 && !issued.has(di))
          issues.add(
            unitPath(u, head),
            `device ${u.plan.devices[di]!.device} is a member of collective "${nameOf(u, head)}" but never issues it: the collective would hang`,
          );
  }
  return { collGroup, groupOff, groupUnits, groupDevices, groupOp, groupBytes };
}

/** The collective's key as the plan writes it, for messages. */
export function nameOf(u: UnitPlacement, v: number): string {
  return (instructionOf(u, v) as CollectiveInstruction).collective;
}

function sameSet(list: readonly number[], set: ReadonlySet<number>): boolean {
  if (list.length !== set.size) return false;
  for (const d of list) if (!set.has(d)) return false;
  return true;
}
