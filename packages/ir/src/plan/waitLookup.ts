/**
 * Resolving a `waits` id to the instruction it names, on one device, as plan validation and the
 * simulator's flattening both do for every wait of a plan. Waits mostly name the instruction just
 * after the previous hit on the same stream, so each stream keeps a cursor and a short window
 * around it is tried first; a miss scans whole streams while the device's budget lasts (so the
 * work stays O(n) per device) and then asks an id Map built once.
 */

/** How far past a stream's cursor a lookup scans before it falls back to a wider search. */
const WINDOW = 8;

export interface DeviceStreams {
  /** Instruction id per global instruction index. */
  idOf: readonly string[];
  /** Global stream s holds instructions streamStart[s] .. streamStart[s+1]−1. */
  streamStart: Int32Array;
  /** Global stream of each instruction. */
  unitStream: Int32Array;
  /** Per global stream, the index of its last hit; the caller resets it per waiting stream. */
  cursor: Int32Array;
}

/**
 * A lookup over the device whose streams are s0 .. s1−1: `(id, lastStream)` → instruction index,
 * or −1. `idMap` builds the fallback Map (the simulator also maps overlapped members' ids).
 */
export function deviceWaitLookup(
  { idOf, streamStart, unitStream, cursor }: DeviceStreams,
  s0: number,
  s1: number,
  idMap: () => Map<string, number>,
): (id: string, lastStream: number) => number {
  let ids: Map<string, number> | undefined;
  let budget = 2 * (streamStart[s1]! - streamStart[s0]!) + 64;
  return (id, lastStream) => {
    // The last hit's stream first, then the others.
    for (let q = 0; q < s1 - s0; q++) {
      const ts = q === 0 ? lastStream : s0 + q - (s0 + q <= lastStream ? 1 : 0);
      // Forwards from the cursor first: a hit on the first try compares one string, the very same one.
      const x = windowScan(idOf, id, cursor[ts]!, streamStart[ts]!, streamStart[ts + 1]!);
      if (x >= 0) {
        cursor[ts] = x;
        return x;
      }
    }
    if (ids === undefined && budget > 0)
      for (let ts = s0; ts < s1 && budget > 0; ts++) {
        budget -= streamStart[ts + 1]! - streamStart[ts]!;
        for (let x = streamStart[ts]!; x < streamStart[ts + 1]!; x++)
          if (idOf[x] === id) {
            cursor[ts] = x;
            return x;
          }
      }
    ids ??= idMap();
    const t = ids.get(id);
    if (t === undefined) return -1;
    cursor[unitStream[t]!] = t;
    return t;
  };
}

/** Index of `id` in ids[lo..hi) near `c`: c+1 .. c+WINDOW−1, then c, c−1, c−2; −1 if not there. */
function windowScan(ids: readonly string[], id: string, c: number, lo: number, hi: number): number {
  const b = Math.min(c + WINDOW, hi);
  for (let x = c + 1; x < b; x++) if (ids[x] === id) return x;
  const a = Math.max(c - 2, lo);
  for (let x = Math.min(c, hi - 1); x >= a; x--) if (ids[x] === id) return x;
  return -1;
}
