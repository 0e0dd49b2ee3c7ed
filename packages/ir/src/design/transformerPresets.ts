/**
 * Published transformer hyperparameters and the merge of a preset with a design's overrides into
 * one fully specified configuration. Values come from each model's released config.json (sources
 * in docs/cost-model.md, "Models and clusters").
 */
import type * as z from 'zod';
import { formatPath, type Issue, type PathSegment } from '../issue/issue.ts';
import type { Mla, Moe, SlidingWindow, TransformerModel } from './model.ts';

export type Dtype = NonNullable<TransformerModel['dtype']>;

/** A transformer with every hyperparameter known: what lowering works from. */
export interface TransformerConfig {
  /** The preset it came from, if any. */
  preset?: string;
  layers: number;
  hidden: number;
  ffnHidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  seqLen: number;
  microbatchSize: number;
  dtype: Dtype;
  /** The dtype GEMMs run in, where the model gives one apart from `dtype`. */
  gemmDtype?: Dtype;
  tiedEmbeddings: boolean;
  moe?: Required<Moe>;
  mla?: Mla;
  mtpLayers: number;
  slidingWindow?: SlidingWindow;
}

type PresetFields = Omit<TransformerModel, 'kind' | 'preset' | 'annotate'>;

/** Bytes per element of each dtype. */
export const DTYPE_BYTES: Readonly<Record<Dtype, number>> = { fp32: 4, bf16: 2, fp16: 2, fp8: 1 };

