import * as z from 'zod';
import { filterSchema } from './filter.ts';
import { meshSchema } from './mesh.ts';
import { scheduleEditSchema } from './scheduleEdit.ts';

const devices = z.array(z.number().int().min(0)).min(1, 'a device group needs at least one device');
const streamName = z.string().min(1).max(64);
/** Every directive can be switched off in the editor without deleting it. */
const enabled = z.boolean().optional();
/**
 * The mesh axes a replicate / shard / shard_tensor runs over (design format @3): one name or
 * several. Its collectives then run over the sub-groups along those axes of every group the
 * matched ops are placed on, instead of over one listed group.
 */
const axis = z.union([z.string().min(1).max(32), z.array(z.string().min(1).max(32)).min(1).max(8)]);

/**
 * A directive that runs over devices names them (`devices`), or mesh axes (`axis`) of every mesh
 * group its ops are on, or both: the axes of that one group.
 */
function devicesOrAxis(d: { devices?: unknown; axis?: unknown }, ctx: z.RefinementCtx): void {
  if (d.devices === undefined && d.axis === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['devices'],
      message: 'required: the device group ("devices") or the mesh axes ("axis") it runs over',
    });
}

/** Named schedules the `schedule` macro expands into place + split + order. */
export const SCHEDULE_BUILDERS = [
  'gpipe',
  '1f1b',
  'interleaved-1f1b',
  'looped-bfs',
  'zb-h1',
  'zb-h2',
  'zbv',
  'v-half',
  'v-min',
  'dualpipev',
  'dualpipe',
] as const;
export type ScheduleBuilderName = (typeof SCHEDULE_BUILDERS)[number];

// --- Piper's six -----------------------------------------------------------------------------

export const placeSchema = z
  .strictObject({
    op: z.literal('place'),
    filter: filterSchema,
    devices: devices.optional(),
    /** Design format @3: the group as a mesh with named axes (mesh.ts), instead of `devices`. */
    mesh: meshSchema.optional(),
    stream: streamName.optional(),
    enabled,
  })
  .superRefine((d, ctx) => {
    if ((d.devices === undefined) === (d.mesh === undefined))
      ctx.addIssue({
        code: 'custom',
        path: d.devices === undefined ? ['devices'] : ['mesh'],
        message:
          d.devices === undefined
            ? 'required: the devices ("devices") or the mesh ("mesh") to place on'
            : 'give "devices" or "mesh", not both',
      });
  });

export const replicateSchema = z
  .strictObject({
    op: z.literal('replicate'),
    filter: filterSchema,
    devices: devices.optional(),
    axis: axis.optional(),
    reduce_stream: streamName.optional(),
    gather_stream: streamName.optional(),
    bucket_size: z.number().int().min(1).optional(),
    shard_grads: z.boolean().optional(),
    shard_params: z.boolean().optional(),
    /** Stagecraft's own: ZeRO-1, optimizer states sharded over `devices` (implied by shard_grads and shard_params). */
    shard_optimizer: z.boolean().optional(),
    enabled,
  })
  .superRefine((d, ctx) => {
    devicesOrAxis(d, ctx);
    // ZeRO stages nest: sharded parameters imply sharded gradients, which imply sharded optimizer states.
    if (d.shard_params === true && d.shard_grads === false)
      ctx.addIssue({
        code: 'custom',
        path: ['shard_grads'],
        message: 'shard_params (ZeRO-3) shards the gradients too; drop shard_grads: false',
      });
    if ((d.shard_params === true || d.shard_grads === true) && d.shard_optimizer === false)
      ctx.addIssue({
        code: 'custom',
        path: ['shard_optimizer'],
        message:
          'shard_grads and shard_params (ZeRO-2/3) shard the optimizer states too; drop shard_optimizer: false',
      });
  });

export const shardSchema = z
  .strictObject({
    op: z.literal('shard'),
    filter: filterSchema,
    devices: devices.optional(),
    axis: axis.optional(),
    stream: streamName.optional(),
    /**
     * Stagecraft's own: element type of what enters the experts (the forward dispatch and the
     * gradient sent back into them); the combine and the gradient leaving them stay in the model's
     * dtype (DeepSeek-V3: FP8 dispatch, BF16 combine). Default: the model's dtype.
     */
    dispatch_dtype: z.enum(['bf16', 'fp16', 'fp32', 'fp8']).optional(),
    /**
     * Stagecraft's own: node-limited routing. Each token reaches at most this many nodes and is sent
     * once per node (de-duplicated, fanned out to that node's experts over NVLink). Default: none,
     * one copy per routed expert.
     */
    nodes_per_token: z.number().int().min(1).optional(),
    enabled,
  })
  .superRefine(devicesOrAxis);

