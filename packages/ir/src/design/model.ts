import * as z from 'zod';
import { checkTransformer } from './transformerPresets.ts';

const nonNeg = z.number().finite().min(0);
const bytes = z.number().finite().min(0);
const tagsSchema = z.record(
  z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'tag names are upper case, e.g. PP'),
  z.number().int().min(0),
);

/** Per-microbatch costs of one block, in milliseconds. The fused backward B costs BI + BW. */
export const costsSchema = z.strictObject({
  F: nonNeg,
  BI: nonNeg,
  BW: nonNeg,
  /** One overlapped forward+backward pair (DualPipe's F&B); defaults to F + BI + BW. */
  FandB: nonNeg.optional(),
  /** Optimizer step of the block's parameters; defaults to 0. */
  UPD: nonNeg.optional(),
});

/** `stages` form: S identical blocks tagged PP=0..S-1. */
export const syntheticStagesSchema = z.strictObject({
  kind: z.literal('synthetic'),
  stages: z.number().int().min(1),
  costs: costsSchema,
  activationBytes: bytes.optional(),
  paramBytes: bytes.optional(),
  outputBytes: bytes.optional(),
});

export const syntheticBlockSchema = z.strictObject({
  name: z.string().optional(),
  tags: tagsSchema,
  F: nonNeg,
  BI: nonNeg,
  BW: nonNeg,
  FandB: nonNeg.optional(),
  UPD: nonNeg.optional(),
  activationBytes: bytes.optional(),
  paramBytes: bytes.optional(),
  outputBytes: bytes.optional(),
  /** Per-microbatch FLOPs of F, BI and BW: what MFU counts (the ms stay the durations). */
  flops: z.strictObject({ F: nonNeg, BI: nonNeg, BW: nonNeg }).optional(),
  /** Bytes kept from F to B when the block's forward is recomputed. */
  recomputeActivationBytes: bytes.optional(),
  /** Routed experts of an MoE block and experts per token. */
  experts: z.number().int().min(1).optional(),
  topK: z.number().int().min(1).optional(),
});

/** General form: an explicit chain of blocks in forward order. */
export const syntheticBlocksSchema = z.strictObject({
  kind: z.literal('synthetic'),
  blocks: z.array(syntheticBlockSchema).min(1),
  /** Tokens in one microbatch of one data-parallel rank, for tokens/s. */
  tokensPerMicrobatch: z.number().int().min(1).optional(),
});

export const moeSchema = z.strictObject({
  /** Routed experts per MoE layer. */
  experts: z.number().int().min(1),
  /** Routed experts each token goes to. */
  topK: z.number().int().min(1),
  /** Intermediate size of one routed expert's SwiGLU MLP. */
  expertFfnHidden: z.number().int().min(1),
  /** Shared experts every token goes through (DeepSeek-V3: 1); default 0. */
  sharedExperts: z.number().int().min(0).optional(),
  /** Intermediate size of one shared expert; defaults to `expertFfnHidden`. */
  sharedExpertFfnHidden: z.number().int().min(1).optional(),
  /** The first layers use a dense MLP of `ffnHidden` instead of experts (DeepSeek-V3: 3); default 0. */
  denseLayers: z.number().int().min(0).optional(),
});

/** Multi-head latent attention (DeepSeek-V2/V3): low-rank query and key/value projections. */
export const mlaSchema = z.strictObject({
  /** Rank of the query down-projection; absent: queries are projected from the hidden state directly. */
  qLoraRank: z.number().int().min(1).optional(),
  kvLoraRank: z.number().int().min(1),
  qkNopeHeadDim: z.number().int().min(1),
  qkRopeHeadDim: z.number().int().min(1),
  vHeadDim: z.number().int().min(1),
});

export const annotateSchema = z.strictObject({
  /** Pipeline stages (values of the PP tag). Alone: balanced contiguous cuts by compute time. */
  PP: z.number().int().min(1).optional(),
  /**
   * Explicit cut points: the layer index where each stage after the first begins. 0 puts the
   * embedding alone on the first stage; `layers` (+ MTP layers) puts the head and loss alone on
   * the last.
   */
  cuts: z.array(z.number().int().min(0)).optional(),
  /** Megatron-LM's `--pipeline-model-parallel-layout`, e.g. `"Et*3|(tt|)*29,m|L"`. */
  layout: z.string().min(1).max(10_000).optional(),
  /** Tag the routed experts of MoE layers `EP=0` (default true). */
  EP: z.boolean().optional(),
  /** Tag attention `TP=0` and dense / shared-expert MLPs `TP=1` (default true). */
  TP: z.boolean().optional(),
});

const positive = z.number().int().min(1);

/**
 * Transformer from hyperparameters; blocks, FLOPs and bytes are derived from them. With `preset`,
 * every field given overrides the preset's value (`moe` and `mla` field by field).
 */
export const transformerFieldsSchema = z.strictObject({
  kind: z.literal('transformer'),
  preset: z.string().optional(),
  layers: positive.optional(),
  hidden: positive.optional(),
  /** Intermediate size of the dense SwiGLU MLP. */
  ffnHidden: positive.optional(),
  heads: positive.optional(),
  /** Key/value heads (grouped-query attention); defaults to `heads`. */
  kvHeads: positive.optional(),
  /** Per-head dimension where it is not hidden / heads (Qwen3-30B-A3B: 128 with hidden 2048). */
  headDim: positive.optional(),
  vocab: positive.optional(),
  seqLen: positive.optional(),
  microbatchSize: positive.optional(),
  dtype: z.enum(['bf16', 'fp16', 'fp32', 'fp8']).optional(),
  /**
   * The dtype GEMMs run in where it is not `dtype`: DeepSeek-V3 runs its GEMMs in FP8 and keeps
   * weights and most activations in BF16. Sets the peak compute is timed at, not byte sizes.
   */
  gemmDtype: z.enum(['bf16', 'fp16', 'fp32', 'fp8']).optional(),
  /** Input embedding and output head share one matrix (counted once); default false. */
  tiedEmbeddings: z.boolean().optional(),
  moe: moeSchema.partial().optional(),
  mla: mlaSchema.partial().optional(),
  /** Multi-token-prediction modules after the last layer (DeepSeek-V3: 1); default 0. */
  mtpLayers: z.number().int().min(0).optional(),
  /**
   * Sliding-window attention (GPT-OSS): a query attends to at most the `tokens` keys before it,
   * except in every `fullEvery`-th decoder layer (counting from 1, as Megatron-LM's
   * window_attn_skip_freq), which attends to the whole sequence. Default: no window.
   */
  slidingWindow: z.strictObject({ tokens: positive, fullEvery: positive }).optional(),
  annotate: annotateSchema.optional(),
});

export const transformerSchema = transformerFieldsSchema.superRefine(checkTransformer);

export type Costs = z.infer<typeof costsSchema>;
export type SyntheticStagesModel = z.infer<typeof syntheticStagesSchema>;
export type SyntheticBlock = z.infer<typeof syntheticBlockSchema>;
export type SyntheticBlocksModel = z.infer<typeof syntheticBlocksSchema>;
export type TransformerModel = z.infer<typeof transformerFieldsSchema>;
export type Moe = z.infer<typeof moeSchema>;
export type Mla = z.infer<typeof mlaSchema>;
export type SlidingWindow = NonNullable<TransformerModel['slidingWindow']>;
export type Annotate = z.infer<typeof annotateSchema>;
export type Model = SyntheticStagesModel | SyntheticBlocksModel | TransformerModel;
