/**
 * The kernels each compute op of a block launches, derived from the block's forward GEMMs by the
 * op's code (nodeTable.ts): one place for the backward's rule (design/kernels.ts holds the shapes).
 */
import type { BlockGemm, BlockKernels, Gemm, OpKernels } from '../design/kernels.ts';
import { OP_B, OP_BI, OP_BW, OP_F, OP_RECOMPUTE } from './nodeTable.ts';

const plain = (g: BlockGemm): Gemm =>
  g.count === undefined ? { m: g.m, n: g.n, k: g.k } : { m: g.m, n: g.n, k: g.k, count: g.count };

/** Input gradient dA[m × k] = dC[m × n] · Bᵀ. */
function inputGrad(g: BlockGemm): Gemm {
  return g.count === undefined ? { m: g.m, n: g.k, k: g.n } : { m: g.m, n: g.k, k: g.n, count: g.count };
}

/** Weight gradient dB[k × n] = Aᵀ · dC: its reduction runs over the m tokens. */
function weightGrad(g: BlockGemm): Gemm {
  return g.count === undefined ? { m: g.k, n: g.n, k: g.m } : { m: g.k, n: g.n, k: g.m, count: g.count };
}

/** The kernels of compute op `code` (F, B, BI, BW, RECOMPUTE) of a block; undefined for UPD. */
export function opKernels(k: BlockKernels, code: number): OpKernels | undefined {
  const { gemms, otherLaunches: o, dtype } = k;
  const w = k.elementwiseBytes;
  /** The op's elementwise bytes (both classes) for the passes it runs; nothing on a block without them. */
  const bytes = (...passes: ('F' | 'BI' | 'BW')[]) => {
    if (w === undefined) return {};
    let sum = 0;
    for (const p of passes) sum += w.sequence[p] + w.split[p];
    return { elementwiseBytes: sum };
  };
  /** The attention core of the pass, on a block that has one (BW has none: the core has no weights). */
  const core = (pass: 'forward' | 'backward') =>
    k.attentionSeqLen === undefined ? {} : { attention: { seqLen: k.attentionSeqLen, pass } };
  switch (code) {
    case OP_F:
    case OP_RECOMPUTE:
      return { gemms: gemms.map(plain), otherLaunches: o.F, dtype, ...core('forward'), ...bytes('F') };
    case OP_BI:
      return { gemms: gemms.map(inputGrad), otherLaunches: o.BI, dtype, ...core('backward'), ...bytes('BI') };
    case OP_BW:
      return { gemms: gemms.map(weightGrad), otherLaunches: o.BW, dtype, ...bytes('BW') };
    case OP_B:
      return {
        gemms: [...gemms.map(inputGrad), ...gemms.map(weightGrad)],
        otherLaunches: o.BI + o.BW,
        dtype,
        ...core('backward'),
        ...bytes('BI', 'BW'),
      };
  }
  return undefined;
}
