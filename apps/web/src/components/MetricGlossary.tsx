/**
 * What each figure of the metrics bar means, one click away: "bubble / ideal 144%" on DeepSeek-V3
 * is only readable with its definition at hand. The same words as the simulator's documentation
 * (packages/sim/src/types.ts), with the 1F1B closed forms a user can check them against.
 */
import { useEffect, useId, useRef, useState } from 'react';

export const METRIC_DEFINITIONS: readonly { term: string; definition: string }[] = [
  {
    term: 'step time',
    definition: 'Simulated time of one training step, from the first op to the last (the makespan).',
  },
  {
    term: 'bubble',
    definition:
      'Σ idle compute / (devices × step time), over the devices the design uses: the share of GPU time in which no compute runs. (p−1)/(m+p−1) for 1F1B with p stages and m microbatches.',
  },
  {
    term: 'bubble / ideal',
    definition:
      'Σ idle / Σ busy: the idle time relative to the compute itself, Megatron’s convention ((p−1)/m for 1F1B). Above 100% the devices wait longer than they compute; it is not a percentage of the step.',
  },
  {
    term: 'exposed comm / GPU',
    definition:
      'Time a GPU’s communication is in flight while none of its compute runs, averaged over the GPUs in use: communication that overlapping did not hide.',
  },
  {
    term: 'peak memory',
    definition:
      'Highest bytes allocated on any device during the step: static state (parameters, gradients, optimizer) plus stashed activations. OOM: some device exceeds its GPU’s memory.',
  },
  {
    term: 'MFU',
    definition:
      'Model FLOPs utilisation: the model’s FLOPs per step / (step time × GPUs × peak FLOP/s of the GPU).',
  },
  { term: 'tokens', definition: 'Tokens per second: the tokens of one step / step time.' },
];

export function MetricGlossary() {
  const [open, setOpen] = useState(false);
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !box.current?.contains(e.target as Node))
        setOpen(false);
    };
    window.addEventListener('keydown', close);
    window.addEventListener('pointerdown', close);
    return () => {
      window.removeEventListener('keydown', close);
      window.removeEventListener('pointerdown', close);
    };
  }, [open]);
  return (
    <div className="metric-glossary" ref={box}>
      <button
        type="button"
        className="metric-help"
        aria-expanded={open}
        aria-controls={id}
        aria-label="what the figures mean"
        title="what the figures mean"
        data-testid="metric-help"
        onClick={() => setOpen((o) => !o)}
      >
        ?
      </button>
      {open && (
        <dl id={id} className="metric-glossary-list" data-testid="metric-glossary">
          {METRIC_DEFINITIONS.map((d) => (
            <div key={d.term}>
              <dt>{d.term}</dt>
              <dd>{d.definition}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
