/**
 * Deadlock analysis, run when the event queue empties with instructions unfinished.
 *
 * Every stream's first unfinished instruction (its head) is blocked by exactly one thing we pick:
 * the first unfinished id in its waits, the SEND of a RECV that started, or the first member of a
 * collective that never reached it. That blocker is unfinished, so its own stream has a head, and
 * "head → head of the blocker's stream" is a function on heads. Following it from any head must
 * revisit a head: that loop is the reported wait cycle.
 */
import type { Issue } from '@stagecraft/ir';
import { S_ARRIVED, S_BLOCKED, S_DONE, S_RECV_WAIT } from './engine.ts';
import { type Flat, instAt, unitPath } from './flat.ts';
import type { Deadlock, InstructionRef, StuckInstruction } from './types.ts';

export function findDeadlock(f: Flat, state: Uint8Array): { ok: false; errors: Issue[]; deadlock: Deadlock } {
  const S = f.S;
  const head = new Int32Array(S).fill(-1);
  for (let s = 0; s < S; s++)
    for (let v = f.streamStart[s]!; v < f.streamStart[s + 1]!; v++)
      if (state[v] !== S_DONE) {
        head[s] = v;
        break;
      }

  const nextStream = new Int32Array(S).fill(-1);
  const entry: (StuckInstruction | undefined)[] = new Array(S);
  const stuck: StuckInstruction[] = [];
  for (let s = 0; s < S; s++) {
    const h = head[s]!;
    if (h < 0) continue;
    let blocker = -1;
    let reason: 'wait' | 'send' | 'collective' = 'wait';
    if (state[h] === S_RECV_WAIT) {
      blocker = f.sendOf[h]!;
      reason = 'send';
    } else if (state[h] === S_ARRIVED) {
      const g = f.collGroup[h]!;
      for (let j = f.groupOff[g]!; j < f.groupOff[g + 1]!; j++)
        if (state[f.groupUnits[j]!] === S_BLOCKED) {
          blocker = f.groupUnits[j]!;
          break;
        }
      reason = 'collective';
    } else {
      for (let j = f.waitOff[h]!; j < f.waitOff[h + 1]!; j++)
        if (state[f.waitTgt[j]!] !== S_DONE) {
          blocker = f.waitTgt[j]!;
          break;
        }
    }
    const e: StuckInstruction = {
      ...ref(f, h),
      path: unitPath(f, h),
      waitsFor: blocker < 0 ? null : { ...ref(f, blocker), reason },
    };
    if (blocker >= 0) nextStream[s] = f.unitStream[blocker]!;
    entry[s] = e;
    stuck.push(e);
  }

  // Walk from the first stuck stream until a stream repeats.
  const seenAt = new Int32Array(S).fill(-1);
  const path: number[] = [];
  let cur = head.findIndex((h) => h >= 0);
  while (cur >= 0 && seenAt[cur] === -1) {
    seenAt[cur] = path.length;
    path.push(cur);
    cur = nextStream[cur]!;
  }
  const cycle = cur >= 0 ? path.slice(seenAt[cur]).map((s) => entry[s]!) : [];

  const errors: Issue[] = [];
  const describe = (e: StuckInstruction) =>
    `"${e.instruction}" (device ${e.device}, stream ${e.stream})` +
    (e.waitsFor ? ` waits for ${blockerText(e.waitsFor)}` : '');
  errors.push({
    path: cycle[0]?.path ?? stuck[0]?.path ?? '',
    message:
      cycle.length > 0
        ? `deadlock: ${cycle.map(describe).join(' → ')}, which is behind the first`
        : `deadlock: ${stuck.length} instruction(s) can never start`,
  });
  for (const e of stuck)
    errors.push({ path: e.path, message: `stuck: ${e.waitsFor ? `waits for ${blockerText(e.waitsFor)}` : 'cannot start'}` });
  return { ok: false, errors, deadlock: { stuck, cycle } };
}

function ref(f: Flat, v: number): InstructionRef {
  return {
    device: f.plan.devices[f.unitDev[v]!]!.device,
    stream: f.streamName[f.unitStream[v]!]!,
    instruction: instAt(f, v).id,
  };
}

function blockerText(b: InstructionRef & { reason: string }): string {
  const what = b.reason === 'send' ? 'its SEND ' : b.reason === 'collective' ? 'collective member ' : '';
  return `${what}"${b.instruction}" (device ${b.device}, stream ${b.stream})`;
}
