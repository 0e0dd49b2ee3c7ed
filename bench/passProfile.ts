/**
 * Where compile + simulate spends its time, pass by pass, from V8's sampling profiler over many
 * runs: the garbage collection the passes' own timings hold wherever it lands is counted apart,
 * and the profile (opened in Chrome's DevTools) shows the functions inside each pass. Each sample
 * is charged to the pass on its stack: the function the pass manager (`runPass`) called, named by
 * its module; the program's expansion and the DAG's build (`expandAndBuild`); the simulation
 * (`simulateRun`); the garbage collector; or "other" (the workflow around them). The profiler
 * samples on the clock, so on a loaded machine the times include waiting for a core, as wall
 * times do: compare shares, or quiet-machine figures.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface PassShare {
  readonly pass: string;
  /** Sampled ms per run. */
  readonly ms: number;
  readonly share: number;
}

/** Profiles `runs` calls of `work`, writes the profile to `file` (DevTools opens it) and shares it out. */
export async function profilePasses(work: () => void, runs: number, file: string): Promise<PassShare[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    // 0.1 ms between samples: a pass of a few milliseconds gets tens of samples per run.
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    for (let i = 0; i < runs; i++) work();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    writeFileSync(file, JSON.stringify(profile));
    return shares(profile, runs);
  } finally {
    session.disconnect();
  }
}

/** Each sample's time charged to its pass (see above), per run, largest first. */
export function shares(profile: Profile, runs: number): PassShare[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const passOf = new Map<number, string>();
  const label = (id: number): string => {
    const known = passOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const up = parent.get(id);
    const { functionName, url } = node.callFrame;
    let pass: string;
    if (functionName === '(garbage collector)') pass = 'garbage collection';
    else if (functionName === 'simulateRun') pass = 'simulate';
    else if (functionName === 'expandAndBuild') pass = 'expand-schedule + build-dag';
    else if (up !== undefined && byId.get(up)!.callFrame.functionName === 'runPass') pass = moduleOf(url);
    else pass = up === undefined ? 'other' : label(up);
    passOf.set(id, pass);
    return pass;
  };
  const total = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    const pass = label(profile.samples[i]!);
    total.set(pass, (total.get(pass) ?? 0) + us);
    all += us;
  }
  return [...total]
    .map(([pass, us]) => ({ pass, ms: us / 1000 / runs, share: all > 0 ? us / all : 0 }))
    .sort((a, b) => b.ms - a.ms);
}

/** `passes/order.ts` of a module's URL: the pass's own file. */
function moduleOf(url: string): string {
  const parts = url.split('/');
  return parts.slice(-2).join('/') || '(unknown module)';
}
