/**
 * What each unit of a laid-out plan takes and holds: its duration under the cost model, its memory
 * effects, and per device the time its compute units keep it busy. A compiled plan says this in
 * its columns (the DAG's node columns and the model's costs per op: no instruction object is
 * read); any other plan in its instruction objects. The two readers compute the same numbers,
 * field for field, and report a duration or memory effect that is not a finite non-negative
 * number with one text.
 */
import {
  type ArraySource,
  COST_STRIDE,
  type IssueList,
  OP_OFFLOAD,
  OP_UPD,
  type PlanColumns,
  type PlanLayout,
  UNIT_COLLECTIVE,
  UNIT_MEMORY,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
  type UnitCosts,
  unitPath,
} from '@stagecraft/ir';
import { type CostCluster, computeMs, computeMsOf, hostTransferMs, p2pMs } from './costModel.ts';

export interface UnitTimes {
  /** Duration in ms (0 for RECV and collectives, whose time comes from their partners). */
  dur: Float64Array;
  allocB: Float64Array;
  freeB: Float64Array;
  /** Per device index: Σ durations of its compute and OVERLAP units. */
  busy: Float64Array;
  /** SEND/RECV: the device number of its peer, which its link cost depends on (−1 elsewhere). */
  peer: Int32Array;
  /** Instructions, each member of an overlapped unit counted (the plan's ops). */
  ops: number;
}

const finite = (x: number) => x >= 0 && x < Number.POSITIVE_INFINITY;

function checkUnit(layout: PlanLayout, v: number, d: number, a: number, f: number, issues: IssueList): void {
  if (!finite(d)) issues.add(unitPath(layout, v), `duration ${d} ms is not a finite non-negative number`);
  if (!finite(a) || !finite(f))
    issues.add(unitPath(layout, v), 'memory effects must be finite non-negative byte counts');
}

/** A compiled plan's units, from its columns. */
export function timesFromColumns(
  layout: PlanLayout,
  c: PlanColumns,
  cost: CostCluster,
  issues: IssueList,
  arrays: ArraySource,
): UnitTimes {
  const { N, D, deviceStreams, streamStart, kind, plan } = layout;
  const { node, costs } = c;
  // Every column is a local: a process's first simulation runs this loop interpreted for most of
  // its length (docs/performance.md, the cold run), where a property read per unit costs as much
  // as the unit's own work.
  const { op, block, alloc, free, bytes, ms: opMs } = costs;
  const peerGroup = costs.peer;
  const groups = plan.groups;
  const t = emptyTimes(N, D, arrays);
  const { dur, allocB, freeB, peer } = t;
  let ops = N;
  for (let di = 0; di < D; di++) {
    const dp = plan.devices[di]!;
    const here = dp.device;
    // A SEND/RECV's peer: the member of this device's rank in its peer group.
    const rank = dp.group >= 0 ? groups[dp.group]!.indexOf(here) : -1;
    let busyMs = 0;
    for (let v = streamStart[deviceStreams[di]!]!, end = streamStart[deviceStreams[di + 1]!]!; v < end; v++) {
      const i = node[v]!;
      let d = 0;
      switch (kind[v]) {
        case UNIT_SEND:
          peer[v] = groups[peerGroup[i]!]![rank]!;
          d = p2pMs(cost, here, peer[v]!, bytes[i]!);
          break;
        case UNIT_RECV:
          peer[v] = groups[peerGroup[i]!]![rank]!;
          break;
        case UNIT_COLLECTIVE:
          break;
        case UNIT_MEMORY:
          d = hostTransferMs(cost, bytes[i]!);
          if (op[i] === OP_OFFLOAD) freeB[v] = bytes[i]!;
          else allocB[v] = bytes[i]!;
          break;
        case UNIT_OVERLAP: {
          const { members: ms, ms: own } = c.overlaps.get(v)!;
          ops += ms.length - 1;
          let a = 0;
          let f = 0;
          for (let k = 0; k < ms.length; k++) {
            const m = ms[k]!;
            if (Number.isNaN(own)) {
              const md = nodeMs(costs, m, cost);
              if (typeof md === 'string') issues.add(unitPath(layout, v, `members[${k}]`), md);
              else d += md;
            }
            // The instruction's memory fields list only positive effects.
            a += Math.max(alloc[m]!, 0);
            f += Math.max(free[m]!, 0);
          }
          if (!Number.isNaN(own)) d = own;
          allocB[v] = a;
          freeB[v] = f;
          busyMs += d;
          break;
        }
        default: {
          // The common case read inline: the model gives the op's ms.
          const code = op[i]!;
          const ms = code === OP_UPD ? Number.NaN : opMs[block[i]! * COST_STRIDE + code]!;
          if (!Number.isNaN(ms)) d = ms;
          else {
            const cd = nodeMs(costs, i, cost);
            if (typeof cd === 'string') issues.add(unitPath(layout, v), cd);
            else d = cd;
          }
          allocB[v] = Math.max(alloc[i]!, 0);
          freeB[v] = Math.max(free[i]!, 0);
          busyMs += d;
        }
      }
      // The test inline, the message only on failure: a call per unit is what a first run pays.
      const a = allocB[v]!;
      const f = freeB[v]!;
      if (
        !(
          d >= 0 &&
          d < Number.POSITIVE_INFINITY &&
          a >= 0 &&
          a < Number.POSITIVE_INFINITY &&
          f >= 0 &&
          f < Number.POSITIVE_INFINITY
        )
      )
        checkUnit(layout, v, d, a, f, issues);
      dur[v] = d;
    }
    t.busy[di] = busyMs;
  }
  t.ops = ops;
  return t;
}

