/**
 * The full diagnosis of a plan (see validatePlan.ts for what a valid plan is): each violation,
 * up to `maxIssues`, names the instruction and the reason; a deadlock names the whole wait cycle.
 *
 * The wait graph follows the execution semantics: an instruction starts after the one before it
 * on its stream ends (after a RECV is posted, since a RECV does not hold its stream), after
 * everything in `waits` ends; a RECV ends when its SEND has ended; a collective is one joint step
 * of all its members.
 */
import { formatPath, type Issue } from '../issue.ts';
import { blockedWaits } from './blockedWaits.ts';
import type { Instruction, Plan } from './plan.ts';

interface Loc {
  device: number;
  d: number;
  s: number;
  k: number;
  ins: Instruction;
}

const at = (l: Loc) => formatPath(['devices', l.d, 'streams', l.s, 'instructions', l.k]);
const where = (l: Loc, plan: Plan) =>
  `device ${l.device} ${plan.devices[l.d]!.streams[l.s]!.stream} ${l.ins.id}`;

export function planIssues(plan: Plan, maxIssues = 20): Issue[] {
  const issues: Issue[] = [];
  const add = (path: string, message: string) => {
    if (issues.length < maxIssues) issues.push({ path, message });
  };
  // --- index every instruction ---------------------------------------------------------------
  const locs: Loc[] = [];
  const byDevice = new Map<number, Map<string, number>>(); // device → id → loc index
  plan.devices.forEach((dev, d) => {
    if (byDevice.has(dev.device))
      add(formatPath(['devices', d, 'device']), `device ${dev.device} appears twice`);
    const ids = new Map<string, number>();
    byDevice.set(dev.device, ids);
    dev.streams.forEach((st, s) => {
      st.instructions.forEach((ins, k) => {
        const l: Loc = { device: dev.device, d, s, k, ins };
        if (ids.has(ins.id)) add(at(l), `id ${ins.id} is used twice on device ${dev.device}`);
        ids.set(ins.id, locs.length);
        locs.push(l);
      });
    });
  });
  if (issues.length > 0) return issues;

  // --- waits ----------------------------------------------------------------------------------
  for (const l of locs) {
    for (const w of l.ins.waits) {
      const t = byDevice.get(l.device)!.get(w);
      if (t === undefined) add(at(l), `${l.ins.id} waits for ${w}, which device ${l.device} never runs`);
      else if (locs[t]!.s === l.s && locs[t]!.k >= l.k)
        add(at(l), `${l.ins.id} waits for ${w}, which comes after it on the same stream`);
    }
  }

  // --- SEND/RECV pairs, matched in order per pair of devices ------------------------------------
  const sendOf = new Map<string, number>(); // `${from}>${to}:${transfer}` → loc
  const sends = new Map<string, string[]>(); // `${from}>${to}` → transfers in order
  const recvs = new Map<string, { transfer: string; loc: number }[]>();
  const devices = new Set(plan.devices.map((d) => d.device));
  locs.forEach((l, li) => {
    const ins = l.ins;
    if (ins.op !== 'SEND' && ins.op !== 'RECV') return;
    if (!devices.has(ins.peer)) {
      add(at(l), `${ins.id} names peer device ${ins.peer}, which is not in the plan`);
      return;
    }
    const pair = ins.op === 'SEND' ? `${l.device}>${ins.peer}` : `${ins.peer}>${l.device}`;
    if (ins.op === 'SEND') {
      sendOf.set(`${pair}:${ins.transfer}`, li);
      let list = sends.get(pair);
      if (!list) sends.set(pair, (list = []));
      list.push(ins.transfer);
    } else {
      let list = recvs.get(pair);
      if (!list) recvs.set(pair, (list = []));
      list.push({ transfer: ins.transfer, loc: li });
    }
  });
  const recvSeen = new Set<string>();
  for (const [pair, list] of recvs) {
    const sent = sends.get(pair) ?? [];
    list.forEach((r, k) => {
      const l = locs[r.loc]!;
      recvSeen.add(`${pair}:${r.transfer}`);
      if (!sendOf.has(`${pair}:${r.transfer}`)) {
        add(
          at(l),
          `${l.ins.id} receives ${r.transfer} from device ${pair.split('>')[0]}, which never sends it`,
        );
      } else if (sent[k] !== r.transfer) {
        add(
          at(l),
          `${l.ins.id} is receive #${k + 1} from device ${pair.split('>')[0]} but that device's send #${k + 1} is ${sent[k] ?? 'missing'}: SEND/RECV between two devices must match in order`,
        );
      }
    });
  }
  for (const [key, li] of sendOf) {
    if (!recvSeen.has(key)) {
      const l = locs[li]!;
      add(at(l), `${l.ins.id} sends to device ${(l.ins as { peer: number }).peer}, which never receives it`);
    }
  }

  // --- collectives: same sequence on every member ----------------------------------------------
  // Collectives of one group usually share their devices array: sort it once.
  const groupKeyOf = new WeakMap<readonly number[], string>();
  const collSeq = new Map<string, Map<number, { key: string; loc: number }[]>>();
  locs.forEach((l, li) => {
    const ins = l.ins;
    if (
      ins.op !== 'ALL_REDUCE' &&
      ins.op !== 'REDUCE_SCATTER' &&
      ins.op !== 'ALL_GATHER' &&
      ins.op !== 'ALL_TO_ALL'
    )
      return;
    if (!ins.devices.includes(l.device))
      add(
        at(l),
        `${ins.id} runs on device ${l.device}, which is not in its group [${ins.devices.join(', ')}]`,
      );
    let g = groupKeyOf.get(ins.devices);
    if (g === undefined) groupKeyOf.set(ins.devices, (g = [...ins.devices].sort((a, b) => a - b).join(',')));
    let perDev = collSeq.get(g);
    if (!perDev) collSeq.set(g, (perDev = new Map()));
    let seq = perDev.get(l.device);
    if (!seq) perDev.set(l.device, (seq = []));
    seq.push({ key: ins.collective, loc: li });
  });
  const joint = new Map<number, string>(); // loc → joint node key
  // A group lowered once issues its collectives for all its replicas.
  const repOf = new Map<number, number>();
  for (const dev of plan.devices) for (const r of dev.replicas ?? []) repOf.set(r, dev.device);
  for (const [g, perDev] of collSeq) {
    const members = [...new Set(g.split(',').map((m) => repOf.get(Number(m)) ?? Number(m)))];
    const ref = perDev.get(members[0]!) ?? [];
    for (const m of members) {
      const seq = perDev.get(m) ?? [];
      const n = Math.max(seq.length, ref.length);
      for (let k = 0; k < n; k++) {
        if (seq[k]?.key !== ref[k]?.key) {
          const l = locs[(seq[k] ?? ref[k])!.loc]!;
          add(
            at(l),
            `collective #${k + 1} of group [${g}] is ${seq[k]?.key ?? 'missing'} on device ${m} but ${ref[k]?.key ?? 'missing'} on device ${members[0]}: members must issue collectives in the same order`,
          );
          break;
        }
        joint.set(seq[k]!.loc, `${g}#${k}`);
      }
    }
  }
  if (issues.length > 0) return issues;

  const cycle = waitCycle(plan, locs, byDevice, sendOf, joint);
  if (cycle) {
    add(
      at(cycle[0]!.from),
      `deadlock: ${cycle.map((c) => `${where(c.from, plan)} waits for ${where(c.to, plan)} (${c.why})`).join('; ')}; and around again`,
    );
  }
  return issues;
}

