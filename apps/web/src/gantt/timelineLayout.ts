/** Which layout a timeline shows and how it is drawn: laid out again only when what it places changes. */
import { useMemo } from 'react';
import { layoutGantt, layoutSteps } from './layout.ts';
import { indexPlan } from './planIndex.ts';
import type { GanttProps } from './props.ts';
import { useGanttLayout } from './slicedLayout.ts';

/**
 * Above this many ops the timeline draws on a canvas instead of one SVG element per op: a p=8,
 * m=32 step (1,416 ops) renders in about 4 ms on canvas against about 30 ms as SVG, which matters
 * for the 100 ms budget from an edit to the new timeline.
 */
export const SVG_OP_LIMIT = 1200;

export function useTimelineLayout(props: GanttProps) {
  const { sim, plan, memoryCapacityBytes } = props;
  const capKey = plan.devices.map((d) => memoryCapacityBytes?.(d.device) ?? '').join(',');
  // The outline a result arrives with and the whole plan that follows it lay a simulation out
  // alike: with the same simulation, only other lanes lay it out again.
  const laneKey = plan.devices
    .map((d) => `${d.device}:${d.stages.join(',')}:${d.streams.map((s) => s.stream).join(',')}`)
    .join(';');
  const collapsedStreams = props.collapsedStreams;
  const compact = props.compact === true;
  const collapseKey = `${[...(collapsedStreams ?? [])].join(',')}|${props.memoryCollapsed === true}|${props.memoryScaleBytes}|${compact}`;
  const layoutOptions = {
    memoryCapacityBytes,
    collapsedStreams,
    memoryCollapsed: props.memoryCollapsed,
    memoryScaleBytes: props.memoryScaleBytes,
    compact,
  };
  // The plan counts by its lanes (laneKey), capacities by value (capKey), folding and scale by
  // collapseKey. A big timeline is laid out over several tasks (slicedLayout.ts).
  const { layout, pending } = useGanttLayout(
    sim.timeline?.length ?? 0,
    () => layoutSteps(sim, plan, layoutOptions),
    // Its lanes, without the step-long bubble an empty timeline would give every device.
    () => ({ ...layoutGantt({ ...sim, timeline: [] }, plan, layoutOptions), bubbles: [], bubbleLane: [] }),
    [sim, laneKey, capKey, collapseKey],
  );
  const planIndex = useMemo(() => indexPlan(plan), [plan]);
  const mode: 'svg' | 'canvas' =
    props.render === 'svg' || props.render === 'canvas'
      ? props.render
      : // While a big timeline is laid out, the renderer its ops will need.
        (pending ? (sim.timeline?.length ?? 0) : layout.ops.length) > SVG_OP_LIMIT
        ? 'canvas'
        : 'svg';
  // The step of the layout shown (while a big one is laid out, the one before).
  const domainMs = props.domainMs ?? layout.makespanMs;
  return { layout, pending, planIndex, mode, domainMs };
}
