/**
 * Deadlock analysis, run when the event queue empties with instructions unfinished.
 *
 * A stuck unit is blocked by exactly one thing we pick: its stream predecessor when that has not
 * finished (and is not a posted RECV, which releases its stream), else the first unfinished id in
 * its waits, the SEND of its posted RECV, or the first member of its collective that never
 * arrived. The blocker is unfinished, so it is stuck too, and "unit → the unit that truly holds up
 * its blocker" is a function on stuck units. Following it from any stuck unit must revisit one:
 * that loop is the reported wait cycle. The analysis is O(n) and allocates per stuck unit only.
 */
import { type Issue, UNIT_RECV } from '@stagecraft/ir';
import { type Flat, instAt, unitPath } from './flat.ts';
import type { Deadlock, InstructionRef, StuckInstruction } from './types.ts';
import { S_ARRIVED, S_BLOCKED, S_DONE, S_RECV_WAIT } from './unitStates.ts';

type Reason = 'wait' | 'send' | 'collective';

export function findDeadlock(f: Flat, state: Uint8Array): { ok: false; errors: Issue[]; deadlock: Deadlock } {
  /** A posted RECV no longer holds its stream. */
  const holdsStream = (p: number) =>
    state[p] !== S_DONE && !(f.kind[p] === UNIT_RECV && state[p] === S_RECV_WAIT);
  /** Walk back along the stream to the unit that is stuck on its own (not behind its predecessor). */
  const frontier = (w: number) => {
    while (w > f.streamStart[f.unitStream[w]!]! && holdsStream(w - 1)) w--;
    return w;
  };
  /** What holds up a unit whose stream predecessor is done or posted; −1 if nothing (cannot happen). */
  const blockerOf = (v: number): [number, Reason] => {
    if (state[v] === S_RECV_WAIT) return [f.partner[v]!, 'send'];
    if (state[v] === S_ARRIVED) {
      const g = f.collGroup[v]!;
      for (let j = f.groupOff[g]!; j < f.groupOff[g + 1]!; j++)
        if (state[f.groupUnits[j]!] === S_BLOCKED) return [f.groupUnits[j]!, 'collective'];
      return [-1, 'collective'];
    }
    for (let j = f.waitOff[v]!; j < f.waitOff[v + 1]!; j++)
      if (state[f.waitTgt[j]!] !== S_DONE) return [f.waitTgt[j]!, 'wait'];
    return [-1, 'wait'];
  };
  const entryOf = (v: number): StuckInstruction => {
    const [b, reason] = blockerOf(v);
    return { ...ref(f, v), path: unitPath(f, v), waitsFor: b < 0 ? null : { ...ref(f, b), reason } };
  };

  // Per stream, the first unfinished instruction.
  const stuck: StuckInstruction[] = [];
  let start = -1;
  for (let s = 0; s < f.S; s++)
    for (let v = f.streamStart[s]!; v < f.streamStart[s + 1]!; v++)
      if (state[v] !== S_DONE) {
        if (start < 0) start = v;
        stuck.push(entryOf(v));
        break;
      }

  // Walk from the first stuck unit until a unit repeats.
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  let cur = start;
  while (cur >= 0 && !seenAt.has(cur)) {
    seenAt.set(cur, path.length);
    path.push(cur);
    const [b] = blockerOf(cur);
    cur = b < 0 ? -1 : frontier(b);
  }
  const cycle = cur >= 0 ? path.slice(seenAt.get(cur)).map(entryOf) : [];

  const describe = (e: StuckInstruction) =>
    `"${e.instruction}" (device ${e.device}, stream ${e.stream})` +
    (e.waitsFor ? ` waits for ${blockerText(e.waitsFor)}` : '');
  const errors: Issue[] = [
    {
      path: cycle[0]?.path ?? stuck[0]?.path ?? '',
      message:
        cycle.length > 0
          ? `deadlock: ${cycle.map(describe).join(' → ')} → back to the first`
          : `deadlock: ${stuck.length} stream(s) can never finish`,
    },
  ];
  for (const e of stuck)
    errors.push({
      path: e.path,
      message: `stuck: ${e.waitsFor ? `waits for ${blockerText(e.waitsFor)}` : 'behind its stream'}`,
    });
  return { ok: false, errors, deadlock: { stuck, cycle } };
}

function ref(f: Flat, v: number): InstructionRef {
  return {
    device: f.plan.devices[f.unitDev[v]!]!.device,
    stream: f.streamName[f.unitStream[v]!]!,
    instruction: instAt(f, v).id,
  };
}

function blockerText(b: InstructionRef & { reason: Reason }): string {
  const what = b.reason === 'send' ? 'its SEND ' : b.reason === 'collective' ? 'collective member ' : '';
  return `${what}"${b.instruction}" (device ${b.device}, stream ${b.stream})`;
}
