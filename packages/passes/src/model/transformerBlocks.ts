/**
 * A transformer's blocks from its hyperparameters: per block the FLOPs of F, BI and BW, parameter
 * counts, stashed activation bytes (with and without recompute) and the bytes its output sends on.
 * Every formula is stated in docs/cost-model.md, "Models and clusters"; tests check them against
 * hand-computed values.
 *
 * A model is a sequence of *units* in Megatron-LM's layout vocabulary — `E` embedding, `t` decoder
 * layer, `m` multi-token-prediction module, `L` final norm + head + loss — and each unit lowers to
 * one or more blocks (a MoE layer: attention, router, shared experts, routed experts).
 */
import {
  type BlockGemm,
  DTYPE_BYTES,
  type ElementwiseBytes,
  type RecomputePart,
  type RecomputePartCost,
  type TransformerConfig,
} from '@stagecraft/ir';
import {
  classed,
  crossEntropyBytes,
  embeddingBytes,
  normBytes,
  permutationBytes,
  residualBytes,
  ropeBytes,
  routerSoftmaxBytes,
  sumBytes,
  swigluBytes,
} from './elementwiseBytes.ts';

/**
 * Attention is causal: a query attends to the keys at or before it, so the score and context
 * matmuls do half the work of the full s × s product (what causal FlashAttention executes).
 */
export const CAUSAL_FACTOR = 0.5;

export type UnitKind = 'E' | 't' | 'm' | 'L';

export type BlockPart =
  | 'embedding'
  | 'attention'
  | 'mlp'
  | 'router'
  | 'shared-experts'
  | 'experts'
  | 'mtp-projection'
  | 'head';

export interface Flops {
  F: number;
  BI: number;
  BW: number;
}

/** One block before tagging: what it costs and holds for one microbatch. */
export interface TransformerBlock {
  name: string;
  part: BlockPart;
  /** Decoder layer index (MTP modules continue after the last layer); undefined for E and L. */
  layer?: number;
  flops: Flops;
  /** Its weight GEMMs in the forward, per microbatch and before any parallelism (F's shapes; BI and BW derive). */
  gemms: BlockGemm[];
  /**
   * Kernels launched besides the GEMMs, per pass: norms, activations, RoPE, the attention core,
   * token permutation, residual adds, the loss (unfused, as in Megatron-LM's layers).
   */
  otherLaunches: Flops;
  /** HBM bytes of those memory-bound kernels per pass (elementwiseBytes.ts). */
  elementwiseBytes: ElementwiseBytes;
  /** Parameters held (elements). */
  params: number;
  /** Parameters one token's forward uses (routed experts: topK of them). */
  activeParams: number;
  paramBytes: number;
  /** Bytes kept from F until the backward. */
  activationBytes: number;
  /** The same under full recompute: only the block's input. */
  recomputeActivationBytes: number;
  /** Of activationBytes, the norm's input and output (what sequence parallelism splits); 0 if none. */
  sequenceActivationBytes?: number;
  /** Bytes sent to the next block (and, as the gradient, back): the hidden state. */
  outputBytes: number;
  /** What selective recomputation can re-make instead of stashing, per part (BlockInfo.recomputeParts). */
  recomputeParts?: Partial<Record<RecomputePart, RecomputePartCost>>;
  /** Of activationBytes, the routed tokens' copies (expert blocks): what dispatch delivers. */
  dispatchedActivationBytes?: number;
  /** Attention: its keys and values for one microbatch, what context parallelism exchanges. */
  kvBytes?: number;
  /** Attention: the sequence length its core (FlashAttention) runs over, which sets its efficiency. */
  attentionSeqLen?: number;
}

export interface TransformerUnit {
  kind: UnitKind;
  /** Layer index for `t` and `m` units. */
  layer?: number;
  blocks: TransformerBlock[];
}

/** Elementwise work (norms, RoPE, SiLU, softmax, residual adds) is not counted: matmuls dominate. */
function matmul(tokens: number, n: number, k: number): number {
  return 2 * tokens * n * k;
}

/** A column-parallel GEMM (tensor parallelism divides its output width n). */
function column(m: number, k: number, n: number, count?: number): BlockGemm {
  return count === undefined ? { m, n, k, split: 'n' } : { m, n, k, count, split: 'n' };
}

/** A row-parallel GEMM (tensor parallelism divides its reduction k). */
function row(m: number, k: number, n: number, count?: number): BlockGemm {
  return count === undefined ? { m, n, k, split: 'k' } : { m, n, k, count, split: 'k' };
}

