/**
 * A transformer model as the chain of tagged blocks the DAG is built from: hyperparameters
 * resolved (preset + overrides), units lowered to blocks, stages assigned by `annotate`.
 *
 * Tags: `PP` (stage) on every block; `LAYER` on the blocks of decoder layers and MTP modules;
 * with `annotate.TP` (default on) `TP=0` on attention, `TP=1` on dense MLPs and shared experts and
 * `TP=2` on the embedding and the output heads (vocab-parallel under `shard_tensor`, as Megatron-LM's
 * VocabParallelEmbedding and ColumnParallelLinear output layer);
 * with `annotate.EP` (default on) `EP=0` on routed experts.
 */
import {
  type BlockInfo,
  CompileError,
  DTYPE_BYTES,
  type PathSegment,
  resolveTransformer,
  type TransformerConfig,
  type TransformerModel,
} from '@stagecraft/ir';
import { assignStages } from './annotate.ts';
import {
  type TransformerBlock,
  type TransformerUnit,
  tokensPerMicrobatch,
  transformerUnits,
  type UnitKind,
} from './transformerBlocks.ts';

/** What one pipeline stage holds, in forward order. */
export interface StageLayers {
  stage: number;
  embedding: boolean;
  /** Decoder layer indices, ascending. */
  layers: number[];
  /** Layer indices of the MTP modules. */
  mtp: number[];
  loss: boolean;
}

export interface LoweredTransformer {
  config: TransformerConfig;
  units: TransformerUnit[];
  /** Stage of each unit. */
  unitStages: number[];
  blocks: BlockInfo[];
  stages: StageLayers[];
}

export function lowerTransformer(
  model: TransformerModel,
  path: readonly PathSegment[] = ['model'],
): LoweredTransformer {
  const r = resolveTransformer(model, path);
  if (!r.ok) throw new CompileError(r.errors);
  const config = r.config;
  const units = transformerUnits(config);
  const unitStages = assignStages(units, model.annotate, [...path, 'annotate']);
  const tp = model.annotate?.TP !== false;
  const ep = model.annotate?.EP !== false;
  const tokens = tokensPerMicrobatch(config);
  const blocks: BlockInfo[] = [];
  const mtpShared: { at: number; part: 'embedding' | 'head' }[] = [];
  units.forEach((u, i) => {
    const stage = unitStages[i]!;
    for (const b of u.blocks) {
      const info = blockInfo(b, stage, tp, ep, tokens, config.gemmDtype ?? config.dtype);
      // Expert parallelism checks its degree against the experts and sizes its all-to-all by topK.
      if (b.part === 'experts' && config.moe) {
        info.experts = config.moe.experts;
        info.topK = config.moe.topK;
      }
      if (u.kind === 'm' && (b.part === 'mtp-projection' || b.part === 'head'))
        mtpShared.push({ at: blocks.length, part: b.part === 'head' ? 'head' : 'embedding' });
      blocks.push(info);
    }
  });
  // An MTP module's embedding table and output head are the main model's (DeepSeek-V3 §2.2).
  const table = config.vocab * config.hidden * DTYPE_BYTES[config.dtype];
  for (const { at, part } of mtpShared) {
    const owner = part === 'head' ? blocks.length - 1 : 0;
    blocks[at]!.sharedParams = {
      block: owner,
      bytes: Math.min(
        blocks[owner]!.paramBytes,
        table + (part === 'head' ? config.hidden * DTYPE_BYTES[config.dtype] : 0),
      ),
    };
  }
  return { config, units, unitStages, blocks, stages: stageLayers(units, unitStages) };
}

function blockInfo(
  b: TransformerBlock,
  stage: number,
  tp: boolean,
  ep: boolean,
  tokens: number,
  dtype: TransformerConfig['dtype'],
): BlockInfo {
  const tags: Record<string, number> = { PP: stage };
  if (b.layer !== undefined) tags.LAYER = b.layer;
  if (tp && b.part === 'attention') tags.TP = 0;
  if (tp && (b.part === 'mlp' || b.part === 'shared-experts')) tags.TP = 1;
  if (tp && (b.part === 'embedding' || b.part === 'head')) tags.TP = 2;
  if (ep && b.part === 'experts') tags.EP = 0;
  return {
    name: b.name,
    tags,
    flops: { ...b.flops },
    kernels: {
      gemms: b.gemms.map((g) => ({ ...g })),
      otherLaunches: { ...b.otherLaunches },
      elementwiseBytes: {
        sequence: { ...b.elementwiseBytes.sequence },
        split: { ...b.elementwiseBytes.split },
      },
      dtype,
      ...(b.attentionSeqLen ? { attentionSeqLen: b.attentionSeqLen } : {}),
    },
    activationBytes: b.activationBytes,
    recomputeActivationBytes: b.recomputeActivationBytes,
    ...(b.sequenceActivationBytes ? { sequenceActivationBytes: b.sequenceActivationBytes } : {}),
    ...(b.recomputeParts ? { recomputeParts: b.recomputeParts } : {}),
    ...(b.dispatchedActivationBytes ? { dispatchedActivationBytes: b.dispatchedActivationBytes } : {}),
    paramBytes: b.paramBytes,
    outputBytes: b.outputBytes,
    ...(b.kvBytes ? { kvBytes: b.kvBytes } : {}),
    tokens,
  };
}

export function stageLayers(units: readonly TransformerUnit[], unitStages: readonly number[]): StageLayers[] {
  const out: StageLayers[] = [];
  units.forEach((u, i) => {
    const s = unitStages[i]!;
    while (out.length <= s)
      out.push({ stage: out.length, embedding: false, layers: [], mtp: [], loss: false });
    const st = out[s]!;
    add(st, u.kind, u.layer);
  });
  return out;
}

function add(st: StageLayers, kind: UnitKind, layer: number | undefined): void {
  if (kind === 'E') st.embedding = true;
  else if (kind === 'L') st.loss = true;
  else if (kind === 't') st.layers.push(layer!);
  else st.mtp.push(layer!);
}

/** One line: `0: E t0–8 (9) | 1: t9–16 (8) | … | 3: t25–31 L (7)`, the counts being decoder layers. */
export function formatStageLayers(stages: readonly StageLayers[]): string {
  return stages
    .map((s) => {
      const parts: string[] = [];
      if (s.embedding) parts.push('E');
      if (s.layers.length > 0) parts.push(`t${range(s.layers)}`);
      if (s.mtp.length > 0) parts.push(`m${range(s.mtp)}`);
      if (s.loss) parts.push('L');
      return `${s.stage}: ${parts.join(' ')} (${s.layers.length})`;
    })
    .join(' | ');
}

function range(xs: readonly number[]): string {
  const a = xs[0]!;
  const b = xs[xs.length - 1]!;
  return a === b ? String(a) : `${a}–${b}`;
}
