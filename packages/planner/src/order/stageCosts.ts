/**
 * Stage costs measured on the design itself: one order of the pipeline compiled and simulated
 * with the cost model, and each virtual stage's forward, input and weight backward read off its
 * timeline (the span of the stage's ops for one microbatch on the stage's first device, so a
 * tensor-parallel all-reduce the compute waits for counts), its p2p transfers, and the bytes its
 * ops stash and release in the plan. What the order search then ranks candidates with.
 */
import type { Plan } from '@stagecraft/ir';
import type { Simulation } from '@stagecraft/sim';
import type { StageCosts } from './orderTiming.ts';
import type { Pipeline } from './pipeline.ts';

const PASS_INDEX: Record<string, number> = { F: 0, BI: 1, RECOMPUTE: 1, BW: 2 };

export function measureStageCosts(p: Pipeline, plan: Plan, sim: Simulation): StageCosts {
  const S = p.placement.length;
  const rps = p.stages.length / S;
  const stageOf = new Map<number, number>();
  p.stages.forEach((pp, i) => {
    stageOf.set(pp, Math.floor(i / rps));
  });
  const timeline = sim.timeline ?? [];
  // The stage's first device: every member of a rank's group runs the same program.
  const device = new Array<number>(S).fill(Number.POSITIVE_INFINITY);
  for (const e of timeline) {
    const vs = stageOf.get(Number(e.tags.PP));
    if (vs !== undefined && e.op === 'F' && e.device < device[vs]!) device[vs] = e.device;
  }
  // Per (stage, pass, microbatch): the first start and the last end of its ops.
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  const sendF = new Array<number>(S).fill(Number.POSITIVE_INFINITY);
  const sendB = new Array<number>(S).fill(Number.POSITIVE_INFINITY);
  for (const e of timeline) {
    const vs = stageOf.get(Number(e.tags.PP));
    if (vs === undefined || e.device !== device[vs]) continue;
    if (e.op === 'SEND') {
      const forward = e.tags.PASS === 'F';
      const into = forward ? sendF : sendB;
      into[vs] = Math.min(into[vs]!, e.endMs - e.startMs);
      continue;
    }
    const pass = PASS_INDEX[e.op];
    if (pass === undefined) continue;
    const key = `${vs}/${pass}/${e.tags.MB}`;
    if (!(first.get(key)! <= e.startMs)) first.set(key, e.startMs);
    if (!(last.get(key)! >= e.endMs)) last.set(key, e.endMs);
  }
  const span = (vs: number, pass: number): number => {
    let best = Number.POSITIVE_INFINITY;
    for (let mb = 0; mb < p.microbatches; mb++) {
      const key = `${vs}/${pass}/${mb}`;
      const a = first.get(key);
      if (a !== undefined) best = Math.min(best, last.get(key)! - a);
    }
    return Number.isFinite(best) ? best : 0;
  };
  const alloc = new Array<number>(S).fill(0);
  const freeBI = new Array<number>(S).fill(0);
  const freeBW = new Array<number>(S).fill(0);
  for (const d of plan.devices) {
    for (const stream of d.streams) {
      for (const ins of stream.instructions) {
        if (ins.op !== 'F' && ins.op !== 'BI' && ins.op !== 'BW') continue;
        const vs = stageOf.get(Number(ins.tags.PP));
        if (vs === undefined || d.device !== device[vs] || Number(ins.tags.MB) !== 0) continue;
        if (ins.op === 'F') alloc[vs]! += ins.allocBytes ?? 0;
        else if (ins.op === 'BI') freeBI[vs]! += ins.freeBytes ?? 0;
        else freeBW[vs]! += ins.freeBytes ?? 0;
      }
    }
  }
  const finite = (xs: number[]) => xs.map((x) => (Number.isFinite(x) ? x : 0));
  return {
    F: Array.from({ length: S }, (_, vs) => span(vs, 0)),
    BI: Array.from({ length: S }, (_, vs) => span(vs, 1)),
    BW: Array.from({ length: S }, (_, vs) => span(vs, 2)),
    sendF: finite(sendF),
    sendB: finite(sendB),
    alloc,
    freeBI,
    freeBW,
  };
}
