/**
 * The wait graph of a laid-out plan, following the execution semantics: an instruction starts
 * after the one before it on its stream (after a RECV is posted, since a RECV does not hold its
 * stream) and everything in its waits have ended; a RECV ends when its SEND has ended; a
 * collective is one joint step of all its members. Node v is the end of unit v (its joint
 * step's, for a collective); node N + v the post of RECV v.
 *
 * Proving the graph acyclic is the last rule of validation. A compiled plan's ranks prove it in
 * one pass; otherwise Kahn's sweep (blockedWaits.ts) decides, and only when it fails are the
 * waits still unmet walked to name one cycle.
 */
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import { blockedWaits } from './blockedWaits.ts';
import type { IssueList } from './issueList.ts';
import { deviceOf, instructionOf, type PlanLayout, streamNameOf, unitPath } from './planLayout.ts';
import { UNIT_RECV } from './unitKind.ts';

/** The joint step of each unit: the first unit of its collective group, itself for any other unit. */
export function jointSteps(layout: PlanLayout, scratch: ArraySource = FRESH): Int32Array {
  const { N, collGroup, groupOff, groupUnits } = layout;
  const joint = scratch.int32(N);
  for (let v = 0; v < N; v++) {
    const g = collGroup[v]!;
    joint[v] = g < 0 ? v : groupUnits[groupOff[g]!]!;
  }
  return joint;
}

/** True when the wait graph has no cycle. `scratch`: where its arrays come from. */
export function waitsAcyclic(layout: PlanLayout, scratch: ArraySource = FRESH): boolean {
  if (layout.rank !== undefined && ranksAscend(layout, layout.rank)) return true;
  const g = waitGraph(layout, jointSteps(layout, scratch));
  return blockedWaits(2 * layout.N, g.dependent, g.dependency, g.m) === null;
}

/**
 * True when `rank` numbers the graph topologically: every edge goes from a lower to a higher key,
 * with key 2·rank for a RECV's post and 2·rank + 1 for an end. Then no cycle exists.
 */
function ranksAscend(layout: PlanLayout, rank: Float64Array): boolean {
  const { S, streamStart, kind, waitOff, waitTgt, partner, collGroup, groupOff, groupUnits } = layout;
  // The key of the end of unit v is 2·rank + 1 of its joint step (jointSteps, read here without
  // its array: most units are their own step, and a proof that succeeds needs no array). It is
  // written out at each use rather than called: a process's first compile runs this loop
  // interpreted for most of its length, where a call per wait costs more than the test.
  for (let st = 0, v = streamStart[0]!; st < S; st++) {
    let prev = -1;
    for (const streamEnd = streamStart[st + 1]!; v < streamEnd; v++) {
      const isRecv = kind[v] === UNIT_RECV;
      const g = collGroup[v]!;
      const end = 2 * rank[g < 0 ? v : groupUnits[groupOff[g]!]!]! + 1;
      const self = isRecv ? 2 * rank[v]! : end;
      if (prev >= self) return false;
      for (let j = waitOff[v]!, waitEnd = waitOff[v + 1]!; j < waitEnd; j++) {
        const t = waitTgt[j]!;
        const tg = collGroup[t]!;
        if (2 * rank[tg < 0 ? t : groupUnits[groupOff[tg]!]!]! + 1 >= self) return false;
      }
      if (isRecv) {
        const p = partner[v]!;
        const pg = collGroup[p]!;
        if (2 * rank[pg < 0 ? p : groupUnits[groupOff[pg]!]!]! + 1 >= end) return false;
      }
      prev = self;
    }
  }
  return true;
}

/** Why a dependent waits for its dependency, by edge: what the cycle's message says. */
const WHY = ['stream order', 'waits', 'posted', 'data from its SEND'];

interface WaitGraph {
  dependent: Int32Array;
  dependency: Int32Array;
  why: Uint8Array;
  m: number;
}

