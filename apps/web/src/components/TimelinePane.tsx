/**
 * The design tab's timeline, fed from the store: its tools (OOM jump, arrows, folds, search, a
 * measured step, the legend), and the timeline whose hovers, selections, drops and moves become
 * the store's commands and actions.
 */
import type { TimelineEvent } from '@stagecraft/sim';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useState } from 'react';
import { reorderOpAction } from '../core/actions.ts';
import { detailsOf } from '../core/dagGraph.ts';
import type { DropTarget } from '../core/dropTarget.ts';
import type { OpMove } from '../core/reorder.ts';
import { Gantt, GanttLegend, meshGroupOf } from '../gantt/index.ts';
import type { TimelinePlan } from '../gantt/timelinePlan.ts';
import { MeasuredOpen } from '../measured/index.ts';
import { compiledOfResult, currentResult } from '../store/current.ts';
import { type ResultView, useStore } from '../store/index.ts';
import { measuredViewSync, useMeasured } from '../store/measured.ts';
import { applyItem } from './applyItem.ts';
import { capacityOf } from './mounts.tsx';
import { FoldSwitch, OomJump, OpSearchBox, PictureButtons } from './TimelineControls.tsx';

/** A refused move's reason stays this long (or until clicked): long enough to read two lines. */
export const REFUSAL_MS = 8000;

/** Benchmarks turn frame measurement on with `?frames` in the page's URL. */
const params = new URLSearchParams(typeof location !== 'undefined' ? location.search : '');
const measureFrames = params.has('frames');
/** `?render=svg|canvas` forces the timeline's renderer (default: by op count). */
const forcedRender =
  params.get('render') === 'svg' || params.get('render') === 'canvas'
    ? (params.get('render') as 'svg' | 'canvas')
    : undefined;

const P2P_STREAMS: ReadonlySet<string> = new Set(['p2p']);

/** What the tools switch: arrows, folded lanes, and the op or device last asked to be shown. */
interface Shown {
  arrows: boolean;
  p2pCollapsed: boolean;
  memoryCollapsed: boolean;
  reveal: { id: string } | { device: number } | null;
}

/**
 * The timeline follows a result one render behind the rest of the page: a zustand update renders
 * synchronously, so the metrics, the program and the timeline's gutter, legend and tools were one
 * task of 0.25–0.44 s per result on the big examples at load 17–23 (docs/performance.md).
 * Deferred, the store's update commits the cheap panes first and the timeline renders in a
 * transition React slices and yields between; `data-result-revision` says which result it shows.
 */
export function TimelinePane() {
  const result = useDeferredValue(useStore((s) => s.result));
  // The result comes with its plan's outline; the whole plan (op details) follows it.
  const plan = useDeferredValue(useStore((s) => compiledOfResult(s)?.plan ?? s.result?.plan ?? null));
  const revision = useDeferredValue(useStore((s) => s.resultRevision));
  return <TimelineOf result={result} plan={plan} revision={revision} />;
}

/** Memoised: the urgent render of a new result passes the previous props and stops here. */
const TimelineOf = memo(function TimelineOf({
  result,
  plan,
  revision,
}: {
  result: ResultView | null;
  plan: TimelinePlan | null;
  revision: number;
}) {
  const cluster = useStore((s) => s.design.cluster);
  const target = useStore((s) => s.target);
  // With a measured step beside it, both timelines share one time axis (measured/MeasuredPane).
  const measuredMs = useMeasured((s) => s.overlay?.timeline.makespanMs);
  const [shown, setShown] = useState<Shown>({
    arrows: false,
    p2pCollapsed: false,
    memoryCollapsed: false,
    reveal: null,
  });
  const show = (change: Partial<Shown>) => setShown((s) => ({ ...s, ...change }));
  const capacity = useMemo(() => capacityOf(cluster), [cluster]);
  const edits = useTimelineEdits(plan);
  if (!result || !plan) return <section className="timeline-pane" data-result-revision={revision} />;
  return (
    <section className="timeline-pane" data-result-revision={revision}>
      <TimelineTools result={result} plan={plan} shown={shown} show={show} selectEvent={edits.selectEvent} />
      <Gantt
        sim={result.simulation}
        plan={plan}
        {...(capacity ? { memoryCapacityBytes: capacity } : {})}
        selection={target?.id ?? null}
        selectionPanel
        onHover={edits.onHover}
        onSelect={(id) =>
          edits.selectEvent(id ? result.simulation.timeline?.find((e) => e.id === id) : undefined)
        }
        onDropPaletteItem={(item, op) => applyItem(item, edits.opTarget(op))}
        onReorder={edits.onReorder}
        refusal={edits.refusal}
        onDismissRefusal={() => edits.setRefusal(null)}
        showArrows={shown.arrows}
        {...(shown.p2pCollapsed ? { collapsedStreams: P2P_STREAMS } : {})}
        memoryCollapsed={shown.memoryCollapsed}
        reveal={shown.reveal}
        measureFrames={measureFrames}
        {...(forcedRender ? { render: forcedRender } : {})}
        {...(measuredMs !== undefined
          ? { domainMs: Math.max(measuredMs, result.simulation.makespanMs), viewSync: measuredViewSync }
          : {})}
        directiveLabel={directiveLabel}
      />
    </section>
  );
});

