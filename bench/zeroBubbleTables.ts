/**
 * The measured throughputs of Zero Bubble Pipeline Parallelism (Qi et al., ICLR 2024, arXiv
 * 2401.10241) that docs/published.md checks, as the paper prints them: samples per GPU per second on
 * A100 SXM 80G GPUs, GPT-3-like models in Megatron-LM (its Table 3: sequence 1024; pipeline depth p =
 * #GPU; no data or tensor parallelism).
 */

export interface ZeroBubbleSetting {
  model: string;
  /** Pipeline stages, one per GPU. */
  p: number;
  /** Microbatches per step. */
  m: number;
  /** Samples per GPU per second of each schedule the paper ran at this setting. */
  measured: Readonly<Record<string, number>>;
}

/** Table 4 ("Experiment result details"): ZB-2p, ZB-1p, 1F1B and 1F1B-I at three m per model. */
export const TABLE_4: readonly ZeroBubbleSetting[] = [
  { model: '1.5B', p: 8, m: 24, measured: { 'ZB-2p': 14.5, 'ZB-1p': 12.9, '1F1B': 11.8, '1F1B-I': 13.1 } },
  { model: '1.5B', p: 8, m: 32, measured: { 'ZB-2p': 14.8, 'ZB-1p': 13.4, '1F1B': 12.5, '1F1B-I': 13.4 } },
  { model: '1.5B', p: 8, m: 64, measured: { 'ZB-2p': 14.9, 'ZB-1p': 14.2, '1F1B': 13.6, '1F1B-I': 13.9 } },
  { model: '6.2B', p: 8, m: 24, measured: { 'ZB-2p': 4.32, 'ZB-1p': 3.88, '1F1B': 3.5, '1F1B-I': 4.01 } },
  { model: '6.2B', p: 8, m: 32, measured: { 'ZB-2p': 4.35, 'ZB-1p': 4.0, '1F1B': 3.7, '1F1B-I': 4.08 } },
  { model: '6.2B', p: 8, m: 64, measured: { 'ZB-2p': 4.39, 'ZB-1p': 4.2, '1F1B': 4.03, '1F1B-I': 4.19 } },
  { model: '14.6B', p: 16, m: 48, measured: { 'ZB-2p': 1.81, 'ZB-1p': 1.61, '1F1B': 1.4, '1F1B-I': 1.54 } },
  { model: '14.6B', p: 16, m: 64, measured: { 'ZB-2p': 1.83, 'ZB-1p': 1.67, '1F1B': 1.49, '1F1B-I': 1.59 } },
  { model: '14.6B', p: 16, m: 128, measured: { 'ZB-2p': 1.85, 'ZB-1p': 1.76, '1F1B': 1.64, '1F1B-I': 1.66 } },
  { model: '28.3B', p: 32, m: 96, measured: { 'ZB-2p': 0.99, 'ZB-1p': 0.87, '1F1B': 0.76, '1F1B-I': 0.82 } },
  { model: '28.3B', p: 32, m: 128, measured: { 'ZB-2p': 1.0, 'ZB-1p': 0.9, '1F1B': 0.8, '1F1B-I': 0.85 } },
  { model: '28.3B', p: 32, m: 256, measured: { 'ZB-2p': 1.0, 'ZB-1p': 0.96, '1F1B': 0.88, '1F1B-I': 0.9 } },
];

/**
 * Table 6 ("under the same memory consumption"): ZB-V, ZB-1p and 1F1B at three m per model, where
 * ZB-V's gain over 1F1B is the abstract's "up to 23% under a similar memory limit". Its ZB-2p*
 * column runs half the microbatch size at twice the microbatches, a different configuration, and is
 * not scored.
 */
export const TABLE_6: readonly ZeroBubbleSetting[] = [
  { model: '6.2B', p: 16, m: 48, measured: { 'ZB-V': 4.15, 'ZB-1p': 3.87, '1F1B': 3.38 } },
  { model: '6.2B', p: 16, m: 64, measured: { 'ZB-V': 4.21, 'ZB-1p': 4.0, '1F1B': 3.57 } },
  { model: '6.2B', p: 16, m: 128, measured: { 'ZB-V': 4.35, 'ZB-1p': 4.29, '1F1B': 3.91 } },
  { model: '14.6B', p: 24, m: 72, measured: { 'ZB-V': 1.85, 'ZB-1p': 1.72, '1F1B': 1.52 } },
  { model: '14.6B', p: 24, m: 96, measured: { 'ZB-V': 1.88, 'ZB-1p': 1.78, '1F1B': 1.61 } },
  { model: '14.6B', p: 24, m: 192, measured: { 'ZB-V': 1.93, 'ZB-1p': 1.89, '1F1B': 1.76 } },
  { model: '28.3B', p: 32, m: 96, measured: { 'ZB-V': 1.01, 'ZB-1p': 0.94, '1F1B': 0.82 } },
  { model: '28.3B', p: 32, m: 128, measured: { 'ZB-V': 1.02, 'ZB-1p': 0.97, '1F1B': 0.87 } },
  { model: '28.3B', p: 32, m: 256, measured: { 'ZB-V': 1.06, 'ZB-1p': 1.03, '1F1B': 0.95 } },
];

/** A schedule's published gain over 1F1B at one setting: its throughput over 1F1B's, minus one. */
export const gainOver1F1B = (s: ZeroBubbleSetting, schedule: string): number => {
  const a = s.measured[schedule];
  const b = s.measured['1F1B'];
  if (a === undefined || b === undefined) throw new Error(`${s.model} p=${s.p} m=${s.m}: no ${schedule}`);
  return a / b - 1;
};

/** The setting of a table where a schedule's published gain over 1F1B is largest: its "up to". */
export const largestGain = (table: readonly ZeroBubbleSetting[], schedule: string): ZeroBubbleSetting =>
  table.reduce((best, s) => (gainOver1F1B(s, schedule) > gainOver1F1B(best, schedule) ? s : best));