function waitGraph(layout: PlanLayout, joint: Int32Array): WaitGraph {
  const { N, S, streamStart, kind, waitOff, waitTgt, partner } = layout;
  // Edges: each unit but the first of its stream, each wait, and two per RECV.
  let E = waitOff[N]!;
  for (let v = 0; v < N; v++) if (kind[v] === UNIT_RECV) E += 2;
  for (let st = 0; st < S; st++)
    if (streamStart[st + 1]! > streamStart[st]!) E += streamStart[st + 1]! - streamStart[st]! - 1;
  const dependent = new Int32Array(E);
  const dependency = new Int32Array(E);
  const why = new Uint8Array(E);
  let m = 0;
  for (let st = 0; st < S; st++) {
    let prev = -1;
    for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++) {
      const isRecv = kind[v] === UNIT_RECV;
      const self = isRecv ? N + v : joint[v]!;
      if (prev >= 0) {
        dependent[m] = self;
        dependency[m++] = prev;
      }
      for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) {
        dependent[m] = self;
        why[m] = 1;
        dependency[m++] = joint[waitTgt[j]!]!;
      }
      if (isRecv) {
        dependent[m] = v;
        why[m] = 2;
        dependency[m++] = N + v;
        if (partner[v]! >= 0) {
          dependent[m] = v;
          why[m] = 3;
          dependency[m++] = joint[partner[v]!]!;
        }
      }
      prev = self;
    }
  }
  return { dependent, dependency, why, m };
}

/** Names one wait cycle, if the graph has one: each step, then "and around again". */
export function waitCycleIssue(layout: PlanLayout, issues: IssueList): void {
  const { N } = layout;
  const { dependent, dependency, why, m } = waitGraph(layout, jointSteps(layout));
  const total = 2 * N;
  const indeg = blockedWaits(total, dependent, dependency, m);
  if (indeg === null) return;
  // Each node's dependencies (CSR), made only now.
  const doff = new Int32Array(total + 1);
  for (let e = 0; e < m; e++) doff[dependent[e]! + 1]!++;
  for (let v = 0; v < total; v++) doff[v + 1]! += doff[v]!;
  const dfill = doff.slice(0, total);
  const depEdge = new Int32Array(m);
  for (let e = 0; e < m; e++) depEdge[dfill[dependent[e]!]!++] = e;
  const unitOf = (x: number) => (x >= N ? x - N : x);
  let cur = indeg.findIndex((x) => x > 0);
  const seen = new Map<number, number>();
  const path: { from: number; to: number; why: string }[] = [];
  while (!seen.has(cur)) {
    seen.set(cur, path.length);
    let next = -1;
    let w = 0;
    for (let k = doff[cur]!; k < doff[cur + 1]! && next < 0; k++) {
      const e = depEdge[k]!;
      if (indeg[dependency[e]!]! > 0) {
        next = dependency[e]!;
        w = why[e]!;
      }
    }
    if (next < 0) return;
    path.push({ from: unitOf(cur), to: unitOf(next), why: WHY[w]! });
    cur = next;
  }
  // Drop the RECV post→end step, which is the same instruction on both sides.
  const cycle = path.slice(seen.get(cur)!).filter((e) => e.from !== e.to);
  const where = (v: number) =>
    `device ${deviceOf(layout, v)} ${streamNameOf(layout, v)} ${instructionOf(layout, v).id}`;
  // A collective is one joint step: it waits for what precedes each member on that member's
  // stream, which is on another device (sub-groups of a mesh issued in crossed orders).
  const reason = (c: { from: number; to: number; why: string }) =>
    c.why === WHY[0] && deviceOf(layout, c.from) !== deviceOf(layout, c.to)
      ? 'a member of the collective is issued after it'
      : c.why;
  issues.add(
    unitPath(layout, cycle[0]!.from),
    `deadlock: ${cycle.map((c) => `${where(c.from)} waits for ${where(c.to)} (${reason(c)})`).join('; ')}; and around again`,
  );
}
