/**
 * The rules validation adds to what building a layout already checks (planLayout.ts), each with
 * its one message and the path of the instruction at fault: ids unique per device; every wait on
 * another stream of the device or earlier on its own; SEND/RECV in the same order on both ends of
 * a channel; the members of a collective group issuing the group's collectives in one order;
 * and no wait cycle (deadlock), which is named. The simulator runs plans that break these (they
 * deadlock or resolve a duplicate id to one of its instructions); a runtime needs them.
 */
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import { nameOf } from './collectiveGroups.ts';
import type { IssueList } from './issueList.ts';
import type { P2PInstruction } from './plan.ts';
import { deviceIndexOf, deviceOf, instructionOf, type PlanLayout, unitPath } from './planLayout.ts';
import { UNIT_RECV, UNIT_SEND } from './unitKind.ts';
import { waitCycleIssue, waitsAcyclic } from './waitCycle.ts';

/**
 * Adds the issues of `layout` (built without issues of its own) to `issues`. `uniqueIds`: the
 * caller guarantees ids unique per device (a compiled plan's are its DAG's node ids), which skips
 * the one check that hashes every id.
 */
export function planIssues(
  layout: PlanLayout,
  issues: IssueList,
  uniqueIds: boolean,
  scratch: ArraySource = FRESH,
): void {
  if (!uniqueIds) duplicateIds(layout, issues);
  if (issues.count > 0) return;
  waitPlaces(layout, issues);
  for (const r of layout.recvsOutOfOrder) transferOrder(layout, r, issues);
  collectiveOrder(layout, issues);
  if (issues.count > 0) return;
  if (!waitsAcyclic(layout, scratch)) waitCycleIssue(layout, issues);
}

function duplicateIds(layout: PlanLayout, issues: IssueList): void {
  const { D, deviceStreams, streamStart } = layout;
  for (let di = 0; di < D; di++) {
    const seen = new Set<string>();
    for (let v = streamStart[deviceStreams[di]!]!; v < streamStart[deviceStreams[di + 1]!]!; v++) {
      const id = instructionOf(layout, v).id;
      if (seen.has(id))
        issues.add(unitPath(layout, v), `id ${id} is used twice on device ${deviceOf(layout, v)}`);
      seen.add(id);
    }
  }
}

/** Every wait names a unit of the waiting unit's device, and not itself or a later one on its stream. */
function waitPlaces(layout: PlanLayout, issues: IssueList): void {
  const { D, deviceStreams, streamStart, waitOff, waitTgt } = layout;
  // Units are laid out device by device, stream by stream: both rules are ranges of unit indices.
  for (let di = 0; di < D; di++) {
    const first = streamStart[deviceStreams[di]!]!;
    const end = streamStart[deviceStreams[di + 1]!]!;
    for (let st = deviceStreams[di]!; st < deviceStreams[di + 1]!; st++) {
      const streamEnd = streamStart[st + 1]!;
      for (let v = streamStart[st]!; v < streamEnd; v++)
        for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) {
          const t = waitTgt[j]!;
          if (t >= first && t < end && !(t >= v && t < streamEnd)) continue;
          const id = instructionOf(layout, v).id;
          const named = instructionOf(layout, t).id;
          issues.add(
            unitPath(layout, v),
            t >= v && t < streamEnd
              ? `${id} waits for ${named}, which comes after it on the same stream`
              : `${id} waits for ${named}, which device ${deviceOf(layout, v)} never runs`,
          );
        }
    }
  }
}

/** RECV r is the k-th of its channel but its SEND is not the channel's k-th. */
function transferOrder(layout: PlanLayout, r: number, issues: IssueList): void {
  const { kind, peerIndex } = layout;
  const sender = peerIndex[r]!;
  const receiver = deviceIndexOf(layout, r);
  let k = 0;
  for (let v = 0; v < r; v++)
    if (kind[v] === UNIT_RECV && deviceIndexOf(layout, v) === receiver && peerIndex[v] === sender) k++;
  let kth: string | undefined;
  for (let v = 0, n = 0; v < layout.N && kth === undefined; v++)
    if (
      kind[v] === UNIT_SEND &&
      deviceIndexOf(layout, v) === sender &&
      peerIndex[v] === receiver &&
      n++ === k
    )
      kth = (instructionOf(layout, v) as P2PInstruction).transfer;
  const x = instructionOf(layout, r) as P2PInstruction;
  issues.add(
    unitPath(layout, r),
    `${x.id} is receive #${k + 1} from device ${x.peer} but that device's send #${k + 1} is ${kth ?? 'missing'}: SEND/RECV between two devices must match in order`,
  );
}

/**
 * Per set of devices, every member device plan issues the set's collectives in one order: the
 * first member's. (Building the layout proved each group issued once by each member.)
 */
function collectiveOrder(layout: PlanLayout, issues: IssueList): void {
  const { N, plan, collGroup, groupDevices } = layout;
  if (groupDevices.length === 0) return;
  // Collectives of one set usually share their devices array: its key is made once.
  const setKeyOf = new Map<readonly number[], string>();
  const seqs = new Map<string, Map<number, number[]>>(); // set → device → units in order
  for (let v = 0; v < N; v++) {
    const g = collGroup[v]!;
    if (g < 0) continue;
    const devices = groupDevices[g]!;
    let set = setKeyOf.get(devices);
    if (set === undefined) setKeyOf.set(devices, (set = [...devices].sort((a, b) => a - b).join(',')));
    let perDev = seqs.get(set);
    if (!perDev) seqs.set(set, (perDev = new Map()));
    const device = plan.devices[deviceIndexOf(layout, v)]!.device;
    let seq = perDev.get(device);
    if (!seq) perDev.set(device, (seq = []));
    seq.push(v);
  }
  // A group lowered once issues its collectives for all its replicas.
  const repOf = new Map<number, number>();
  for (const dev of plan.devices) for (const r of dev.replicas ?? []) repOf.set(r, dev.device);
  for (const [set, perDev] of seqs) {
    const members = [...new Set(set.split(',').map((m) => repOf.get(Number(m)) ?? Number(m)))];
    const ref = perDev.get(members[0]!) ?? [];
    for (const m of members) {
      const seq = perDev.get(m) ?? [];
      const n = Math.max(seq.length, ref.length);
      for (let k = 0; k < n; k++) {
        const a = seq[k];
        const b = ref[k];
        if (a !== undefined && b !== undefined && collGroup[a] === collGroup[b]) continue;
        issues.add(
          unitPath(layout, (a ?? b)!),
          `collective #${k + 1} of group [${set}] is ${a === undefined ? 'missing' : nameOf(layout, a)} on device ${m} but ${b === undefined ? 'missing' : nameOf(layout, b)} on device ${members[0]}: members must issue collectives in the same order`,
        );
        break;
      }
    }
  }
}