export const shardTensorSchema = z
  .strictObject({
    op: z.literal('shard_tensor'),
    filter: filterSchema,
    devices: devices.optional(),
    axis: axis.optional(),
    stream: streamName.optional(),
    /**
     * Stagecraft's own: Megatron's sequence parallelism (Korthikanti et al. 2022). true: a
     * reduce-scatter and an all-gather in place of each all-reduce, the norm activations and the
     * checkpointed input 1/n; false: all-reduces, the norm activations and the checkpointed input
     * whole on every member. Absent: all-reduces with every activation counted 1/n, the
     * behaviour of designs written before the option (their figures unchanged).
     */
    sequence_parallel: z.boolean().optional(),
    /**
     * Stagecraft's own: Megatron-LM's scatter-gather pipeline sends. A send of the region's output
     * to a stage tensor parallel as many ways goes as 1/n from each member, all-gathered by the
     * receivers. Default false here (Megatron-LM defaults it on): see docs/design-format.md.
     * Under sequence parallelism sends always take this form.
     */
    scatter_gather_sends: z.boolean().optional(),
    /**
     * Stagecraft's own: Megatron-LM's `--tp-comm-overlap` (Transformer Engine's userbuffers): the
     * reduce-scatters and all-gathers of sequence parallelism cut into chunks pipelined with the
     * GEMMs that produce and consume them. Needs `sequence_parallel: true`, as Megatron does: an
     * all-reduce has no chunked form beside a GEMM.
     */
    comm_overlap: z.boolean().optional(),
    enabled,
  })
  .superRefine((d, ctx) => {
    devicesOrAxis(d, ctx);
    if (d.comm_overlap === true && d.sequence_parallel !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['comm_overlap'],
        message:
          "overlapping tensor-parallel communication with the GEMMs pipelines sequence parallelism's reduce-scatter and all-gather; set sequence_parallel: true (Megatron-LM's --tp-comm-overlap requires --sequence-parallel)",
      });
  });

/**
 * Stagecraft's own: context parallelism (Megatron-LM's `--context-parallel-size`, Llama 3 §3.3.2).
 * Each member of a sub-group along `axis` holds 1/cp of every sequence (causal load-balanced: 2·cp
 * chunks, member r holding chunks r and 2·cp−1−r, so each does 1/cp of the attention), and the
 * attention blocks exchange K and V among the members. `form`: "ring" (default), K/V passed
 * around the ring in cp−1 point-to-point steps overlapped with the attention (Megatron-LM's);
 * "all_gather", K/V all-gathered before the attention and their gradients reduce-scattered after
 * its backward (Llama 3's). The gradient all-reduce over the axis is folded into data
 * parallelism's: one reduce over the dp × cp members.
 */
export const shardSequenceSchema = z
  .strictObject({
    op: z.literal('shard_sequence'),
    filter: filterSchema,
    devices: devices.optional(),
    axis: axis.optional(),
    stream: streamName.optional(),
    form: z.enum(['ring', 'all_gather']).optional(),
    enabled,
  })
  .superRefine(devicesOrAxis);

export const splitSchema = z.strictObject({
  op: z.literal('split'),
  filter: filterSchema,
  dim_name: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'dimension names are upper case, e.g. MB'),
  num_microbatches: z.number().int().min(1).max(1_000_000),
  enabled,
});

/**
 * A slot of an `order`: its filters run together, overlapped when independent (DualPipe's F&B).
 * An empty slot is an idle step of the rank (an empty cell of a torch schedule): it orders nothing
 * and is kept so an imported schedule is written back cell for cell.
 */
export const orderSlotSchema = z.array(filterSchema);

export const orderSchema = z.strictObject({
  op: z.literal('order'),
  filters: z.array(orderSlotSchema),
  enabled,
});

// --- Stagecraft's own ------------------------------------------------------------------------