export const TRANSFORMER_PRESETS: Readonly<Record<string, PresetFields>> = {
  // meta-llama/Meta-Llama-3-8B config.json; 8K training sequences (Llama 3 paper §3.4).
  'llama3-8b': {
    layers: 32,
    hidden: 4096,
    ffnHidden: 14336,
    heads: 32,
    kvHeads: 8,
    vocab: 128256,
    seqLen: 8192,
  },
  // meta-llama/Meta-Llama-3-70B config.json.
  'llama3-70b': {
    layers: 80,
    hidden: 8192,
    ffnHidden: 28672,
    heads: 64,
    kvHeads: 8,
    vocab: 128256,
    seqLen: 8192,
  },
  // meta-llama/Llama-3.1-405B config.json; pre-training at 8K (Llama 3 paper §3.4.1).
  'llama3.1-405b': {
    layers: 126,
    hidden: 16384,
    ffnHidden: 53248,
    heads: 128,
    kvHeads: 8,
    vocab: 128256,
    seqLen: 8192,
  },
  // Qwen/Qwen3-8B config.json; 4K sequences in pre-training stages 1–2 (Qwen3 technical report §3.2).
  'qwen3-8b': {
    layers: 36,
    hidden: 4096,
    ffnHidden: 12288,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    vocab: 151936,
    seqLen: 4096,
  },
  // Qwen/Qwen3-30B-A3B config.json: every layer MoE, no shared experts.
  'qwen3-30b-a3b': {
    layers: 48,
    hidden: 2048,
    ffnHidden: 6144,
    heads: 32,
    kvHeads: 4,
    headDim: 128,
    vocab: 151936,
    seqLen: 4096,
    moe: { experts: 128, topK: 8, expertFfnHidden: 768, sharedExperts: 0, denseLayers: 0 },
  },
  // Piper's Qwen3 "1B" (uw-syfi/piper artifact/run_megatron.py MODEL_CONFIGS["qwen3_1b"]): a
  // Qwen3-MoE shape, every layer MoE; sequence 512 (artifact/e2e_eval.py --seq-len default).
  'qwen3-1b': {
    layers: 16,
    hidden: 1024,
    ffnHidden: 3584,
    heads: 16,
    kvHeads: 8,
    headDim: 64,
    vocab: 151936,
    seqLen: 512,
    moe: { experts: 4, topK: 2, expertFfnHidden: 3584, sharedExperts: 0, denseLayers: 0 },
  },
  // Piper's Qwen3 "9B" (the same file, MODEL_CONFIGS["qwen3_9b"]), sequence 512 as its schedule sweep.
  'qwen3-9b': {
    layers: 24,
    hidden: 2048,
    ffnHidden: 7168,
    heads: 32,
    kvHeads: 8,
    headDim: 64,
    vocab: 151936,
    seqLen: 512,
    moe: { experts: 8, topK: 2, expertFfnHidden: 7168, sharedExperts: 0, denseLayers: 0 },
  },
  // mistralai/Mixtral-8x7B-v0.1 config.json; the training sequence length is not published.
  'mixtral-8x7b': {
    layers: 32,
    hidden: 4096,
    ffnHidden: 14336,
    heads: 32,
    kvHeads: 8,
    vocab: 32000,
    seqLen: 4096,
    moe: { experts: 8, topK: 2, expertFfnHidden: 14336, sharedExperts: 0, denseLayers: 0 },
  },
  // deepseek-ai/DeepSeek-V3 config.json; 4K pre-training sequences (DeepSeek-V3 report §4.2).
  'deepseek-v3': {
    layers: 61,
    hidden: 7168,
    ffnHidden: 18432,
    heads: 128,
    kvHeads: 128,
    vocab: 129280,
    seqLen: 4096,
    moe: { experts: 256, topK: 8, expertFfnHidden: 2048, sharedExperts: 1, denseLayers: 3 },
    mla: { qLoraRank: 1536, kvLoraRank: 512, qkNopeHeadDim: 128, qkRopeHeadDim: 64, vHeadDim: 128 },
    mtpLayers: 1,
  },
  // openai/gpt-oss-120b as Megatron-Bridge configures it (src/megatron/bridge/models/gpt_oss/
  // gpt_oss_provider.py, GPTOSSProvider120B): 36 layers, every one MoE (128 experts, top-4), head
  // dim 64 with 8 KV groups, untied head; window_size (128, 0) with window_attn_skip_freq 2. Its
  // linear biases and attention sinks (one learned logit per head) are not counted; sequence 4096 as
  // Megatron-Bridge's H100 benchmark runs it.
  'gpt-oss-120b': {
    layers: 36,
    hidden: 2880,
    ffnHidden: 2880,
    heads: 64,
    kvHeads: 8,
    headDim: 64,
    vocab: 201088,
    seqLen: 4096,
    moe: { experts: 128, topK: 4, expertFfnHidden: 2880, sharedExperts: 0, denseLayers: 0 },
    slidingWindow: { tokens: 128, fullEvery: 2 },
  },
};

export const TRANSFORMER_PRESET_NAMES: readonly string[] = Object.keys(TRANSFORMER_PRESETS);

export function unknownTransformerPreset(name: string): string {
  return `unknown model preset ${JSON.stringify(name)} (known: ${TRANSFORMER_PRESET_NAMES.join(', ')})`;
}

const REQUIRED = ['layers', 'hidden', 'ffnHidden', 'heads', 'vocab', 'seqLen'] as const;

/**
 * The preset (if any) with the design's fields laid over it, checked for consistency. Errors name
 * the field under `path` (the model's path in the document).
 */
