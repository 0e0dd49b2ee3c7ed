/**
 * What the runtime prints as its last line under `--json` (runtime/stagecraft_runtime/launch.py,
 * `report`), read at the boundary with zod: a line that is not this shape is the runtime's bug,
 * said as such rather than read half-way. Fields this reader does not know pass through.
 */
import * as z from 'zod';

/** Bytes a device held in the last step, measured on its tensors (docs/runtime.md). */
export const DeviceMemorySchema = z.looseObject({
  device: z.number().int(),
  params: z.number(),
  grads: z.number(),
  optimizer: z.number(),
  paramsPeak: z.number(),
});

/** Per device, each instruction's [stream, id, start s, end s] on the run's shared monotonic clock. */
export const MeasuredEventsSchema = z.record(
  z.string(),
  z.array(z.tuple([z.string(), z.string(), z.number(), z.number()])),
);

/** A tensor that differs from the reference beyond the tolerance (device null: the whole run's loss). */
export const WorstTensorSchema = z.looseObject({
  device: z.number().int().nullable(),
  tensor: z.string(),
  step: z.number().int(),
  difference: z.number().nullable(),
  absolute: z.number().nullable(),
  problem: z.string().optional(),
});

export const RuntimeResultSchema = z.looseObject({
  devices: z.number().int(),
  steps: z.number().int(),
  loss: z.array(z.number()),
  referenceLoss: z.array(z.number()),
  maxAbsDiff: z.number(),
  maxRelDiff: z.number(),
  /** The verdict (runtime/stagecraft_runtime/verdict.py): the tolerance of the run's dtype, and
   * whether every tensor each device holds is within it. */
  tolerance: z.number(),
  equal: z.boolean(),
  worst: z.array(WorstTensorSchema),
  stepMs: z.array(z.number()),
  backend: z.string(),
  memory: z.array(DeviceMemorySchema),
  trace: MeasuredEventsSchema.nullable().optional(),
});

export type DeviceMemory = z.infer<typeof DeviceMemorySchema>;
export type MeasuredEvents = z.infer<typeof MeasuredEventsSchema>;
export type RuntimeResult = z.infer<typeof RuntimeResultSchema>;
export type WorstTensor = z.infer<typeof WorstTensorSchema>;
