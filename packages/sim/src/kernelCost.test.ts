import { HBM_STREAM_FRACTION } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { resolveCluster } from './costModel.ts';
import {
  ATTENTION_HALF_SEQ,
  attentionMs,
  attentionSeqEfficiency,
  elementwiseMs,
  gemmRate,
  KERNEL_LAUNCH_MS,
  kernelsMs,
} from './kernelCost.ts';

function gpuOf(preset: string) {
  const r = resolveCluster({ preset, nodes: 1 });
  if (!r.ok || r.cost.kind !== 'custom') throw new Error('unexpected');
  return r.cost.gpu;
}

/** TFLOP/s the model gives causal attention of `seqLen` queries in one pass. */
const tflops = (preset: string, seqLen: number, pass: 'forward' | 'backward') =>
  1e12 / attentionMs(1e12, { seqLen, pass }, gpuOf(preset)) / 1e9;

describe('attention at FlashAttention’s measured efficiency', () => {
  it('follows FlashAttention-3’s forward curve on H100 by sequence length (pytorch/benchmark PR #2391)', () => {
    // Measured forward TFLOP/s at head dimension 128 by sequence length; the model's curve is
    // s/(s + 228) of its long-sequence rate, at the keys a query attends (the whole s there, half
    // of a causal sequence here: a causal op of 2s queries is compared with the measured s).
    const measured: [number, number][] = [
      [512, 430.32],
      [1024, 517.1],
      [2048, 565.54],
      [4096, 590.23],
      [8192, 614.23],
      [16384, 620.73],
    ];
    for (const [s, tf] of measured)
      expect(Math.abs(tflops('dgx-h100', 2 * s, 'forward') / tf - 1)).toBeLessThan(0.03);
  });

  it('is slower on short sequences than on long ones, and halves at 2 × 228 causal tokens', () => {
    expect(tflops('dgx-h100', 512, 'forward')).toBeLessThan(tflops('dgx-h100', 8192, 'forward') * 0.6);
    expect(attentionSeqEfficiency(4 * ATTENTION_HALF_SEQ)).toBeCloseTo(2 / 3, 12);
    expect(attentionSeqEfficiency(2 * ATTENTION_HALF_SEQ)).toBeCloseTo(1 / 2, 12);
  });

  it('runs the backward at FlashAttention-2’s backward-to-forward ratio (63% against 73% of peak)', () => {
    for (const preset of ['dgx-a100', 'dgx-h100'])
      expect(tflops(preset, 8192, 'backward') / tflops(preset, 8192, 'forward')).toBeCloseTo(63 / 73, 9);
    // A100 at long sequences: FlashAttention-2's 73% of 312 TFLOP/s forward.
    expect(tflops('dgx-a100', 1 << 20, 'forward')).toBeCloseTo(312 * 0.73, 0);
  });

  it('without the op saying it is attention, or on a GPU with no measured figure, runs at the GEMM rate', () => {
    const h100 = gpuOf('dgx-h100');
    expect(attentionMs(1e12, undefined, h100)).toBeCloseTo(1e12 / gemmRate('bf16', h100), 9);
    const { attentionFraction: _, ...plain } = h100;
    expect(attentionMs(1e12, { seqLen: 512, pass: 'forward' }, plain)).toBeCloseTo(
      1e12 / gemmRate('bf16', h100),
      9,
    );
  });
});

describe('memory-bound kernels by their bytes', () => {
  it('take bytes / (data sheet HBM × achieved fraction) plus their launches, per GPU', () => {
    const bytes = 3 * 8192 * 8192 * 2; // a residual add over Llama-3-70B's hidden state at 8K tokens
    for (const [preset, gbps] of [
      ['dgx-a100', 2039],
      ['dgx-h100', 3350],
      ['dgx-h200', 4800],
    ] as const) {
      const gpu = gpuOf(preset);
      const atAchieved = bytes / (gbps * 1e6 * HBM_STREAM_FRACTION);
      expect(elementwiseMs(bytes, gpu)).toBeCloseTo(atAchieved, 12);
      const op = { gemms: [], otherLaunches: 1, dtype: 'bf16' as const, elementwiseBytes: bytes };
      expect(kernelsMs(0, op, gpu)).toBeCloseTo(atAchieved + KERNEL_LAUNCH_MS, 12);
    }
    // 402.7 MB over 1.80 TB/s on an A100 80GB: 0.224 ms.
    expect(elementwiseMs(bytes, gpuOf('dgx-a100'))).toBeCloseTo(bytes / 1.8e9, 12);
  });

  it('cost nothing beyond their launches on a GPU without an HBM bandwidth, or on an op without bytes', () => {
    const r = resolveCluster({
      kind: 'custom',
      nodes: 1,
      gpusPerNode: 1,
      gpu: { peakTflops: 100, memoryGiB: 80 },
      intraNode: { bandwidthGBps: 100, latencyUs: 1 },
      interNode: { bandwidthGBps: 10, latencyUs: 1 },
    });
    if (!r.ok || r.cost.kind !== 'custom') throw new Error('unexpected');
    expect(elementwiseMs(1e9, r.cost.gpu)).toBe(0);
    const op = { gemms: [], otherLaunches: 2, dtype: 'bf16' as const };
    expect(kernelsMs(0, op, gpuOf('dgx-h100'))).toBeCloseTo(2 * KERNEL_LAUNCH_MS, 12);
  });
});