/** `n` other kernels in F and in BI, none in BW (its weight-gradient GEMMs are all it runs). */
function launches(n: number): Flops {
  return { F: n, BI: n, BW: 0 };
}

/** F, BI, BW of a block made of weight matmuls of `forward` FLOPs: backward is one matmul per gradient. */
function weights(forward: number): Flops {
  return { F: forward, BI: forward, BW: forward };
}

interface Ctx {
  c: TransformerConfig;
  /** Tokens in one microbatch. */
  t: number;
  /** Bytes per element. */
  e: number;
}

function block(
  x: Ctx,
  b: Omit<TransformerBlock, 'paramBytes' | 'recomputeActivationBytes' | 'outputBytes' | 'activeParams'> & {
    activeParams?: number;
  },
): TransformerBlock {
  const hiddenBytes = x.t * x.c.hidden * x.e;
  return {
    ...b,
    activeParams: b.activeParams ?? b.params,
    paramBytes: b.params * x.e,
    recomputeActivationBytes: Math.min(b.activationBytes, hiddenBytes),
    outputBytes: hiddenBytes,
  };
}

/**
 * Keys a query of decoder layer `layer` attends to, averaged over the sequence's s queries: s/2
 * under the causal mask; under a window of w keys, w − w²/(2s) (the first w queries see fewer),
 * which is s/2 again at w = s.
 */
export function attendedKeys(c: TransformerConfig, layer: number): number {
  const s = c.seqLen;
  const w = c.slidingWindow;
  // Megatron-LM counts layers from 1 and skips the window where the number is a multiple.
  if (w === undefined || (layer + 1) % w.fullEvery === 0 || w.tokens >= s) return s * CAUSAL_FACTOR;
  return w.tokens - (w.tokens * w.tokens) / (2 * s);
}

/** Query, key and value widths of the attention core. */
export function attentionDims(c: TransformerConfig): { qk: number; v: number } {
  if (c.mla) return { qk: c.mla.qkNopeHeadDim + c.mla.qkRopeHeadDim, v: c.mla.vHeadDim };
  return { qk: c.headDim, v: c.headDim };
}

function attention(x: Ctx, layer: number, name: string): TransformerBlock {
  const { c, t, e } = x;
  const h = c.hidden;
  const { qk, v } = attentionDims(c);
  // Score (Q·Kᵀ) and context (P·V) matmuls over the keys each query attends to.
  const core = 2 * t * attendedKeys(c, layer) * c.heads * (qk + v);
  let projParams: number;
  let normParams = h;
  let stash: number;
  let gemms: BlockGemm[];
  let parts: TransformerBlock['recomputeParts'];
  let kvBytes: number;
  let split: Flops;
  if (c.mla) {
    const m = c.mla;
    const q = m.qLoraRank !== undefined ? h * m.qLoraRank + m.qLoraRank * c.heads * qk : h * c.heads * qk;
    const kv = h * (m.kvLoraRank + m.qkRopeHeadDim) + m.kvLoraRank * c.heads * (m.qkNopeHeadDim + v);
    projParams = q + kv + c.heads * v * h;
    gemms = [
      ...(m.qLoraRank !== undefined
        ? [column(t, h, m.qLoraRank), column(t, m.qLoraRank, c.heads * qk)]
        : [column(t, h, c.heads * qk)]),
      column(t, h, m.kvLoraRank + m.qkRopeHeadDim),
      column(t, m.kvLoraRank, c.heads * (m.qkNopeHeadDim + v)),
      row(t, c.heads * v, h),
    ];
    normParams += (m.qLoraRank ?? 0) + m.kvLoraRank;
    // Norm input and output, the latents and their norms, Q, K, V and the attention output.
    const qLatent = 2 * (m.qLoraRank ?? 0);
    const kvLatent = 2 * m.kvLoraRank + m.qkRopeHeadDim;
    stash = t * (2 * h + qLatent + kvLatent + c.heads * (2 * qk + 2 * v)) * e;
    const norms = m.qLoraRank !== undefined ? 3 : 2;
    const up = m.qLoraRank !== undefined ? [1, 3] : [2];
    const latents = (m.qLoraRank ?? 0) + m.kvLoraRank;
    // RoPE rotates each head's query part and the one shared key part.
    const rope = ropeBytes(t, (c.heads + 1) * m.qkRopeHeadDim, e);
    parts = {
      // The input norm's and the latent norms' outputs (one launch each).
      norm: {
        bytes: t * (h + latents) * e,
        gemms: [],
        launches: norms,
        elementwiseBytes: normBytes(t, h + latents, e).F,
      },
      // K and V (and Q, with a query latent) from the latents: the up-projections and RoPE again;
      // the attention output stays.
      mla_up_projection: {
        bytes: t * c.heads * ((m.qLoraRank !== undefined ? 2 : 1) * qk + v) * e,
        gemms: up,
        launches: 1,
        elementwiseBytes: rope.F,
      },
    };
    // The latent norms run on the latents, which the model splits like their down-projections.
    split = sumBytes(normBytes(t, latents, e), rope);
    // The up-projected K and V per head (Megatron-LM's context parallelism exchanges those under MLA).
    kvBytes = t * c.heads * (qk + v) * e;
  } else {
    const hq = c.heads * c.headDim;
    const hkv = c.kvHeads * c.headDim;
    projParams = h * (hq + 2 * hkv) + hq * h;
    gemms = [column(t, h, hq + 2 * hkv), row(t, hq, h)];
    // Norm input, norm output (the QKV input), Q, K, V and the attention output (the O input).
    stash = t * (2 * h + 2 * hq + 2 * hkv) * e;
    parts = { norm: normPart(x) };
    split = ropeBytes(t, hq + hkv, e);
    kvBytes = 2 * t * hkv * e;
  }
  // FlashAttention keeps one fp32 log-sum-exp per query and head instead of the s × s scores.
  stash += t * c.heads * 4;
  const proj = matmul(t, projParams, 1);
  const b = block(x, {
    name,
    part: 'attention',
    layer,
    // The core has no weights: its backward is the two input gradients (dQ·dK, dV·dP), no BW.
    flops: { F: proj + core, BI: proj + 2 * core, BW: proj },
    gemms,
    // Norm, RoPE, the attention core (FlashAttention) and the residual add.
    otherLaunches: launches(4),
    elementwiseBytes: classed(sumBytes(normBytes(t, h, e), residualBytes(t, h, e)), split),
    params: projParams + normParams,
    activationBytes: stash,
    sequenceActivationBytes: 2 * t * h * e,
    recomputeParts: parts,
  });
  return { ...b, kvBytes, attentionSeqLen: c.seqLen };
}

