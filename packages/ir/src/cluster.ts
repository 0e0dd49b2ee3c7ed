import { z } from 'zod';
import { checkClusterPreset } from './clusterPresets.ts';

/** Free communication (optionally a fixed latency per transfer) and unlimited memory: the oracle cluster. */
export const idealClusterSchema = z.strictObject({
  kind: z.literal('ideal'),
  devices: z.number().int().min(1),
  p2pLatencyMs: z.number().finite().min(0).optional(),
});

export const linkSchema = z.strictObject({
  bandwidthGBps: z.number().finite().positive(),
  latencyUs: z.number().finite().min(0),
});

export const gpuSchema = z.strictObject({
  name: z.string().optional(),
  peakTflops: z.number().finite().positive(),
  achievableFraction: z.number().finite().gt(0).max(1).optional(),
  memoryGiB: z.number().finite().positive(),
  sms: z.number().int().min(1).optional(),
});

export const presetClusterFieldsSchema = z.strictObject({
  kind: z.literal('preset').optional(),
  /** dgx-a100, dgx-h100 or dgx-h200 (clusterPresets.ts). */
  preset: z.string(),
  nodes: z.number().int().min(1),
  /** Overrides the preset GPU's sustained fraction of peak. */
  achievableFraction: z.number().finite().gt(0).max(1).optional(),
});

export const presetClusterSchema = presetClusterFieldsSchema.superRefine(checkClusterPreset);

export const customClusterSchema = z.strictObject({
  kind: z.literal('custom'),
  nodes: z.number().int().min(1),
  gpusPerNode: z.number().int().min(1),
  gpu: gpuSchema,
  intraNode: linkSchema,
  interNode: linkSchema,
});

export type IdealCluster = z.infer<typeof idealClusterSchema>;
export type PresetCluster = z.infer<typeof presetClusterFieldsSchema>;
export type CustomCluster = z.infer<typeof customClusterSchema>;
export type Cluster = IdealCluster | PresetCluster | CustomCluster;
