/** Where the timeline and compare components are mounted, fed from the store. */
import { type Cluster, expandCluster } from '@stagecraft/ir';
import type { TimelineEvent } from '@stagecraft/sim';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ComparePanel, type CompareVariant } from '../compare/index.ts';
import { reorderOpAction } from '../core/actions.ts';
import { detailsOf } from '../core/dagGraph.ts';
import type { DropTarget } from '../core/dropTarget.ts';
import { removePinAction, renamePinAction, setBaselineAction } from '../core/pins.ts';
import type { OpMove } from '../core/reorder.ts';
import { Gantt, GanttLegend, meshGroupOf } from '../gantt/index.ts';
import { MeasuredOpen } from '../measured/index.ts';
import { compiledOfResult, currentResult } from '../store/current.ts';
import { useStore } from '../store/index.ts';
import { measuredViewSync, useMeasured } from '../store/measured.ts';
import { applyItem } from './applyItem.ts';
import { FoldSwitch, OomJump, OpSearchBox } from './TimelineControls.tsx';

const GIB = 1024 ** 3;

/** A refused move's reason stays this long (or until clicked): long enough to read two lines. */
export const REFUSAL_MS = 8000;

/** The GPU's memory, for custom clusters and presets alike (a preset names its GPU). */
export function capacityOf(cluster: Cluster): ((device: number) => number | undefined) | undefined {
  const r = expandCluster(cluster);
  if (!r.ok || r.cluster.kind !== 'custom') return undefined;
  const bytes = r.cluster.gpu.memoryGiB * GIB;
  return () => bytes;
}

/** Benchmarks turn frame measurement on with `?frames` in the page's URL. */
const params = new URLSearchParams(typeof location !== 'undefined' ? location.search : '');
const measureFrames = params.has('frames');
/** `?render=svg|canvas` forces the timeline's renderer (default: by op count). */
const forcedRender =
  params.get('render') === 'svg' || params.get('render') === 'canvas'
    ? (params.get('render') as 'svg' | 'canvas')
    : undefined;

const P2P_STREAMS: ReadonlySet<string> = new Set(['p2p']);

