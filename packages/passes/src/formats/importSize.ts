/**
 * An imported schedule's size, judged from the few numbers a file states (its largest stage,
 * microbatch and device, the model's layers) before any block, op or device is built: a 28-byte
 * CSV naming microbatch 9,999,999 or a Piper `place` on device 999,999,999 once took minutes and
 * gigabytes to fail. The estimate is the compiler's own (expandSchedule.ts): per microbatch, F, BI
 * and BW of each block and a SEND and a RECV each way between consecutive blocks.
 */
import { type Cluster, CompileError, type Issue, type Model, TRANSFORMER_PRESETS } from '@stagecraft/ir';
import { DEFAULT_MAX_OPS } from '../driver/pipeline.ts';
import { deviceCount } from '../model/cluster.ts';

export interface ImportSize {
  /** Blocks (PP regions) the schedule runs, and where the file states them. */
  blocks: { count: number; path: string };
  microbatches: { count: number; path: string };
  /** Devices the schedule places on (the largest device index + 1), if it names any. */
  devices?: { count: number; path: string };
}

const n = (x: number) => x.toLocaleString('en-US');

export function importSizeIssue(size: ImportSize, maxOps = DEFAULT_MAX_OPS): Issue | undefined {
  const { blocks, microbatches, devices } = size;
  if (devices && devices.count > maxOps)
    return {
      path: devices.path,
      message: `${n(devices.count)} devices are more than the op limit of ${n(maxOps)} allows`,
    };
  const ops = microbatches.count * (3 * blocks.count + 4 * Math.max(0, blocks.count - 1));
  if (ops > maxOps) {
    const at = blocks.count >= microbatches.count ? blocks : microbatches;
    return {
      path: at.path,
      message: `${n(blocks.count)} stages × ${n(microbatches.count)} microbatches would make about ${n(ops)} ops, over the limit of ${n(maxOps)}`,
    };
  }
  return undefined;
}

/**
 * Blocks a model lowers to, without lowering it: a synthetic model's stages or blocks; a
 * transformer's two per layer (attention and MLP) and the embedding and head.
 */
export function modelBlockCount(model: Model): number {
  if (model.kind === 'synthetic') return 'stages' in model ? model.stages : model.blocks.length;
  const preset =
    model.preset !== undefined && Object.hasOwn(TRANSFORMER_PRESETS, model.preset)
      ? TRANSFORMER_PRESETS[model.preset]
      : undefined;
  const layers = (model.layers ?? preset?.layers ?? 1) + (model.mtpLayers ?? preset?.mtpLayers ?? 0);
  return 2 * layers + 2;
}

/** Devices of a given cluster; one that cannot be counted counts 0 here and fails compile's own check. */
export function clusterDevices(cluster: Cluster): number {
  try {
    return deviceCount(cluster);
  } catch (e) {
    if (e instanceof CompileError) return 0;
    throw e;
  }
}
