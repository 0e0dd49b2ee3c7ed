/**
 * The layout of a plan read from its instruction objects: a plan loaded from a file, copied or
 * edited, which says nothing about itself but its ids. Every reference is resolved here, and what
 * does not resolve is an issue with the path of the instruction (and field) at fault.
 *
 * Resolving string ids is most of the cost, so the common cases avoid hashing: waits are found
 * by scanning a small window after a cursor per stream (waitLookup.ts), and a channel's SENDs and
 * RECVs pair in order (transferPairs.ts); a Map is built only where those guesses fail.
 */
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import { type CollectiveFacts, groupCollectives } from './collectiveGroups.ts';
import { DeviceIndex } from './deviceIndex.ts';
import type { IssueList } from './issueList.ts';
import type { CollectiveInstruction, Instruction, Plan } from './plan.ts';
import {
  assembleLayout,
  instructionOf,
  type PlanLayout,
  type UnitPlacement,
  unitPath,
} from './planLayout.ts';
import { pairTransfers } from './transferPairs.ts';
import { unitKindOf } from './unitKind.ts';
import { deviceWaitLookup } from './waitLookup.ts';

/**
 * The layout of `plan`, with what does not resolve in `issues`; undefined when a device appears
 * twice (then no id can be resolved on "its" device). `arrays`: where the layout's arrays come
 * from; `scratch`: the build's own.
 */
export function layoutFromObjects(
  plan: Plan,
  issues: IssueList,
  arrays: ArraySource = FRESH,
  scratch: ArraySource = arrays,
): PlanLayout | undefined {
  const devices = DeviceIndex.of(plan, issues);
  if (devices === undefined) return undefined;
  const devs = plan.devices;
  const D = devs.length;
  let N = 0;
  let S = 0;
  for (const dp of devs)
    for (const sp of dp.streams) {
      S++;
      N += sp.instructions.length;
    }
  const instructions: Instruction[] = new Array(N);
  // Ids read once into an array of strings: the lookups compare many of them.
  const idOf: string[] = new Array(N);
  const transfer: string[] = new Array(N);
  const deviceStreams = new Int32Array(D + 1);
  const streamStart = new Int32Array(S + 1);
  const unitStream = arrays.int32(N);
  const streamDev = new Int32Array(S);
  const kind = arrays.uint8(N);
  const peerIndex = arrays.int32(N, -1);
  const u: UnitPlacement = {
    plan,
    N,
    S,
    D,
    deviceStreams,
    streamStart,
    unitStream,
    streamDev,
    kind,
    instructions,
  };

  let W = 0;
  let v = 0;
  let s = 0;
  for (let di = 0; di < D; di++) {
    deviceStreams[di] = s;
    for (const sp of devs[di]!.streams) {
      streamStart[s] = v;
      streamDev[s] = di;
      const list = sp.instructions;
      for (let k = 0; k < list.length; k++, v++) {
        const x = list[k]!;
        instructions[v] = x;
        idOf[v] = x.id;
        unitStream[v] = s;
        kind[v] = unitKindOf(x);
        W += x.waits.length;
        if (x.op === 'OVERLAP') for (const m of x.members) W += m.waits.length;
        else if (x.op === 'SEND' || x.op === 'RECV') {
          transfer[v] = x.transfer;
          const pi = devices.indexOf(x.peer);
          if (pi < 0)
            issues.add(
              unitPath(u, v, 'peer'),
              `${x.id} names peer device ${x.peer}, which is not in the plan`,
            );
          peerIndex[v] = pi;
        }
      }
      s++;
    }
  }
  streamStart[S] = N;
  deviceStreams[D] = S;

  // Waits → unit indices. Ids are unique per device (validation checks it); with duplicates a
  // wait resolves to one of them.
  const waitOff = arrays.int32(N + 1);
  const waitTgt = arrays.int32(W);
  const streams = { idOf, streamStart, unitStream, cursor: scratch.int32(S) };
  const { cursor } = streams;
  let w = 0;
  for (let di = 0; di < D; di++) {
    const s0 = deviceStreams[di]!;
    const s1 = deviceStreams[di + 1]!;
    const here = devs[di]!.device;
    const lookup = deviceWaitLookup(streams, s0, s1, () => idMap(instructions, streamStart, s0, s1));
    for (let st = s0; st < s1; st++) {
      for (let ts = s0; ts < s1; ts++) cursor[ts] = streamStart[ts]!;
      let last = st;
      for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++) {
        waitOff[v] = w;
        const x = instructions[v]!;
        const waits = x.waits;
        for (let j = 0; j < waits.length; j++) {
          const t = lookup(waits[j]!, last);
          if (t < 0) issues.add(unitPath(u, v, `waits[${j}]`), unknownWait(x.id, waits[j]!, here));
          else {
            waitTgt[w++] = t;
            last = unitStream[t]!;
          }
        }
        if (x.op === 'OVERLAP')
          for (let mi = 0; mi < x.members.length; mi++) {
            const m = x.members[mi]!;
            for (let j = 0; j < m.waits.length; j++) {
              const t = lookup(m.waits[j]!, last);
              if (t < 0)
                issues.add(
                  unitPath(u, v, `members[${mi}].waits[${j}]`),
                  unknownWait(m.id, m.waits[j]!, here),
                );
              // A member waiting for a sibling: they run as one unit.
              else if (t !== v) waitTgt[w++] = t;
            }
          }
      }
    }
  }
  waitOff[N] = w;

  const pairs = pairTransfers(u, peerIndex, transfer, issues, arrays, scratch);
  const groups = groupCollectives(u, objectFacts(u), devices, issues, arrays);
  return assembleLayout(u, { waitOff, waitTgt, peerIndex }, pairs, groups, undefined, undefined);
}

function unknownWait(id: string, wait: string, device: number): string {
  return `${id} waits for ${wait}, which device ${device} never runs`;
}

/** Id → unit over one device's streams, overlapped members' ids included; the first of duplicate ids wins. */
function idMap(
  instructions: readonly Instruction[],
  streamStart: Int32Array,
  s0: number,
  s1: number,
): Map<string, number> {
  const ids = new Map<string, number>();
  for (let v = streamStart[s1]! - 1; v >= streamStart[s0]!; v--) {
    const x = instructions[v]!;
    if (x.op === 'OVERLAP') for (const m of x.members) ids.set(m.id, v);
    ids.set(x.id, v);
  }
  return ids;
}

function objectFacts(u: UnitPlacement): CollectiveFacts {
  const at = (v: number) => instructionOf(u, v) as CollectiveInstruction;
  return {
    key: (v) => at(v).collective,
    devices: (v) => at(v).devices,
    op: (v) => at(v).op,
    bytes: (v) => at(v).bytes,
  };
}