/** A block's one RMSNorm output (t·h), re-made by one launch. */
function normPart(x: Ctx, norms = 1): RecomputePartCost {
  const bytes = norms * x.t * x.c.hidden * x.e;
  return { bytes, gemms: [], launches: norms, elementwiseBytes: normBytes(norms * x.t, x.c.hidden, x.e).F };
}

/** The SwiGLU output (the down-projection's input, `copies`·t·f), re-made by one launch. */
function swigluPart(x: Ctx, f: number, copies = 1): RecomputePartCost {
  const bytes = copies * x.t * f * x.e;
  return { bytes, gemms: [], launches: 1, elementwiseBytes: swigluBytes(copies * x.t, f, x.e).F };
}

/** SwiGLU MLP: gate and up (h → f), down (f → h). */
function swiglu(
  x: Ctx,
  f: number,
  tokens = x.t,
  count?: number,
): { flops: number; params: number; stash: number; gemms: BlockGemm[] } {
  const h = x.c.hidden;
  return {
    flops: matmul(x.t, 3 * h, f),
    params: 3 * h * f,
    stash: 3 * x.t * f * x.e,
    gemms: [column(tokens, h, 2 * f, count), row(tokens, f, h, count)],
  };
}

function denseMlp(x: Ctx, layer: number, name: string): TransformerBlock {
  const h = x.c.hidden;
  const m = swiglu(x, x.c.ffnHidden);
  return block(x, {
    name,
    part: 'mlp',
    layer,
    flops: weights(m.flops),
    gemms: m.gemms,
    // Norm, SwiGLU, residual add.
    otherLaunches: launches(3),
    elementwiseBytes: classed(
      sumBytes(normBytes(x.t, h, x.e), residualBytes(x.t, h, x.e)),
      swigluBytes(x.t, x.c.ffnHidden, x.e),
    ),
    params: m.params + h,
    // Norm input, norm output (the gate/up input), gate and up outputs, the down input.
    activationBytes: 2 * x.t * h * x.e + m.stash,
    sequenceActivationBytes: 2 * x.t * h * x.e,
    recomputeParts: { norm: normPart(x), swiglu: swigluPart(x, x.c.ffnHidden) },
  });
}

/** Blocks of an MoE layer's feed-forward (moeBlocks): the router, the shared experts if any, the routed experts. */
function moeBlockCount(moe: Required<NonNullable<TransformerConfig['moe']>>): number {
  return moe.sharedExperts > 0 ? 3 : 2;
}