export const scheduleSchema = z.strictObject({
  op: z.literal('schedule'),
  builder: z.enum(SCHEDULE_BUILDERS),
  ranks: z.number().int().min(1).optional(),
  microbatches: z.number().int().min(1).max(1_000_000),
  chunks: z.number().int().min(1).optional(),
  /** Device group of each rank; defaults to rank r on device r. A mesh (design format @3) puts the rank on it. */
  groups: z.array(z.union([devices, meshSchema])).optional(),
  /** Stream the inserted SEND/RECV run on. */
  stream: streamName.optional(),
  /**
   * Hand edits of the builder's order (design format @2): moves and overlap slots, applied in
   * this order when the schedule expands (scheduleEdit.ts). A program stays one schedule with
   * what the user changed, not the thousands of order slots it amounts to.
   */
  edits: z.array(scheduleEditSchema).max(10_000).optional(),
  enabled,
});

export const splitBackwardSchema = z.strictObject({
  op: z.literal('split_backward'),
  filter: filterSchema,
  enabled,
});
/**
 * What selective recomputation can re-make in the backward instead of stashing (DeepSeek-V3,
 * arXiv 2412.19437, §3.2.3 and §3.3.3): the RMSNorms' outputs, MLA's query and key/value
 * up-projections, the SwiGLU's output (the down-projection's input).
 */
export const RECOMPUTE_PARTS = ['norm', 'mla_up_projection', 'swiglu'] as const;
export type RecomputePart = (typeof RECOMPUTE_PARTS)[number];

export const recomputeSchema = z.strictObject({
  op: z.literal('recompute'),
  filter: filterSchema,
  /**
   * Stagecraft's own: recompute only these parts of each block (selective recomputation); absent,
   * the whole forward (full activation checkpointing).
   */
  ops: z
    .array(z.enum(RECOMPUTE_PARTS))
    .min(1, 'name at least one part to recompute, or drop "ops" to recompute the whole forward')
    .optional(),
  enabled,
});
export const offloadSchema = z.strictObject({
  op: z.literal('offload'),
  filter: filterSchema,
  stream: streamName.optional(),
  enabled,
});
export const streamSchema = z.strictObject({
  op: z.literal('stream'),
  name: streamName,
  priority: z.number().int().optional(),
  smFraction: z.number().finite().min(0).max(1).optional(),
  enabled,
});

/** Schema of each directive by its `op`, so errors can name the right fields. */
export const directiveSchemas = {
  place: placeSchema,
  replicate: replicateSchema,
  shard: shardSchema,
  shard_tensor: shardTensorSchema,
  shard_sequence: shardSequenceSchema,
  split: splitSchema,
  order: orderSchema,
  schedule: scheduleSchema,
  split_backward: splitBackwardSchema,
  recompute: recomputeSchema,
  offload: offloadSchema,
  stream: streamSchema,
} as const;

export type DirectiveOp = keyof typeof directiveSchemas;
export const DIRECTIVE_OPS = Object.keys(directiveSchemas) as DirectiveOp[];
export const PIPER_OPS: readonly DirectiveOp[] = [
  'place',
  'replicate',
  'shard',
  'shard_tensor',
  'split',
  'order',
];

export type PlaceDirective = z.infer<typeof placeSchema>;
export type ReplicateDirective = z.infer<typeof replicateSchema>;
export type ShardDirective = z.infer<typeof shardSchema>;
export type ShardTensorDirective = z.infer<typeof shardTensorSchema>;
export type ShardSequenceDirective = z.infer<typeof shardSequenceSchema>;
export type SplitDirective = z.infer<typeof splitSchema>;
export type OrderDirective = z.infer<typeof orderSchema>;
export type ScheduleDirective = z.infer<typeof scheduleSchema>;
export type SplitBackwardDirective = z.infer<typeof splitBackwardSchema>;
export type RecomputeDirective = z.infer<typeof recomputeSchema>;
export type OffloadDirective = z.infer<typeof offloadSchema>;
export type StreamDirective = z.infer<typeof streamSchema>;

export type Directive =
  | PlaceDirective
  | ReplicateDirective
  | ShardDirective
  | ShardTensorDirective
  | ShardSequenceDirective
  | SplitDirective
  | OrderDirective
  | ScheduleDirective
  | SplitBackwardDirective
  | RecomputeDirective
  | OffloadDirective
  | StreamDirective;

export type DirectiveOf<K extends DirectiveOp> = Extract<Directive, { op: K }>;
