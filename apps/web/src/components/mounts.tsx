/** Where the compare components are mounted, fed from the store (the timeline's: TimelinePane.tsx). */
import { type Cluster, expandCluster } from '@stagecraft/ir';
import { useMemo } from 'react';
import { ComparePanel, type CompareVariant } from '../compare/index.ts';
import { microbatchesOf, removePinAction, renamePinAction, setBaselineAction } from '../core/pins.ts';
import { useStore } from '../store/index.ts';

const GIB = 1024 ** 3;

/** The GPU's memory, for custom clusters and presets alike (a preset names its GPU). */
export function capacityOf(cluster: Cluster): ((device: number) => number | undefined) | undefined {
  const r = expandCluster(cluster);
  if (!r.ok || r.cluster.kind !== 'custom') return undefined;
  const bytes = r.cluster.gpu.memoryGiB * GIB;
  return () => bytes;
}

export function ComparePane() {
  const pins = useStore((s) => s.pins);
  const baseline = useStore((s) => s.baseline);
  const dispatchPins = useStore((s) => s.dispatchPins);
  const cluster = useStore((s) => s.design.cluster);
  const variants = useMemo(
    (): CompareVariant[] =>
      pins.map((p) => ({
        id: p.id,
        name: p.name,
        sim: p.result.simulation,
        plan: p.result.plan,
        microbatches: microbatchesOf(p.design),
      })),
    [pins],
  );
  const capacity = useMemo(() => capacityOf(cluster), [cluster]);
  if (pins.length === 0)
    return (
      <section className="panel compare-empty">
        <h2>Compare</h2>
        <p className="hint">
          Pin up to four variants with <b>Pin</b> in the toolbar (edit the design between pins): their
          timelines share one time axis and the table highlights what got better or worse against the first.
        </p>
      </section>
    );
  return (
    <ComparePanel
      variants={variants}
      baseline={baseline}
      onBaseline={(id) => dispatchPins(setBaselineAction, { id })}
      onRename={(id, name) => dispatchPins(renamePinAction, { id, name })}
      onRemove={(id) => dispatchPins(removePinAction, { id })}
      {...(capacity ? { memoryCapacityBytes: capacity } : {})}
    />
  );
}