interface WaitEdge {
  from: Loc;
  to: Loc;
  why: string;
}

/**
 * Kahn's sweep over the wait graph (blockedWaits); on failure, walks back through waits still unmet until an instruction repeats,
 * and returns that loop.
 */
function waitCycle(
  plan: Plan,
  locs: Loc[],
  byDevice: Map<number, Map<string, number>>,
  sendOf: Map<string, number>,
  joint: Map<number, string>,
): WaitEdge[] | null {
  // Node per instruction (its end); a RECV also has a post node (n + index) that releases its stream.
  const n = locs.length;
  const jointNode = new Map<string, number>();
  const node = (li: number) => {
    const j = joint.get(li);
    if (j === undefined) return li;
    let r = jointNode.get(j);
    if (r === undefined) jointNode.set(j, (r = li));
    return r;
  };
  const src: number[] = []; // dependent
  const dst: number[] = []; // what it depends on
  const why: number[] = [];
  const WHY = ['stream order', 'waits', 'posted', 'data from its SEND'];
  const dep = (a: number, b: number, w: number) => {
    src.push(a);
    dst.push(b);
    why.push(w);
  };
  let li = 0;
  for (const dev of plan.devices) {
    const ids = byDevice.get(dev.device)!;
    for (const st of dev.streams) {
      let prev = -1;
      for (const ins of st.instructions) {
        const isRecv = ins.op === 'RECV';
        const self = isRecv ? n + li : node(li);
        if (prev >= 0) dep(self, prev, 0);
        for (const w of ins.waits) dep(self, node(ids.get(w)!), 1);
        if (isRecv) {
          dep(li, n + li, 2);
          const s = sendOf.get(`${ins.peer}>${dev.device}:${ins.transfer}`);
          if (s !== undefined) dep(li, node(s), 3);
        }
        prev = self;
        li++;
      }
    }
  }
  const total = 2 * n;
  const m = src.length;
  const indeg = blockedWaits(total, src, dst, m);
  if (indeg === null) return null;
  // deps of each node, CSR, only on failure
  const doff = new Int32Array(total + 1);
  for (let e = 0; e < m; e++) doff[src[e]! + 1]!++;
  for (let v = 0; v < total; v++) doff[v + 1]! += doff[v]!;
  const dfill = doff.slice(0, total);
  const depEdge = new Int32Array(m);
  for (let e = 0; e < m; e++) depEdge[dfill[src[e]!]!++] = e;
  const locOf = (v: number) => locs[v >= n ? v - n : v]!;
  let cur = indeg.findIndex((x) => x > 0);
  const seen = new Map<number, number>();
  const path: WaitEdge[] = [];
  while (!seen.has(cur)) {
    seen.set(cur, path.length);
    let next = -1;
    let w = 0;
    for (let k = doff[cur]!; k < doff[cur + 1]! && next < 0; k++) {
      const e = depEdge[k]!;
      if (indeg[dst[e]!]! > 0) {
        next = dst[e]!;
        w = why[e]!;
      }
    }
    if (next < 0) return null;
    path.push({ from: locOf(cur), to: locOf(next), why: WHY[w]! });
    cur = next;
  }
  // Drop the RECV post→end step, which is the same instruction on both sides.
  return path.slice(seen.get(cur)!).filter((e) => e.from !== e.to);
}
