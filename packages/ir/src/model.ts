import { z } from 'zod';

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
  experts: z.number().int().min(1),
  topK: z.number().int().min(1),
  expertFfnHidden: z.number().int().min(1),
  sharedExperts: z.number().int().min(0).optional(),
  denseLayers: z.number().int().min(0).optional(),
});

export const annotateSchema = z.strictObject({
  PP: z.number().int().min(1).optional(),
  /** Explicit stage cut points: layer index where each stage after the first begins. */
  cuts: z.array(z.number().int().min(0)).optional(),
  EP: z.boolean().optional(),
  TP: z.boolean().optional(),
});

/** Transformer from hyperparameters; blocks, FLOPs and bytes are derived from them. */
export const transformerSchema = z.strictObject({
  kind: z.literal('transformer'),
  preset: z.string().optional(),
  layers: z.number().int().min(1).optional(),
  hidden: z.number().int().min(1).optional(),
  ffnHidden: z.number().int().min(1).optional(),
  heads: z.number().int().min(1).optional(),
  kvHeads: z.number().int().min(1).optional(),
  vocab: z.number().int().min(1).optional(),
  seqLen: z.number().int().min(1).optional(),
  microbatchSize: z.number().int().min(1).optional(),
  dtype: z.enum(['bf16', 'fp16', 'fp32', 'fp8']).optional(),
  moe: moeSchema.optional(),
  annotate: annotateSchema.optional(),
});

export type Costs = z.infer<typeof costsSchema>;
export type SyntheticStagesModel = z.infer<typeof syntheticStagesSchema>;
export type SyntheticBlock = z.infer<typeof syntheticBlockSchema>;
export type SyntheticBlocksModel = z.infer<typeof syntheticBlocksSchema>;
export type TransformerModel = z.infer<typeof transformerSchema>;
export type Model = SyntheticStagesModel | SyntheticBlocksModel | TransformerModel;
