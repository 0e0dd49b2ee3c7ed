/**
 * The GEMM shapes a plan carries must describe the work its FLOPs count, whatever expert and tensor
 * parallelism did to them: the simulator times the shapes, MFU counts the FLOPs, and the two must not
 * drift apart.
 */
import { type Design, gemmFlops, type Instruction } from '@stagecraft/ir';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { compile } from './compile/compile.ts';

/** One layer over n GPUs: experts sharded n ways, and attention, head and embedding n-way tensor parallel when `tp`. */
function design(n: number, ep: boolean, tp: boolean): Design {
  const devices = Array.from({ length: n }, (_, i) => i);
  return {
    format: 'stagecraft/design@2',
    name: `qwen3 over ${n}`,
    model: { kind: 'transformer', preset: 'qwen3-30b-a3b', layers: 1, seqLen: 256, annotate: { PP: 1 } },
    cluster: { preset: 'dgx-h100', nodes: 2 },
    directives: [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 1 },
      { op: 'place', filter: {}, devices },
      ...(ep ? [{ op: 'shard', filter: { EP: '*' }, devices }] : []),
      ...(tp ? [{ op: 'shard_tensor', filter: { TP: '*' }, devices }] : []),
    ] as Design['directives'],
  };
}

test('under any expert- and tensor-parallel degrees, every op’s GEMMs carry its FLOPs (attention: all but the core)', () => {
  fc.assert(
    fc.property(fc.constantFrom(1, 2, 4, 8, 16), fc.boolean(), fc.boolean(), (n, ep, tp) => {
      const c = compile(design(n, ep, tp), { keepSnapshots: false });
      if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
      const visit = (i: Instruction) => {
        if (i.op === 'OVERLAP') return i.members.forEach(visit);
        if (!('kernels' in i) || !i.kernels || i.flops === undefined) return;
        const inGemms = gemmFlops(i.kernels.gemms);
        expect(inGemms).toBeLessThanOrEqual(i.flops * (1 + 1e-12));
        // Only attention has FLOPs outside its GEMMs (its core); every other op is all GEMMs.
        if (i.tags.TP !== 0) expect(inGemms).toBeCloseTo(i.flops, -1);
        for (const g of i.kernels.gemms) expect(Math.min(g.m, g.n, g.k, g.count ?? 1)).toBeGreaterThan(0);
      };
      for (const d of c.plan.devices) for (const s of d.streams) s.instructions.forEach(visit);
    }),
    { numRuns: 12 },
  );
});