export function resolveTransformer(
  model: TransformerModel,
  path: readonly PathSegment[] = ['model'],
): { ok: true; config: TransformerConfig } | { ok: false; errors: Issue[] } {
  const at = (...p: PathSegment[]) => formatPath([...path, ...p]);
  const errors: Issue[] = [];
  let base: PresetFields = {};
  if (model.preset !== undefined) {
    // Own keys only: "constructor" or "toString" name no preset.
    const p = Object.hasOwn(TRANSFORMER_PRESETS, model.preset)
      ? TRANSFORMER_PRESETS[model.preset]
      : undefined;
    if (!p)
      return { ok: false, errors: [{ path: at('preset'), message: unknownTransformerPreset(model.preset) }] };
    base = p;
  }
  const get = <K extends keyof PresetFields>(k: K): PresetFields[K] => model[k] ?? base[k];
  for (const k of REQUIRED)
    if (get(k) === undefined)
      errors.push({ path: at(k), message: 'required field missing (give it, or a preset that has it)' });
  if (errors.length > 0) return { ok: false, errors };

  const hidden = get('hidden')!;
  const heads = get('heads')!;
  const kvHeads = get('kvHeads') ?? heads;
  if (heads % kvHeads !== 0)
    errors.push({ path: at('kvHeads'), message: `must divide heads (${heads}); got ${kvHeads}` });
  const headDim = get('headDim') ?? hidden / heads;
  if (!Number.isInteger(headDim))
    errors.push({
      path: at('headDim'),
      message: `hidden (${hidden}) is not a multiple of heads (${heads}); give headDim`,
    });

  let moe: Required<Moe> | undefined;
  const m = model.moe || base.moe ? { ...base.moe, ...model.moe } : undefined;
  if (m) {
    for (const k of ['experts', 'topK', 'expertFfnHidden'] as const)
      if (m[k] === undefined) errors.push({ path: at('moe', k), message: 'required field missing' });
    if (m.experts !== undefined && m.topK !== undefined && m.topK > m.experts)
      errors.push({ path: at('moe', 'topK'), message: `must be ≤ experts (${m.experts}); got ${m.topK}` });
    const layers = get('layers')!;
    if ((m.denseLayers ?? 0) > layers)
      errors.push({
        path: at('moe', 'denseLayers'),
        message: `must be ≤ layers (${layers}); got ${m.denseLayers}`,
      });
    if (m.experts !== undefined && m.topK !== undefined && m.expertFfnHidden !== undefined)
      moe = {
        experts: m.experts,
        topK: m.topK,
        expertFfnHidden: m.expertFfnHidden,
        sharedExperts: m.sharedExperts ?? 0,
        sharedExpertFfnHidden: m.sharedExpertFfnHidden ?? m.expertFfnHidden,
        denseLayers: m.denseLayers ?? 0,
      };
  }

  let mla: Mla | undefined;
  const a = model.mla || base.mla ? { ...base.mla, ...model.mla } : undefined;
  if (a) {
    for (const k of ['kvLoraRank', 'qkNopeHeadDim', 'qkRopeHeadDim', 'vHeadDim'] as const)
      if (a[k] === undefined) errors.push({ path: at('mla', k), message: 'required field missing' });
    if (errors.length === 0) mla = a as Mla;
  }
  if (errors.length > 0) return { ok: false, errors };

  const config: TransformerConfig = {
    layers: get('layers')!,
    hidden,
    ffnHidden: get('ffnHidden')!,
    heads,
    kvHeads,
    headDim,
    vocab: get('vocab')!,
    seqLen: get('seqLen')!,
    microbatchSize: get('microbatchSize') ?? 1,
    dtype: get('dtype') ?? 'bf16',
    tiedEmbeddings: get('tiedEmbeddings') ?? false,
    mtpLayers: get('mtpLayers') ?? 0,
  };
  if (model.preset !== undefined) config.preset = model.preset;
  const gemmDtype = get('gemmDtype');
  if (gemmDtype !== undefined) config.gemmDtype = gemmDtype;
  if (moe) config.moe = moe;
  if (mla) config.mla = mla;
  const window = get('slidingWindow');
  if (window) config.slidingWindow = window;
  return { ok: true, config };
}

/** zod refinement: a transformer whose preset and fields do not resolve fails to parse, at the field. */
export function checkTransformer(
  model: TransformerModel,
  ctx: z.core.$RefinementCtx<TransformerModel>,
): void {
  const r = resolveTransformer(model, []);
  if (r.ok) return;
  for (const e of r.errors) ctx.addIssue({ code: 'custom', message: e.message, path: pathSegments(e.path) });
}

/** `moe.topK` → ['moe', 'topK'] (paths built by formatPath from plain field names). */
function pathSegments(p: string): PathSegment[] {
  return p === '' ? [] : p.split('.');
}
