/**
 * Measured beside predicted: the measured step's lanes on the predicted timeline's time axis
 * (zoom and pan shared), the replay's step and op errors, the instructions whose start or
 * duration diverge most, and the button that applies the calibration. It only renders the
 * worker's overlay (core/measuredOverlay.ts) and dispatches the action.
 */
import { useMemo } from 'react';
import { applyCalibrationAction } from '../core/actions.ts';
import { formatMs } from '../core/format.ts';
import type { MeasuredOverlay } from '../core/measuredOverlay.ts';
import { measuredSimulation } from '../core/measuredSimulation.ts';
import { Gantt } from '../gantt/Gantt.tsx';
import { compiledOfResult } from '../store/current.ts';
import { useStore } from '../store/index.ts';
import { clearMeasured, measuredViewSync, useMeasured } from '../store/measured.ts';

/** Rows of the divergence list: the ones worth reading first. */
const DIVERGENCES_SHOWN = 12;

/** The worker's overlay that read, as the pane shows it. */
type Overlay = MeasuredOverlay & { ok: true };

const pct = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(1)}%` : '—');

export function MeasuredPane() {
  const overlay = useMeasured((s) => s.overlay);
  const result = useStore((s) => s.result);
  const plan = useStore((s) => compiledOfResult(s)?.plan ?? s.result?.plan ?? null);
  const target = useStore((s) => s.target);
  const setTarget = useStore((s) => s.setTarget);
  const sim = useMemo(
    () =>
      overlay && plan
        ? measuredSimulation(
            overlay.timeline,
            plan.devices.map((d) => d.device),
          )
        : null,
    [overlay, plan],
  );
  if (!overlay || !result || !plan || !sim) return null;
  const domainMs = Math.max(result.simulation.makespanMs, overlay.timeline.makespanMs);
  // A row's instruction selected on both timelines, as a click on the op would select it.
  const select = (id: string) => {
    const ev = result.simulation.timeline?.find((e) => e.id === id);
    setTarget(ev ? { id, tags: ev.tags, devices: [ev.device] } : null);
  };
  return (
    <section className="measured-pane" data-testid="measured-pane" aria-label="Measured against predicted">
      <MeasuredTools overlay={overlay} />
      <div className="measured-body">
        <div className="measured-lanes" data-testid="measured-lanes">
          <Gantt
            sim={sim}
            plan={plan}
            domainMs={domainMs}
            viewSync={measuredViewSync}
            compact
            selection={target?.id ?? null}
            onSelect={(id) => (id ? select(id) : setTarget(null))}
          />
        </div>
        <DivergenceTable
          divergences={overlay.replay.divergences}
          selected={target?.id ?? null}
          onSelect={select}
        />
      </div>
    </section>
  );
}

/**
 * What the measured step is, and why `stagecraft run` prints a longer one for the same run
 * (runtime/stagecraft_runtime/worker.py times each rank from a barrier through the loss's
 * all-reduce, and takes the slowest rank).
 */
export const MEASURED_STEP_MEANING =
  "The measured step is the first instruction's start to the last one's end over all devices (median over the steps read, the first left out when there are several): the figure `stagecraft compare --measured` prints. `stagecraft run` prints a longer one: it times each rank from a barrier to the end of the loss's all-reduce, and takes the slowest rank.";

/** The pane's bar: the step and op errors, the traces compared, and the calibration and remove buttons. */
function MeasuredTools({ overlay }: { overlay: Overlay }) {
  const status = useMeasured((s) => s.status);
  const comparedWith = useMeasured((s) => s.comparedWith);
  const current = useStore((s) => s.design === comparedWith);
  const dispatch = useStore((s) => s.dispatch);
  const r = overlay.replay;
  // Fitted to the design as it was compared: an edit since waits for the next comparison.
  const calibrated = current ? overlay.calibrated : null;
  return (
    <div className="timeline-tools">
      <span className="timeline-title">Measured</span>
      <span
        data-testid="measured-step"
        data-measured-ms={r.measuredStepMs}
        data-predicted-ms={r.predictedStepMs}
        title={MEASURED_STEP_MEANING}
      >
        step {formatMs(r.predictedStepMs)} predicted → {formatMs(r.measuredStepMs)} measured (
        {pct(r.stepErrorPct)})
      </span>
      <span data-testid="measured-op-error">
        op error p50 {pct(r.opErrorPct.p50).replace('+', '')} · p90 {pct(r.opErrorPct.p90).replace('+', '')} ·
        max {pct(r.opErrorPct.max).replace('+', '')} ({r.opErrorPct.ops} ops)
      </span>
      <span className="hint">
        {overlay.files.join(', ')}
        {overlay.alignedClocks ? '' : ' (per-rank clocks: each device from its own start)'}
        {overlay.unmatched.length > 0 ? ` · ${overlay.unmatched.length} spans not in the plan` : ''}
        {status === 'computing' ? ' · comparing…' : ''}
      </span>
      <button
        type="button"
        data-testid="apply-calibration"
        disabled={!calibrated}
        title={
          calibrated
            ? `predicts ${formatMs(calibrated.predictedStepMs)} with the measured costs`
            : !current
              ? 'comparing the traces with the design as it is now'
              : (overlay.calibrationError ?? 'nothing to calibrate')
        }
        onClick={() =>
          calibrated &&
          dispatch(applyCalibrationAction, {
            model: calibrated.model,
            cluster: calibrated.cluster,
            files: overlay.files,
            fittedTo: comparedWith,
          })
        }
      >
        Apply calibration
      </button>
      <button type="button" data-testid="measured-clear" onClick={clearMeasured}>
        Remove
      </button>
    </div>
  );
}

/** The instructions whose start or duration diverge most, each selectable on both timelines. */
function DivergenceTable({
  divergences,
  selected,
  onSelect,
}: {
  divergences: Overlay['replay']['divergences'];
  selected: string | null;
  onSelect(id: string): void;
}) {
  return (
    <table className="measured-divergences" data-testid="divergences">
      <caption>Most divergent (predicted → measured)</caption>
      <thead>
        <tr>
          <th scope="col">device</th>
          <th scope="col">instruction</th>
          <th scope="col">start</th>
          <th scope="col">duration</th>
        </tr>
      </thead>
      <tbody>
        {divergences.slice(0, DIVERGENCES_SHOWN).map((d) => (
          <tr key={`${d.device}|${d.id}`} data-testid="divergence" data-op-id={d.id} data-device={d.device}>
            <td>{d.device}</td>
            <td>
              <button
                type="button"
                className="measured-op"
                aria-pressed={selected === d.id}
                title="select it on both timelines"
                onClick={() => onSelect(d.id)}
              >
                <code>{d.id}</code>
              </button>
            </td>
            <td>
              {formatMs(d.predictedStartMs)} → {formatMs(d.measuredStartMs)}
            </td>
            <td>
              {formatMs(d.predictedMs)} → {formatMs(d.measuredMs)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
