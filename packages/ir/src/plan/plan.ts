/**
 * `stagecraft/plan@2`: what a strategy-unaware runtime executes. Per device, per logical stream, an
 * ordered list of instructions; an instruction may start once the one before it on its stream has
 * finished and everything in `waits` (ids on other streams of the same device) has finished. A
 * RECV also waits for the SEND with the same `transfer` on its peer; a collective for every
 * member of `devices` to reach the instruction with the same `collective` key.
 *
 * Version 2 adds what a runtime needs to run real tensors without reading ids (docs/plan-format.md):
 * the model's blocks and how they feed each other, the batch layout, and per instruction the
 * block, microbatch, tensor or parameters it works on. Version 1 documents still load: every field
 * version 2 added is optional in the schema, and a runtime refuses a plan that lacks one it reads.
 *
 * Version 3 adds `meshes`: the mesh of each group placed on one (design format @3). A plan says @3
 * only when it has them, because they change what an instruction means for a group lowered once:
 * a replica runs a collective over mesh axes among its own sub-group, not the devices its
 * representative lists, which an @2 reader would take literally. Plans without meshes still say
 * @2, byte for byte what they were.
 */
import * as z from 'zod';
import {
  type Cluster,
  customClusterSchema,
  idealClusterSchema,
  presetClusterSchema,
} from '../design/cluster.ts';
import { opKernelsSchema } from '../design/kernels.ts';
import { groupMeshSchema } from '../design/mesh.ts';
import type { Issue } from '../issue/issue.ts';
import { parseJsonText } from '../issue/json.ts';
import { fromZod } from '../issue/zodIssues.ts';
import type { CompiledLayout } from './compiledLayout.ts';

export const PLAN_FORMAT = 'stagecraft/plan@2';
/** The format of a plan whose groups have meshes. */
export const PLAN_FORMAT_MESHES = 'stagecraft/plan@3';
/** Every version this reader loads, oldest first. */
export const PLAN_FORMATS = ['stagecraft/plan@1', PLAN_FORMAT, PLAN_FORMAT_MESHES] as const;

const tags = z.record(z.string(), z.union([z.number(), z.string()]));
const ms = z.number().finite().min(0);
const bytes = z.number().finite().min(0);
const ids = z.array(z.string());
const provenance = z.strictObject({ pass: z.string(), directive: z.number().int().nullable() });
const index = z.number().int().min(0);

/**
 * A tensor one instruction hands to another device: the output of `block`'s forward (`F`) or the
 * gradient of `block`'s input (`B`, `BI`), for one microbatch.
 */
export const planTensorSchema = z.strictObject({
  block: index,
  pass: z.enum(['F', 'B', 'BI']),
  microbatch: index,
});

/**
 * The part of its tensor a chunked collective (`shard_tensor`'s `comm_overlap`) carries: chunks
 * `from` to `to` − 1 of `of`, chunk k being the k-th of `of` equal row slices of every member's
 * share of the tensor's rows.
 */
export const planChunksSchema = z
  .strictObject({ from: index, to: z.number().int().min(1), of: z.number().int().min(2) })
  .refine((c) => c.from < c.to && c.to <= c.of, { message: 'expected 0 ≤ from < to ≤ of' });

const base = {
  id: z.string().min(1),
  tags,
  waits: ids,
  provenance: provenance.optional(),
};