export function TimelinePane() {
  const result = useStore((s) => s.result);
  // The result comes with its plan's outline; the whole plan (op details) follows it.
  const plan = useStore((s) => compiledOfResult(s)?.plan ?? s.result?.plan ?? null);
  const cluster = useStore((s) => s.design.cluster);
  const target = useStore((s) => s.target);
  const setTarget = useStore((s) => s.setTarget);
  const hover = useStore((s) => s.hover);
  const dispatch = useStore((s) => s.dispatch);
  // With a measured step beside it, both timelines share one time axis (measured/MeasuredPane).
  const measuredMs = useMeasured((s) => s.overlay?.timeline.makespanMs);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [arrows, setArrows] = useState(false);
  useEffect(() => {
    if (refusal === null) return;
    const t = setTimeout(() => setRefusal(null), REFUSAL_MS);
    return () => clearTimeout(t);
  }, [refusal]);
  const [p2pCollapsed, setP2pCollapsed] = useState(false);
  const [memoryCollapsed, setMemoryCollapsed] = useState(false);
  const [reveal, setReveal] = useState<{ id: string } | { device: number } | null>(null);
  const capacity = useMemo(() => capacityOf(cluster), [cluster]);
  const onHover = useCallback(
    (op: TimelineEvent | null) => {
      const s = useStore.getState();
      // Hovering an op comes before its details and before a drag that moves it.
      if (op) s.wantCompiled();
      if ((op ? (op.members?.[0] ?? op.id) : null) === (s.hovered?.firstId ?? null)) return;
      const dag = compiledOfResult(s)?.dag;
      hover(
        op && s.result && dag ? (detailsOf(dag, op.members?.[0] ?? op.id, s.result.program) ?? null) : null,
      );
    },
    [hover],
  );
  const onReorder = useCallback(
    (move: OpMove) => {
      const s = useStore.getState();
      const result = currentResult(s);
      if (!result) {
        setRefusal('the design has errors: fix them before reordering on the timeline');
        return;
      }
      const compiled = compiledOfResult(s);
      if (!compiled) {
        setRefusal('the timeline is still being recomputed: try the move again');
        return;
      }
      const ok = dispatch(reorderOpAction, {
        compiled: { ...compiled, program: result.program },
        move,
      });
      if (ok) setRefusal(null);
      else {
        setRefusal(useStore.getState().notice?.text ?? 'the move was refused');
        useStore.setState({ notice: null });
      }
    },
    [dispatch],
  );
  const directiveLabel = useCallback((i: number) => {
    const e = useStore.getState().result?.program[i];
    return e
      ? `${e.directive.op} ${e.path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
          .join('')
          .slice(1)}`
      : undefined;
  }, []);
  // An op targets its own device, or its whole group when that is a mesh (a drop asks for the axis).
  const opTarget = (ev: TimelineEvent, id?: string): DropTarget => {
    const meshGroup = plan ? meshGroupOf(plan, ev.device) : undefined;
    return {
      id: id ?? ev.members?.[0] ?? ev.id,
      tags: ev.tags,
      devices: meshGroup ? [...meshGroup.devices] : [ev.device],
      ...(meshGroup ? { mesh: meshGroup.mesh } : {}),
    };
  };
  const selectEvent = (ev: TimelineEvent | undefined, id?: string) => {
    if (ev) useStore.getState().wantCompiled();
    setTarget(ev ? opTarget(ev, id) : null);
  };
  if (!result || !plan) return <section className="timeline-pane" />;
  const oomCount = result.simulation.devices.filter((d) => d.oom).length;
  // The devices the timeline draws (a big cluster draws one device of each group): the jump visits those.
  const drawn = new Set(plan.devices.map((d) => d.device));
  const oomDrawn = result.simulation.devices.filter((d) => d.oom && drawn.has(d.device)).map((d) => d.device);
  return (
    <section className="timeline-pane">
      <div className="timeline-tools">
        <span className="timeline-title">Timeline</span>
        <OomJump oomCount={oomCount} devices={oomDrawn} onShow={(device) => setReveal({ device })} />
        <label>
          <input
            type="checkbox"
            checked={arrows}
            onChange={(e) => setArrows(e.target.checked)}
            data-testid="toggle-arrows"
          />{' '}
          SEND→RECV arrows
        </label>
        <FoldSwitch
          label="fold p2p"
          title="fold every device's p2p lane to a thin strip"
          testid="collapse-p2p"
          checked={p2pCollapsed}
          onChange={setP2pCollapsed}
        />
        <FoldSwitch
          label="fold memory"
          title="hide every device's memory strip"
          testid="collapse-memory"
          checked={memoryCollapsed}
          onChange={setMemoryCollapsed}
        />
        <OpSearchBox
          events={result.simulation.timeline ?? []}
          onFound={(match) => {
            selectEvent(match.event, match.id === match.event.id ? undefined : match.id);
            setReveal({ id: match.id });
          }}
        />
        <MeasuredOpen />
        <GanttLegend />
      </div>
      <Gantt
        sim={result.simulation}
        plan={plan}
        {...(capacity ? { memoryCapacityBytes: capacity } : {})}
        selection={target?.id ?? null}
        selectionPanel
        onHover={onHover}
        onSelect={(id) => selectEvent(id ? result.simulation.timeline?.find((e) => e.id === id) : undefined)}
        onDropPaletteItem={(item, op) => applyItem(item, opTarget(op))}
        onReorder={onReorder}
        refusal={refusal}
        onDismissRefusal={() => setRefusal(null)}
        showArrows={arrows}
        {...(p2pCollapsed ? { collapsedStreams: P2P_STREAMS } : {})}
        memoryCollapsed={memoryCollapsed}
        reveal={reveal}
        measureFrames={measureFrames}
        {...(forcedRender ? { render: forcedRender } : {})}
        {...(measuredMs !== undefined
          ? { domainMs: Math.max(measuredMs, result.simulation.makespanMs), viewSync: measuredViewSync }
          : {})}
        directiveLabel={directiveLabel}
      />
    </section>
  );
}

export function ComparePane() {
  const pins = useStore((s) => s.pins);
  const baseline = useStore((s) => s.baseline);
  const dispatchPins = useStore((s) => s.dispatchPins);
  const cluster = useStore((s) => s.design.cluster);
  const variants = useMemo(
    (): CompareVariant[] =>
      pins.map((p) => ({ id: p.id, name: p.name, sim: p.result.simulation, plan: p.result.plan })),
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
