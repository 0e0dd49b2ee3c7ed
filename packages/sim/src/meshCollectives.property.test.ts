/**
 * Property: over random mesh shapes, every directive that runs over mesh axes compiles to
 * collectives over exactly the right sub-groups. Two pipeline stages are placed on equal meshes
 * of up to three axes; each axis is given to data (replicate), tensor (shard_tensor) or expert
 * (shard) parallelism or to none. On every device, each collective must list the members that
 * share its coordinates off the directive's axes, in row-major order over them, under a key that
 * exactly those members use; every SEND/RECV must face the device of the same coordinates in the
 * other stage; and the plan must validate and simulate (so the sub-groups' orders are consistent).
 */
import {
  type CollectiveInstruction,
  type Design,
  type Directive,
  type Instruction,
  meshCoords,
  type P2PInstruction,
  type SyntheticBlock,
  validatePlan,
} from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { simulate } from './index.ts';

const AXES = ['dp', 'tp', 'ep'] as const;
type Role = 'replicate' | 'shard_tensor' | 'shard' | 'none';

const meshCase = fc
  .array(
    fc.record({
      size: fc.integer({ min: 1, max: 3 }),
      role: fc.constantFrom<Role>('replicate', 'shard_tensor', 'shard', 'none'),
    }),
    { minLength: 1, maxLength: 3 },
  )
  // Expert parallelism must divide the blocks' 4 experts: over all its axes together, so an axis
  // that would take the expert degree past a divisor of 4 is left to no directive.
  .map((axes) => {
    let experts = 1;
    return axes.map((a) => {
      if (a.role !== 'shard') return a;
      const size = a.size === 3 ? 2 : a.size;
      if (4 % (experts * size) !== 0) return { ...a, role: 'none' as const };
      experts *= size;
      return { ...a, size };
    });
  });

/** Per stage an attention block (TP) and an expert block (EP, 4 experts, top-2). */
function design(directives: Directive[], devices: number): Design {
  const blocks = [0, 1].flatMap((pp): SyntheticBlock[] => [
    {
      name: `attn ${pp}`,
      tags: { PP: pp, TP: 0 },
      F: 1,
      BI: 1,
      BW: 1,
      activationBytes: 100,
      paramBytes: 800,
      outputBytes: 10,
    },
    {
      name: `experts ${pp}`,
      tags: { PP: pp, EP: 0 },
      F: 2,
      BI: 2,
      BW: 2,
      activationBytes: 200,
      paramBytes: 1600,
      outputBytes: 10,
      experts: 4,
      topK: 2,
    },
  ]);
  return {
    format: 'stagecraft/design@3',
    name: 'mesh',
    model: { kind: 'synthetic', blocks, tokensPerMicrobatch: 1000 },
    cluster: { kind: 'ideal', devices },
    directives,
  };
}

function flat(dev: { streams: { instructions: Instruction[] }[] }): Instruction[] {
  return dev.streams.flatMap((s) => s.instructions.flatMap((i) => (i.op === 'OVERLAP' ? i.members : [i])));
}

test('every directive over mesh axes compiles to collectives over exactly the right sub-groups', () => {
  fc.assert(
    fc.property(meshCase, fc.integer({ min: 1, max: 2 }), (axes, microbatches) => {
      const names = axes.map((_, k) => AXES[k]!);
      const shape = axes.map((a) => a.size);
      const size = shape.reduce((a, b) => a * b, 1);
      const axesOf = (role: Role) => names.filter((_, k) => axes[k]!.role === role);
      const directives: Directive[] = [
        { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: microbatches },
        { op: 'place', filter: { PP: 0 }, mesh: { axes: names, shape } },
        { op: 'place', filter: { PP: 1 }, mesh: { axes: names, shape, start: size } },
      ];
      // The axes each directive runs over, by its index in the program.
      const maskOf = new Map<number, string[]>();
      const add = (d: Directive, over: string[]) => {
        if (over.length === 0) return;
        maskOf.set(directives.length, over);
        directives.push(d);
      };
      add({ op: 'shard_tensor', filter: { TP: '*' }, axis: axesOf('shard_tensor') }, axesOf('shard_tensor'));
      add({ op: 'shard', filter: { EP: '*' }, axis: axesOf('shard') }, axesOf('shard'));
      add({ op: 'replicate', filter: {}, axis: axesOf('replicate') }, axesOf('replicate'));
      const r = compile(design(directives, 2 * size));
      if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
      const plan = r.plan;
      expect(plan.format).toBe('stagecraft/plan@3');
      const mesh = { axes: names, shape };
      const stageOf = (d: number) => Math.floor(d / size);
      // Members of the sub-group of device d over `over`, row-major: found by comparing coordinates.
      const expected = (d: number, over: string[]) => {
        const base = stageOf(d) * size;
        const mine = meshCoords(mesh, d - base);
        const out: number[] = [];
        for (let k = 0; k < size; k++) {
          const c = meshCoords(mesh, k);
          if (names.every((n, a) => over.includes(n) || c[a] === mine[a])) out.push(base + k);
        }
        return out;
      };
      const keyMembers = new Map<string, number[]>();
      let collectives = 0;
      for (const dev of plan.devices) {
        for (const ins of flat(dev)) {
          if (ins.op === 'SEND' || ins.op === 'RECV') {
            const peer = (ins as P2PInstruction).peer;
            expect(stageOf(peer)).not.toBe(stageOf(dev.device));
            expect(peer % size).toBe(dev.device % size);
            continue;
          }
          if (!('collective' in ins)) continue;
          const c = ins as CollectiveInstruction;
          const over = maskOf.get(c.provenance!.directive!)!;
          expect(c.devices).toEqual(expected(dev.device, over));
          collectives++;
          let m = keyMembers.get(c.collective);
          if (!m) keyMembers.set(c.collective, (m = []));
          m.push(dev.device);
        }
      }
      // A key is used by exactly the members it lists: one collective per sub-group.
      for (const dev of plan.devices)
        for (const ins of flat(dev))
          if ('collective' in ins)
            expect(keyMembers.get((ins as CollectiveInstruction).collective)).toEqual(
              (ins as CollectiveInstruction).devices,
            );
      if (maskOf.size > 0 && [...maskOf.values()].some((o) => expected(0, o).length > 1))
        expect(collectives).toBeGreaterThan(0);
      expect(validatePlan(JSON.parse(JSON.stringify(plan)))).toEqual([]);
      const sim = simulate(plan);
      expect(sim.ok).toBe(true);
    }),
    { numRuns: 60 },
  );
});