/** Whether decoder layer `layer` (MTP modules' layers numbered after the model's) is an MoE layer. */
function isMoeLayer(c: TransformerConfig, layer: number): boolean {
  return c.moe !== undefined && layer >= c.moe.denseLayers;
}

function moeBlocks(x: Ctx, layer: number, prefix: string): TransformerBlock[] {
  const { c, t, e } = x;
  const h = c.hidden;
  const moe = c.moe!;
  const out: TransformerBlock[] = [
    block(x, {
      name: `${prefix} router`,
      part: 'router',
      layer,
      flops: weights(matmul(t, h, moe.experts)),
      gemms: [column(t, h, moe.experts)],
      // Norm, softmax and top-k.
      otherLaunches: launches(2),
      // The residual add is the experts' block's; its gradient's accumulation is counted here,
      // beside the norm's backward, where the layer's input gradient is formed.
      elementwiseBytes: classed(
        sumBytes(normBytes(t, h, e), routerSoftmaxBytes(t, moe.experts), {
          F: 0,
          BI: residualBytes(t, h, e).BI,
          BW: 0,
        }),
      ),
      params: h * moe.experts + h,
      // Norm input and output (shared by router and experts), fp32 router logits.
      activationBytes: 2 * t * h * e + t * moe.experts * 4,
      recomputeParts: { norm: normPart(x) },
    }),
  ];
  if (moe.sharedExperts > 0) {
    const s = swiglu(x, moe.sharedExperts * moe.sharedExpertFfnHidden);
    out.push(
      block(x, {
        name: `${prefix} shared experts`,
        part: 'shared-experts',
        layer,
        flops: weights(s.flops),
        gemms: s.gemms,
        // SwiGLU.
        otherLaunches: launches(1),
        elementwiseBytes: classed(
          sumBytes(),
          swigluBytes(t, moe.sharedExperts * moe.sharedExpertFfnHidden, e),
        ),
        params: s.params,
        activationBytes: s.stash,
        recomputeParts: { swiglu: swigluPart(x, moe.sharedExperts * moe.sharedExpertFfnHidden) },
      }),
    );
  }
  // Every expert's GEMMs at once (a grouped GEMM), t·k/E tokens each under uniform routing;
  // expert parallelism over n devices (shard) runs E/n of them on n·t·k/E tokens each.
  const one = swiglu(x, moe.expertFfnHidden, (t * moe.topK) / moe.experts, moe.experts);
  out.push(
    block(x, {
      name: `${prefix} experts`,
      part: 'experts',
      layer,
      // Each token runs through topK experts: topK × one expert's MLP per token.
      flops: weights(one.flops * moe.topK),
      gemms: one.gemms,
      // Permute, SwiGLU, unpermute, residual add.
      otherLaunches: launches(4),
      elementwiseBytes: classed(
        sumBytes(permutationBytes(t, h, moe.topK, e), { F: residualBytes(t, h, e).F, BI: 0, BW: 0 }),
        swigluBytes(moe.topK * t, moe.expertFfnHidden, e),
      ),
      params: one.params * moe.experts,
      activeParams: one.params * moe.topK,
      // Per routed copy of a token: its permuted input plus one expert's intermediates.
      activationBytes: moe.topK * (t * h * e + one.stash),
      recomputeParts: { swiglu: swigluPart(x, moe.expertFfnHidden, moe.topK) },
      dispatchedActivationBytes: moe.topK * t * h * e,
    }),
  );
  return out;
}

function decoderLayer(x: Ctx, layer: number, prefix: string): TransformerBlock[] {
  const ffn = isMoeLayer(x.c, layer) ? moeBlocks(x, layer, prefix) : [denseMlp(x, layer, `${prefix} mlp`)];
  return [attention(x, layer, `${prefix} attention`), ...ffn];
}

function head(x: Ctx, name: string, layer?: number): TransformerBlock {
  const { c, t, e } = x;
  const b = block(x, {
    name,
    part: 'head',
    ...(layer !== undefined ? { layer } : {}),
    flops: weights(matmul(t, c.hidden, c.vocab)),
    gemms: [column(t, c.hidden, c.vocab)],
    // Norm and the cross-entropy (softmax and loss).
    otherLaunches: launches(2),
    elementwiseBytes: classed(normBytes(t, c.hidden, e), crossEntropyBytes(t, c.vocab, e)),
    params: c.hidden * c.vocab + c.hidden,
    // Norm input and output, and the fp32 softmax of the logits the cross-entropy backward reads.
    activationBytes: 2 * t * c.hidden * e + t * c.vocab * 4,
    recomputeParts: { norm: normPart(x) },
  });
  return b;
}

