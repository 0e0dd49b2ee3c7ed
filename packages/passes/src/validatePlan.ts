/**
 * Proves a plan can run before anything runs it: every wait names an instruction on another
 * stream of the device; SEND/RECV pairs exist and match in order between each pair of devices;
 * every member of a collective's group issues the group's collectives in the same order; and no
 * wait cycle (deadlock) exists. Each violation names the instruction and the reason; a deadlock
 * names the whole wait cycle.
 *
 * The wait graph follows the execution semantics: an instruction starts after the one before it
 * on its stream ends (after a RECV is posted, since a RECV does not hold its stream), after
 * everything in `waits` ends; a RECV ends when its SEND has ended; a collective is one joint step
 * of all its members.
 */
import { type Instruction, type Issue, type Plan, formatPath } from '@stagecraft/ir';

interface Loc {
  device: number;
  d: number;
  s: number;
  k: number;
  ins: Instruction;
}

const at = (l: Loc) => formatPath(['devices', l.d, 'streams', l.s, 'instructions', l.k]);
const where = (l: Loc, plan: Plan) => `device ${l.device} ${plan.devices[l.d]!.streams[l.s]!.stream} ${l.ins.id}`;

export function validatePlan(plan: Plan, maxIssues = 20): Issue[] {
  const issues: Issue[] = [];
  const add = (path: string, message: string) => {
    if (issues.length < maxIssues) issues.push({ path, message });
  };
  // --- index every instruction ---------------------------------------------------------------
  const locs: Loc[] = [];
  const byDevice = new Map<number, Map<string, number>>(); // device → id → loc index
  plan.devices.forEach((dev, d) => {
    if (byDevice.has(dev.device)) add(formatPath(['devices', d, 'device']), `device ${dev.device} appears twice`);
    const ids = new Map<string, number>();
    byDevice.set(dev.device, ids);
    dev.streams.forEach((st, s) =>
      st.instructions.forEach((ins, k) => {
        const l: Loc = { device: dev.device, d, s, k, ins };
        if (ids.has(ins.id)) add(at(l), `id ${ins.id} is used twice on device ${dev.device}`);
        ids.set(ins.id, locs.length);
        locs.push(l);
      }),
    );
  });
  if (issues.length > 0) return issues;

  // --- waits ----------------------------------------------------------------------------------
  for (const l of locs) {
    for (const w of l.ins.waits) {
      const t = byDevice.get(l.device)!.get(w);
      if (t === undefined) add(at(l), `${l.ins.id} waits for ${w}, which device ${l.device} never runs`);
      else if (locs[t]!.s === l.s && locs[t]!.k >= l.k) add(at(l), `${l.ins.id} waits for ${w}, which comes after it on the same stream`);
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
        add(at(l), `${l.ins.id} receives ${r.transfer} from device ${pair.split('>')[0]}, which never sends it`);
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
  const collSeq = new Map<string, Map<number, { key: string; loc: number }[]>>();
  locs.forEach((l, li) => {
    const ins = l.ins;
    if (ins.op !== 'ALL_REDUCE' && ins.op !== 'REDUCE_SCATTER' && ins.op !== 'ALL_GATHER' && ins.op !== 'ALL_TO_ALL') return;
    if (!ins.devices.includes(l.device)) add(at(l), `${ins.id} runs on device ${l.device}, which is not in its group [${ins.devices.join(', ')}]`);
    const g = [...ins.devices].sort((a, b) => a - b).join(',');
    let perDev = collSeq.get(g);
    if (!perDev) collSeq.set(g, (perDev = new Map()));
    let seq = perDev.get(l.device);
    if (!seq) perDev.set(l.device, (seq = []));
    seq.push({ key: ins.collective, loc: li });
  });
  const joint = new Map<number, string>(); // loc → joint node key
  for (const [g, perDev] of collSeq) {
    const members = g.split(',').map(Number);
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
 * Kahn's algorithm over the wait graph; on failure, walks back through waits still unmet until
 * an instruction repeats, and returns that loop.
 */
function waitCycle(
  plan: Plan,
  locs: Loc[],
  byDevice: Map<number, Map<string, number>>,
  sendOf: Map<string, number>,
  joint: Map<number, string>,
): WaitEdge[] | null {
  // Node per instruction (its end); a RECV also has a post node that releases its stream.
  const n = locs.length;
  const post = (li: number) => n + li;
  const deps: { to: number; why: string }[][] = Array.from({ length: 2 * n }, () => []);
  // Joint collectives: every member's instance shares the first instance's node.
  const jointNode = new Map<string, number>();
  const node = (li: number) => {
    const j = joint.get(li);
    if (j === undefined) return li;
    let r = jointNode.get(j);
    if (r === undefined) jointNode.set(j, (r = li));
    return r;
  };
  plan.devices.forEach((dev) => {
    for (const st of dev.streams) {
      let prev = -1;
      for (const ins of st.instructions) {
        const li = byDevice.get(dev.device)!.get(ins.id)!;
        const self = ins.op === 'RECV' ? post(li) : node(li);
        if (prev >= 0) deps[self]!.push({ to: prev, why: 'stream order' });
        for (const w of ins.waits) deps[self]!.push({ to: node(byDevice.get(dev.device)!.get(w)!), why: 'waits' });
        if (ins.op === 'RECV') {
          deps[li]!.push({ to: post(li), why: 'posted' });
          const s = sendOf.get(`${ins.peer}>${dev.device}:${ins.transfer}`);
          if (s !== undefined) deps[li]!.push({ to: node(s), why: 'data from its SEND' });
        }
        prev = ins.op === 'RECV' ? post(li) : node(li);
      }
    }
  });
  const users: number[][] = Array.from({ length: 2 * n }, () => []);
  const indeg = new Int32Array(2 * n);
  deps.forEach((ds, v) => {
    for (const d of ds) {
      users[d.to]!.push(v);
      indeg[v]!++;
    }
  });
  const queue: number[] = [];
  for (let v = 0; v < 2 * n; v++) if (indeg[v] === 0) queue.push(v);
  let done = 0;
  while (queue.length > 0) {
    const v = queue.pop()!;
    done++;
    for (const u of users[v]!) if (--indeg[u]! === 0) queue.push(u);
  }
  if (done === 2 * n) return null;
  const locOf = (v: number) => locs[v >= n ? v - n : v]!;
  let cur = indeg.findIndex((x) => x > 0);
  const seen = new Map<number, number>();
  const path: WaitEdge[] = [];
  while (!seen.has(cur)) {
    seen.set(cur, path.length);
    const dep = deps[cur]!.find((d) => indeg[d.to]! > 0);
    if (!dep) return null;
    path.push({ from: locOf(cur), to: locOf(dep.to), why: dep.why });
    cur = dep.to;
  }
  // Collapse the RECV post→end step, which is the same instruction on both sides.
  return path.slice(seen.get(cur)!).filter((e) => e.from !== e.to);
}