export const computeInstructionSchema = z.strictObject({
  ...base,
  op: z.enum(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD']),
  /** Duration where the model gives one (synthetic); otherwise derived from `flops`. */
  ms: ms.optional(),
  flops: z.number().finite().min(0).optional(),
  /** GEMM shapes and kernel launches, which the cost model times `flops` by (transformer models). */
  kernels: opKernelsSchema.optional(),
  /** Bytes allocated when the instruction starts / released when it ends (stashed activations). */
  allocBytes: bytes.optional(),
  freeBytes: bytes.optional(),
  /** @2: the model block it computes (index into `model.blocks`); absent for UPD. */
  block: index.optional(),
  /** @2: its microbatch, the flat index over `batch.dims`; absent for UPD. */
  microbatch: index.optional(),
});

export const p2pInstructionSchema = z.strictObject({
  ...base,
  op: z.enum(['SEND', 'RECV']),
  peer: z.number().int().min(0),
  bytes,
  transfer: z.string().min(1),
  /** @2: the tensor the transfer carries. */
  tensor: planTensorSchema.optional(),
  /**
   * @2: it carries 1/n of the tensor's rows, the sender's chunk at its index in its tensor-parallel
   * group (a tensor-parallel stage's scatter-gather send); the ALL_GATHER after the RECV makes it whole.
   */
  scatter: z.number().int().min(2).optional(),
});

export const collectiveInstructionSchema = z.strictObject({
  ...base,
  op: z.enum(['ALL_REDUCE', 'REDUCE_SCATTER', 'ALL_GATHER', 'ALL_TO_ALL']),
  devices: z.array(z.number().int().min(0)).min(1),
  bytes,
  collective: z.string().min(1),
  /** @2: the blocks whose gradients (ALL_REDUCE, REDUCE_SCATTER) or parameters (ALL_GATHER) it carries. */
  params: z.array(index).optional(),
  /** @2: for an activation collective (expert dispatch/combine, tensor-parallel reduction): what it carries. */
  tensor: planTensorSchema.optional(),
  /** @2: under `comm_overlap`, the chunks of `tensor`'s rows it carries (absent: all of them). */
  chunks: planChunksSchema.optional(),
  /**
   * @2: a K/V exchange of context parallelism's ring form: `ringSteps` point-to-point steps around
   * `devices` (member i sends to i+1 and receives from i−1, in plan order), each step's attention
   * block on the chunk at hand merged by log-sum-exp (docs/plan-format.md).
   */
  ringSteps: z.number().int().min(1).optional(),
});

export const memoryInstructionSchema = z.strictObject({
  ...base,
  op: z.enum(['OFFLOAD', 'RELOAD']),
  bytes,
  /** @2: whose stashed activations move: the forward of `block` for `microbatch`. */
  block: index.optional(),
  microbatch: index.optional(),
});

export const overlapInstructionSchema = z.strictObject({
  ...base,
  op: z.literal('OVERLAP'),
  members: z.array(computeInstructionSchema).min(2),
  /** Duration of the overlapped unit where the model gives one (synthetic FandB). */
  ms: ms.optional(),
});

export const instructionSchema = z.discriminatedUnion('op', [
  computeInstructionSchema,
  p2pInstructionSchema,
  collectiveInstructionSchema,
  memoryInstructionSchema,
  overlapInstructionSchema,
]);

export const streamPlanSchema = z.strictObject({
  stream: z.string().min(1),
  priority: z.number().int().optional(),
  smFraction: z.number().min(0).max(1).optional(),
  instructions: z.array(instructionSchema),
});

export const devicePlanSchema = z.strictObject({
  device: z.number().int().min(0),
  /** Index into `groups`; -1 for a device the design leaves unused. */
  group: z.number().int().min(-1),
  /** Values of the PP tag the device holds, for labels. */
  stages: z.array(z.number().int()),
  paramBytes: bytes,
  /**
   * Resident training state (weights + gradients + optimizer states after ZeRO sharding) the device
   * holds all step; memory starts here. Defaults to paramBytes.
   */
  staticBytes: bytes.optional(),
  memory: z.strictObject({ params: bytes, grads: bytes, optimizer: bytes }).optional(),
  /**
   * Other devices that run this same program (SPMD members of the group, symmetric to this one):
   * their SEND/RECV peers are the members of the same rank in the peer group. Large groups are
   * lowered once this way instead of once per device.
   */
  replicas: z.array(z.number().int().min(0)).optional(),
  streams: z.array(streamPlanSchema),
});

/** @2: one block of the model, as the runtime builds it. */
export const planBlockSchema = z.strictObject({
  name: z.string(),
  tags: z.record(z.string(), z.number()),
  /** Blocks whose forward output is this block's input (none: the block reads the batch). */
  inputs: z.array(index),
  /** Routed experts and how many each token visits, for a mixture-of-experts block. */
  experts: index.optional(),
  topK: index.optional(),
});

/** @2: the model: its blocks in order and the block whose output the loss reads. */
export const planModelSchema = z.strictObject({
  blocks: z.array(planBlockSchema).min(1),
  loss: index,
});

/**
 * @2: the batch layout. A microbatch is the flat row-major index over `dims` (the DAG's split
 * dimensions, e.g. DIR then MB); a device's replica is its index in its group. Replica r's
 * microbatch k reads samples (r · microbatches + k) · microbatchSize onwards, and every loss is
 * scaled by `lossScale` = 1 / (microbatches · replicas), so summed gradients are the batch mean's.
 */
export const planBatchSchema = z.strictObject({
  dims: z.array(z.strictObject({ name: z.string(), size: z.number().int().min(1) })),
  microbatches: z.number().int().min(1),
  microbatchSize: z.number().int().min(1),
  replicas: z.number().int().min(1),
  lossScale: z.number().positive(),
});

export const planSchema = z.strictObject({
  format: z.enum(PLAN_FORMATS),
  name: z.string(),
  cluster: z.union([idealClusterSchema, customClusterSchema, presetClusterSchema]),
  groups: z.array(z.array(z.number().int().min(0))),
  /**
   * @3: per group its mesh (axis names and sizes; the group lists its members row-major over it),
   * null for a flat group. A collective over some axes runs among the members that share their
   * other coordinates; its `collective` key names them (`…[dp=1]`).
   */
  meshes: z.array(groupMeshSchema.nullable()).optional(),
  /** Tokens in one training step, when the model knows its sequence length. */
  tokensPerStep: z.number().finite().min(0).optional(),
  /** Model FLOPs of one step over the whole cluster (F + BI + BW, recomputation excluded), for MFU. */
  modelFlopsPerStep: z.number().finite().min(0).optional(),
  /** @2: the model and batch a runtime builds real tensors from. */
  model: planModelSchema.optional(),
  batch: planBatchSchema.optional(),
  /**
   * @2: blocks split Megatron-style over a group: the member at index r of `devices` holds the
   * r-th of n column slices of a block's first linear and row slices of its second.
   */
  tensorParallel: z.array(z.strictObject({ devices: z.array(index), blocks: z.array(index) })).optional(),
  /**
   * @3: blocks whose sequence is split over `devices` (context parallelism): the member at index r
   * holds the r-th of n row chunks of every microbatch; `form` is how their K/V are exchanged.
   */
  contextParallel: z
    .array(
      z.strictObject({
        devices: z.array(index),
        blocks: z.array(index),
        form: z.enum(['ring', 'all_gather']),
      }),
    )
    .optional(),
  devices: z.array(devicePlanSchema),
});

export type ComputeInstruction = z.infer<typeof computeInstructionSchema>;
export type P2PInstruction = z.infer<typeof p2pInstructionSchema>;
export type CollectiveInstruction = z.infer<typeof collectiveInstructionSchema>;
export type MemoryInstruction = z.infer<typeof memoryInstructionSchema>;
export type OverlapInstruction = z.infer<typeof overlapInstructionSchema>;
export type Instruction = z.infer<typeof instructionSchema>;
export type PlanTensor = z.infer<typeof planTensorSchema>;
export type PlanChunks = z.infer<typeof planChunksSchema>;
export type PlanModel = z.infer<typeof planModelSchema>;
export type PlanBatch = z.infer<typeof planBatchSchema>;
export type StreamPlan = z.infer<typeof streamPlanSchema>;
export type DevicePlan = z.infer<typeof devicePlanSchema>;
export interface Plan extends z.infer<typeof planSchema> {
  cluster: Cluster;
  /**
   * A compiled plan's link to the layout validation proved on its columns (compiledLayout.ts):
   * non-enumerable, so no copy, file or parse of the plan has it. Read it through
   * `compiledLayoutOf`, which also checks the plan was not changed since.
   */
  readonly compiled?: CompiledLayout;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; errors: Issue[] };

export function parsePlan(input: unknown): PlanResult {
  if (
    typeof input === 'object' &&
    input !== null &&
    'format' in input &&
    !(PLAN_FORMATS as readonly unknown[]).includes((input as { format: unknown }).format)
  ) {
    return {
      ok: false,
      errors: [
        { path: 'format', message: `not a Stagecraft plan (expected "${PLAN_FORMATS.join('" or "')}")` },
      ],
    };
  }
  const r = planSchema.safeParse(input);
  return r.success ? { ok: true, plan: r.data as Plan } : { ok: false, errors: fromZod(r.error) };
}

export function parsePlanText(text: string): PlanResult {
  const json = parseJsonText(text, 16);
  return json.ok ? parsePlan(json.value) : json;
}

/** Number of instructions in a plan, counting each member of an overlapped unit. */
export function planOpCount(plan: Plan): number {
  let n = 0;
  for (const d of plan.devices)
    for (const s of d.streams) for (const i of s.instructions) n += i.op === 'OVERLAP' ? i.members.length : 1;
  return n;
}
