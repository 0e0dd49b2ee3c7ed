import type { Design, Directive } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { collectiveMs, resolveCluster } from './costModel.ts';
import { simulate } from './simulate.ts';

/** Llama-3-8B, two layers of 16K tokens, on one DGX H100 node: cp members along the whole group. */
function design(cp: number, form?: 'ring' | 'all_gather'): Design {
  const devices = Array.from({ length: cp }, (_, i) => i);
  const directives: Directive[] = [
    { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
    { op: 'place', filter: {}, devices },
  ];
  if (cp > 1) directives.push({ op: 'shard_sequence', filter: {}, devices, ...(form ? { form } : {}) });
  return {
    format: 'stagecraft/design@3',
    name: `cp${cp}`,
    model: { kind: 'transformer', preset: 'llama3-8b', layers: 2, seqLen: 16384, annotate: { PP: 1 } },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives,
  };
}

function run(d: Design) {
  const c = compile(d, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const s = simulate(c.plan);
  if (!s.ok) throw new Error(s.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return { plan: c.plan, sim: s.sim };
}

describe('context parallelism in the simulator', () => {
  it('holds 1/cp of the activations on each member', () => {
    const one = run(design(1)).sim.devices[0]!.peakActivationBytes;
    for (const cp of [2, 4]) {
      const split = run(design(cp)).sim.devices[0]!.peakActivationBytes;
      expect(split / one).toBeCloseTo(1 / cp, 2);
    }
  });

  it('costs each K/V exchange as a ring of cp−1 steps of 1/cp of K and V over the link', () => {
    const { plan, sim } = run(design(4, 'all_gather'));
    const ins = plan.devices[0]!.streams.flatMap((s) => s.instructions).find((i) => i.op === 'ALL_GATHER')!;
    if (ins.op !== 'ALL_GATHER') throw new Error('no K/V all-gather');
    // Llama-3-8B: 8 K/V heads of 128, 16,384 tokens, bf16: K and V of one microbatch.
    expect(ins.bytes).toBe(2 * 16384 * 8 * 128 * 2);
    const cluster = resolveCluster(plan.cluster);
    if (!cluster.ok) throw new Error('cluster');
    const event = sim.timeline!.find((e) => e.id === ins.id && e.device === 0)!;
    expect(event.endMs - event.startMs).toBeCloseTo(
      collectiveMs(cluster.cost, 'ALL_GATHER', [0, 1, 2, 3], ins.bytes),
      6,
    );
  });

  it('charges the ring ringSteps steps of one member’s K/V over the link; the next block waits for it and the forward', () => {
    const cp = 4;
    const { plan, sim } = run(design(cp, 'ring'));
    const cluster = resolveCluster(plan.cluster);
    if (!cluster.ok) throw new Error('cluster');
    const ins = plan.devices[0]!.streams.flatMap((s) => s.instructions);
    const at = (id: string) => sim.timeline!.find((e) => e.id === id && e.device === 0)!;
    const ring = ins.find((i) => i.id === 'ALL_GATHER.cp.F.b1.mb0');
    if (ring?.op !== 'ALL_GATHER') throw new Error('no K/V ring');
    expect(ring.ringSteps).toBe(cp - 1);
    // One step: a member's chunk (1/cp of K/V) over the slowest link of the ring, plus its latency.
    const step = collectiveMs(cluster.cost, 'ALL_GATHER', [0, 1, 2, 3], ring.bytes) / (cp - 1);
    const x = at(ring.id);
    expect(x.endMs - x.startMs).toBeCloseTo(ring.ringSteps! * step, 6);
    const forward = at('F.b1.mb0');
    const reader = ins.find((i) => i.op === 'F' && i.id.endsWith('.mb0') && i.block === 2)!;
    expect(at(reader.id).startMs).toBeGreaterThanOrEqual(Math.max(forward.endMs, x.endMs) - 1e-9);
    // The next block's ring passes the output this one completes: it starts after this ring.
    const next = ins.find((i) => i.id.startsWith('ALL_GATHER.cp.F.') && i.id.endsWith('.mb0') && i !== ring)!;
    expect(at(next.id).startMs).toBeGreaterThanOrEqual(x.endMs - 1e-9);
  });

  it('ring overlaps the exchange with the attention; all_gather waits for it', () => {
    const ring = run(design(4, 'ring')).sim;
    const gathered = run(design(4, 'all_gather')).sim;
    expect(ring.makespanMs).toBeLessThan(gathered.makespanMs);
    // Each member does 1/cp of the work: four members take well under half the step of one.
    expect(ring.makespanMs).toBeLessThan(run(design(1)).sim.makespanMs / 2);
  });

  it('charges the exchanged K/V while the attention reads them: the gathered (cp−1)/cp, or the ring’s two chunks', () => {
    const cp = 4;
    const held = (form: 'ring' | 'all_gather') => {
      const { plan } = run(design(cp, form));
      const ins = plan.devices[0]!.streams.flatMap((s) => s.instructions);
      const gather = ins.find((i) => i.op === 'ALL_GATHER' && i.id.includes('.F.'));
      if (gather?.op !== 'ALL_GATHER') throw new Error('no K/V all-gather');
      const forward = ins.find((i) => i.op === 'F' && gather.id.endsWith(i.id));
      const backward = ins.find(
        (i) => (i.op === 'B' || i.op === 'BI') && i.id.endsWith(gather.id.split('.F.')[1]!),
      );
      if (forward?.op !== 'F' || !backward || !('freeBytes' in backward)) throw new Error('no attention ops');
      return { kv: gather.bytes, forward: forward.freeBytes ?? 0, backward: backward.freeBytes ?? 0 };
    };
    const gathered = held('all_gather');
    // The forward frees only the exchanged buffer (its stash lives until the backward).
    expect(gathered.forward).toBeCloseTo((gathered.kv * (cp - 1)) / cp, 6);
    const ring = held('ring');
    expect(ring.forward).toBeCloseTo((2 * ring.kv) / cp, 6);
    // The backward holds K/V and their gradients: twice the forward's buffer, on top of the stash it frees.
    expect(gathered.backward).toBeGreaterThan(2 * gathered.forward);
  });
});