function TimelineTools({
  result,
  plan,
  shown,
  show,
  selectEvent,
}: {
  result: ResultView;
  plan: TimelinePlan;
  shown: Shown;
  show(change: Partial<Shown>): void;
  selectEvent(ev: TimelineEvent | undefined, id?: string): void;
}) {
  const designName = useStore((s) => s.design.name);
  const oomCount = result.simulation.devices.filter((d) => d.oom).length;
  // The devices the timeline draws (a big cluster draws one device of each group): the jump visits those.
  const drawn = new Set(plan.devices.map((d) => d.device));
  const oomDrawn = result.simulation.devices.filter((d) => d.oom && drawn.has(d.device)).map((d) => d.device);
  return (
    <div className="timeline-tools">
      <span className="timeline-title">Timeline</span>
      <OomJump oomCount={oomCount} devices={oomDrawn} onShow={(device) => show({ reveal: { device } })} />
      <label>
        <input
          type="checkbox"
          checked={shown.arrows}
          onChange={(e) => show({ arrows: e.target.checked })}
          data-testid="toggle-arrows"
        />{' '}
        SEND→RECV arrows
      </label>
      <FoldSwitch
        label="fold p2p"
        title="fold every device's p2p lane to a thin strip"
        testid="collapse-p2p"
        checked={shown.p2pCollapsed}
        onChange={(p2pCollapsed) => show({ p2pCollapsed })}
      />
      <FoldSwitch
        label="fold memory"
        title="hide every device's memory strip"
        testid="collapse-memory"
        checked={shown.memoryCollapsed}
        onChange={(memoryCollapsed) => show({ memoryCollapsed })}
      />
      <OpSearchBox
        events={result.simulation.timeline ?? []}
        onFound={(hit) => {
          selectEvent(hit.event, hit.id === hit.event.id ? undefined : hit.id);
          show({ reveal: { id: hit.id } });
        }}
      />
      <MeasuredOpen />
      <PictureButtons name={designName} />
      <GanttLegend />
    </div>
  );
}

/** What the timeline's gestures do to the store: hover details, the target op, a move and its refusal. */
function useTimelineEdits(plan: TimelinePlan | null) {
  const setTarget = useStore((s) => s.setTarget);
  const hover = useStore((s) => s.hover);
  const dispatch = useStore((s) => s.dispatch);
  const [refusal, setRefusal] = useState<string | null>(null);
  useEffect(() => {
    if (refusal === null) return;
    const t = setTimeout(() => setRefusal(null), REFUSAL_MS);
    return () => clearTimeout(t);
  }, [refusal]);
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
      const refused = reorder(dispatch, move);
      setRefusal(refused);
    },
    [dispatch],
  );
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
  return { refusal, setRefusal, onHover, onReorder, opTarget, selectEvent };
}

/** Performs a timeline move; returns why it was refused, or null when it went ahead. */
function reorder(dispatch: ReturnType<typeof useStore.getState>['dispatch'], move: OpMove): string | null {
  const s = useStore.getState();
  const result = currentResult(s);
  if (!result) return 'the design has errors: fix them before reordering on the timeline';
  const compiled = compiledOfResult(s);
  if (!compiled) return 'the timeline is still being recomputed: try the move again';
  if (dispatch(reorderOpAction, { compiled: { ...compiled, program: result.program }, move })) return null;
  const text = useStore.getState().notice?.text ?? 'the move was refused';
  useStore.setState({ notice: null });
  return text;
}

/** A directive of the program as op details name it: `schedule directives[0]`. */
function directiveLabel(i: number): string | undefined {
  const e = useStore.getState().result?.program[i];
  return e
    ? `${e.directive.op} ${e.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
        .join('')
        .slice(1)}`
    : undefined;
}