/** Duration of compute node i of a compiled plan, as computeMs gives it for its instruction. */
function nodeMs(costs: UnitCosts, i: number, cost: CostCluster): number | string {
  const code = costs.op[i]!;
  if (code === OP_UPD) return costs.updMs[costs.group[i]!] ?? 0;
  const at = costs.block[i]! * COST_STRIDE + code;
  const ms = costs.ms[at]!;
  const flops = costs.flops[at]!;
  return computeMsOf(
    Number.isNaN(ms) ? undefined : ms,
    Number.isNaN(flops) ? undefined : flops,
    cost,
    costs.kernels[at],
  );
}

/** A plan's units, from their instruction objects (`layout.instructions`). */
export function timesFromObjects(
  layout: PlanLayout,
  cost: CostCluster,
  issues: IssueList,
  arrays: ArraySource,
): UnitTimes {
  const { N, D, deviceStreams, streamStart, plan } = layout;
  const instructions = layout.instructions!;
  const t = emptyTimes(N, D, arrays);
  const { dur, allocB, freeB, peer } = t;
  let ops = N;
  for (let di = 0; di < D; di++) {
    const here = plan.devices[di]!.device;
    let busyMs = 0;
    for (let v = streamStart[deviceStreams[di]!]!; v < streamStart[deviceStreams[di + 1]!]!; v++) {
      const x = instructions[v]!;
      let d = 0;
      switch (x.op) {
        case 'SEND':
          peer[v] = x.peer;
          d = p2pMs(cost, here, x.peer, x.bytes);
          break;
        case 'RECV':
          peer[v] = x.peer;
          break;
        case 'ALL_REDUCE':
        case 'REDUCE_SCATTER':
        case 'ALL_GATHER':
        case 'ALL_TO_ALL':
          break;
        case 'OFFLOAD':
          d = hostTransferMs(cost, x.bytes);
          freeB[v] = x.bytes;
          break;
        case 'RELOAD':
          d = hostTransferMs(cost, x.bytes);
          allocB[v] = x.bytes;
          break;
        case 'OVERLAP': {
          ops += x.members.length - 1;
          let sum = 0;
          let a = 0;
          let f = 0;
          for (let mi = 0; mi < x.members.length; mi++) {
            const m = x.members[mi]!;
            if (x.ms === undefined) {
              const md = computeMs(m, cost);
              if (typeof md === 'string') issues.add(unitPath(layout, v, `members[${mi}]`), md);
              else sum += md;
            }
            a += m.allocBytes ?? 0;
            f += m.freeBytes ?? 0;
          }
          d = x.ms ?? sum;
          allocB[v] = a;
          freeB[v] = f;
          busyMs += d;
          break;
        }
        default: {
          const cd = computeMs(x, cost);
          if (typeof cd === 'string') issues.add(unitPath(layout, v), cd);
          else d = cd;
          if (x.allocBytes !== undefined) allocB[v] = x.allocBytes;
          if (x.freeBytes !== undefined) freeB[v] = x.freeBytes;
          busyMs += d;
        }
      }
      checkUnit(layout, v, d, allocB[v]!, freeB[v]!, issues);
      dur[v] = d;
    }
    t.busy[di] = busyMs;
  }
  t.ops = ops;
  return t;
}

/** Times of `N` units on `D` devices, every one zero: what both readers fill in. */
function emptyTimes(N: number, D: number, arrays: ArraySource): UnitTimes {
  return {
    dur: arrays.float64(N),
    allocB: arrays.float64(N),
    freeB: arrays.float64(N),
    busy: new Float64Array(D),
    peer: arrays.int32(N, -1),
    ops: N,
  };
}