/** The model's units in forward order: E, t × layers, m × mtpLayers, L. */
export function transformerUnits(c: TransformerConfig): TransformerUnit[] {
  const x: Ctx = { c, t: tokensPerMicrobatch(c), e: DTYPE_BYTES[c.dtype] };
  const h = c.hidden;
  const units: TransformerUnit[] = [
    {
      kind: 'E',
      blocks: [
        {
          ...block(x, {
            name: 'embedding',
            part: 'embedding',
            // A table lookup: no FLOPs; its weight gradient is a scatter-add of the output gradient.
            flops: { F: 0, BI: 0, BW: 0 },
            gemms: [],
            // The lookup; the gradient's scatter-add.
            otherLaunches: { F: 1, BI: 0, BW: 1 },
            elementwiseBytes: classed(embeddingBytes(x.t, h, x.e)),
            params: c.vocab * h,
            // The token ids (int64) the gradient scatter reads.
            activationBytes: x.t * 8,
          }),
        },
      ],
    },
  ];
  for (let l = 0; l < c.layers; l++)
    units.push({ kind: 't', layer: l, blocks: decoderLayer(x, l, `layer ${l}`) });
  for (let i = 0; i < c.mtpLayers; i++) {
    const layer = c.layers + i;
    const prefix = `mtp ${i}`;
    units.push({
      kind: 'm',
      layer,
      blocks: [
        block(x, {
          name: `${prefix} projection`,
          part: 'mtp-projection',
          layer,
          // Norms of the previous depth's hidden state and of the next token's embedding, then 2h → h.
          flops: weights(matmul(x.t, 2 * h, h)),
          gemms: [column(x.t, 2 * h, h)],
          // Two norms and the concatenation.
          otherLaunches: launches(3),
          // Two norms, then the concatenation reads both normed halves and writes them side by side.
          elementwiseBytes: classed(
            sumBytes(normBytes(2 * x.t, h, x.e), { F: 4 * x.t * h * x.e, BI: 4 * x.t * h * x.e, BW: 0 }),
          ),
          // Its own embedding table (DeepSeek-V3 keeps one per module), two norms, the projection.
          params: c.vocab * h + 2 * h + 2 * h * h,
          activationBytes: 4 * x.t * h * x.e,
          recomputeParts: { norm: normPart(x, 2) },
        }),
        ...decoderLayer(x, layer, prefix),
        head(x, `${prefix} head`, layer),
      ],
    });
  }
  const last = head(x, 'head');
  // A tied head reuses the embedding's table: counted once, though its stage still holds a copy.
  const headParams = c.tiedEmbeddings ? h : last.params;
  units.push({
    kind: 'L',
    blocks: [{ ...last, params: headParams, activeParams: headParams, outputBytes: 0 }],
  });
  return units;
}

/**
 * How many blocks transformerUnits makes, counted without making them (a size judged before
 * compiling, for any number of layers): the embedding, per decoder layer its attention and its
 * MLP or MoE blocks, per MTP module a projection, a decoder layer and a head, and the head.
 */
export function transformerBlockCount(c: TransformerConfig): number {
  const decoderLayers = c.layers + c.mtpLayers;
  const moeLayers = c.moe ? Math.max(0, decoderLayers - c.moe.denseLayers) : 0;
  const ffnBlocks = decoderLayers - moeLayers + (c.moe ? moeLayers * moeBlockCount(c.moe) : 0);
  return 1 + decoderLayers + ffnBlocks + 2 * c.mtpLayers + 1;
}

export interface ParameterCounts {
  /** Parameters of the main model (embedding, layers, head; a tied head counted once). */
  total: number;
  /** Parameters one token's forward uses. */
  active: number;
  /** Parameters of the multi-token-prediction modules, not included in `total`. */
  mtp: number;
}

/** Parameter counts as model cards report them: MTP modules apart, routed experts active topK. */
export function parameterCounts(c: TransformerConfig): ParameterCounts {
  let total = 0;
  let active = 0;
  let mtp = 0;
  for (const u of transformerUnits(c))
    for (const b of u.blocks) {
      if (u.kind === 'm') mtp += b.params;
      else {
        total += b.params;
        active += b.activeParams;
      }
    }
  return { total, active, mtp };
}

/** Tokens one microbatch carries. */
export function tokensPerMicrobatch(c: TransformerConfig): number {
  return c.microbatchSize * c.seqLen;
}
