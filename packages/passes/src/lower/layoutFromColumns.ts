/**
 * The layout of a compiled plan from the columns its lowering wrote (planColumns.ts): waits are
 * unit indices already and ids unique by construction, so nothing is looked up and no
 * instruction object is made (a compiled plan makes them only when something reads them). The
 * pairs and collective groups still go through the shared rules (transferPairs.ts,
 * collectiveGroups.ts); where one fails, the columns cannot tell what the objects say (equal
 * transfer names may have different numbers here), so the answer is no layout and the plan is
 * read from its objects, which names what is wrong.
 */
import {
  type ArraySource,
  assembleLayout,
  type CollectiveFacts,
  type CollectiveInstruction,
  DeviceIndex,
  FRESH,
  groupCollectives,
  IssueList,
  NODE_OPS,
  type Plan,
  type PlanColumns,
  type PlanLayout,
  pairTransfers,
  type UnitPlacement,
} from '@stagecraft/ir';

/** `scratch`: where the build's own arrays come from; the layout's are fresh (a compiled plan keeps them). */
export function layoutFromColumns(
  plan: Plan,
  c: PlanColumns,
  scratch: ArraySource = FRESH,
): PlanLayout | undefined {
  const issues = new IssueList(1);
  const devices = DeviceIndex.of(plan, issues);
  if (devices === undefined) return undefined;
  const { N, S, D, deviceStreams, streamStart } = c;
  const streamDev = new Int32Array(S);
  for (let di = 0; di < D; di++) streamDev.fill(di, deviceStreams[di]!, deviceStreams[di + 1]!);
  const u: UnitPlacement = {
    plan,
    N,
    S,
    D,
    deviceStreams,
    streamStart,
    unitStream: c.unitStream,
    streamDev,
    kind: c.kind,
    instructions: undefined,
  };
  const pairs = pairTransfers(u, c.peerIndex, c.transferKey, issues, FRESH, scratch);
  if (issues.count > 0) return undefined;
  const groups = groupCollectives(u, columnFacts(c), devices, issues);
  if (issues.count > 0) return undefined;
  const refs = { waitOff: c.waitOff, waitTgt: c.waitTgt, peerIndex: c.peerIndex };
  return assembleLayout(u, refs, pairs, groups, c.rank, c);
}

/**
 * A collective's facts from the columns: its key is its DAG node (the units of one node are one
 * collective), and its sub-group's index for a collective over mesh axes.
 */
function columnFacts(c: PlanColumns): CollectiveFacts {
  const { node, costs } = c;
  const sub = c.subgroup;
  return {
    key:
      sub === undefined || sub.size === 0
        ? (v) => node[v]
        : (v) => {
            const k = sub.get(v);
            return k === undefined ? node[v] : `${node[v]}/${k}`;
          },
    devices: (v) => c.devices.get(v) ?? [],
    op: (v) => NODE_OPS[costs.op[node[v]!]!] as CollectiveInstruction['op'],
    bytes: (v) => costs.bytes[node[v]!]!,
  };
}
