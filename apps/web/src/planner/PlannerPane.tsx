/**
 * The planner tab: the layout search of the current design's model on its cluster (max memory,
 * global batch, budget), its progress with Cancel, the front plotted and listed, a point opened in
 * the designer or pinned to compare; and the sweep of the design against m or p.
 */
import { useState } from 'react';
import type { PlanJob } from '../api/planJobsApi.ts';
import { cancelPlanAction, openPlanPointAction, startPlanAction, sweepAction } from '../core/actions.ts';
import { formatBytes, formatCount, formatMs } from '../core/format.ts';
import { layoutLabel, tokensAvailable } from '../core/planFront.ts';
import { useStore } from '../store/index.ts';
import { isSearching } from '../store/planner.ts';
import { FrontPlot, formatTokens } from './FrontPlot.tsx';
import { performPlanner, usePlanner } from './plannerPage.ts';
import { SweepPlot } from './SweepPlot.tsx';
import './planner.css';

export function PlannerPane() {
  return (
    <div className="planner-pane" data-testid="planner-pane">
      <SearchSection />
      <SweepSection />
    </div>
  );
}

function SearchSection() {
  const form = usePlanner((s) => s.form);
  const setForm = usePlanner((s) => s.setForm);
  const job = usePlanner((s) => s.job);
  const starting = usePlanner((s) => s.starting);
  const error = usePlanner((s) => s.error);
  const searchedFor = usePlanner((s) => s.searchedFor);
  const designName = useStore((s) => s.design.name);
  const searching = starting || isSearching(job);
  return (
    <section className="panel planner-search">
      <h2>Layout search</h2>
      <p className="hint">
        Searches the layouts of <b>{designName}</b>'s model on its cluster (pipeline, data, tensor and expert
        degrees, microbatches, schedule, ZeRO, recompute) and keeps the front of step time against peak
        memory.
      </p>
      <form
        className="planner-form"
        onSubmit={(e) => {
          e.preventDefault();
          performPlanner(startPlanAction, { form });
        }}
      >
        <label>
          max memory (GiB)
          <input
            data-testid="plan-max-memory"
            value={form.maxMemoryGiB}
            placeholder="the GPU's"
            onChange={(e) => setForm({ maxMemoryGiB: e.target.value })}
          />
        </label>
        <label>
          global batch
          <input
            data-testid="plan-global-batch"
            value={form.globalBatch}
            placeholder="the design's"
            onChange={(e) => setForm({ globalBatch: e.target.value })}
          />
        </label>
        <label>
          budget (s)
          <input
            data-testid="plan-budget"
            value={form.budgetS}
            onChange={(e) => setForm({ budgetS: e.target.value })}
          />
        </label>
        <button type="submit" data-testid="plan-start" disabled={searching}>
          Search
        </button>
        <button
          type="button"
          data-testid="plan-cancel"
          disabled={!isSearching(job) || job?.status === 'cancelling'}
          onClick={() => performPlanner(cancelPlanAction, undefined)}
        >
          Cancel
        </button>
      </form>
      {error && (
        <p className="planner-error" role="alert" data-testid="plan-error">
          {error}
        </p>
      )}
      {starting && <p className="hint">starting the search…</p>}
      {job && <SearchProgress job={job} designName={searchedFor} />}
      {job?.result && <FrontView key={job.id} job={job} />}
    </section>
  );
}

const STATUS_TEXT: Record<PlanJob['status'], string> = {
  running: 'searching',
  cancelling: 'stopping…',
  done: 'done',
  cancelled: 'cancelled: the front found so far',
  failed: 'failed',
};

function SearchProgress({ job, designName }: { job: PlanJob; designName: string | null }) {
  const p = job.progress;
  const fraction = job.budgetS > 0 ? Math.min(1, p.elapsedMs / (p.elapsedMs + p.timeLeftMs || 1)) : 0;
  return (
    <div className="planner-progress" data-testid="plan-progress" data-status={job.status}>
      <div>
        <b data-testid="plan-status">{STATUS_TEXT[job.status]}</b>
        {designName ? ` · ${designName}` : ''}
        {job.status === 'done' && job.result?.stoppedEarly ? ' (the budget ran out first)' : ''}
      </div>
      {isSearching(job) && <progress max={1} value={fraction} aria-label="search time used" />}
      <dl className="planner-counts">
        <dt>tried</dt>
        <dd data-testid="plan-tried">{formatCount(p.tried)}</dd>
        <dt>pruned</dt>
        <dd data-testid="plan-pruned">{formatCount(p.pruned)}</dd>
        <dt>front</dt>
        <dd data-testid="plan-front-size">{p.frontSize}</dd>
        {job.result && (
          <>
            <dt>space</dt>
            <dd>{formatCount(job.result.spaceSize)}</dd>
          </>
        )}
        <dt>elapsed</dt>
        <dd>{formatMs(p.elapsedMs)}</dd>
        {isSearching(job) && (
          <>
            <dt>time left</dt>
            <dd data-testid="plan-time-left">{formatMs(p.timeLeftMs)}</dd>
          </>
        )}
      </dl>
      {job.error && (
        <p className="planner-error" role="alert">
          {job.error.path ? `${job.error.path}: ` : ''}
          {job.error.message}
        </p>
      )}
    </div>
  );
}

function FrontView({ job }: { job: PlanJob }) {
  const result = job.result!;
  const measure = usePlanner((s) => s.measure);
  const setMeasure = usePlanner((s) => s.setMeasure);
  const hovered = usePlanner((s) => s.hovered);
  const hover = usePlanner((s) => s.hover);
  const [selected, setSelected] = useState<number | null>(result.best);
  if (result.front.length === 0)
    return <p className="hint">No layout fits: raise the memory limit or lower the global batch.</p>;
  const tokens = tokensAvailable(result.front);
  const shown = tokens ? measure : 'step';
  const point = selected !== null ? result.front[selected] : undefined;
  return (
    <div className="planner-front">
      <div className="planner-measure" role="radiogroup" aria-label="plotted against peak memory">
        <label>
          <input type="radio" checked={shown === 'step'} onChange={() => setMeasure('step')} /> step time
        </label>
        <label title={tokens ? '' : 'the model gives no token count (a synthetic model)'}>
          <input
            type="radio"
            disabled={!tokens}
            checked={shown === 'tokens'}
            onChange={() => setMeasure('tokens')}
          />{' '}
          tokens/s per GPU
        </label>
      </div>
      <FrontPlot
        front={result.front}
        best={result.best}
        measure={shown}
        hovered={hovered}
        selected={selected}
        onHover={hover}
        onSelect={setSelected}
      />
      {point && selected !== null && (
        <div className="planner-card" data-testid="plan-selected">
          <b>{layoutLabel(point.layout)}</b>
          {selected === result.best ? ' (fastest that fits)' : ''}
          <div>
            step {formatMs(point.stepMs)} · peak {formatBytes(point.peakMemoryBytes)}
            {point.tokensPerSecPerGpu !== undefined
              ? ` · ${formatTokens(point.tokensPerSecPerGpu)} tok/s/GPU`
              : ''}
          </div>
          <button
            type="button"
            data-testid="plan-open"
            onClick={() => {
              performPlanner(openPlanPointAction, { point, pin: false });
              useStore.getState().setTab('design');
            }}
          >
            Open in designer
          </button>
          <button
            type="button"
            data-testid="plan-pin"
            onClick={() => performPlanner(openPlanPointAction, { point, pin: true })}
          >
            Pin to compare
          </button>
        </div>
      )}
      <table className="planner-table" data-testid="plan-front">
        <thead>
          <tr>
            <th>layout</th>
            <th>step</th>
            <th>peak memory</th>
            {tokens && <th>tokens/s/GPU</th>}
          </tr>
        </thead>
        <tbody>
          {result.front.map((p, i) => (
            <tr
              // biome-ignore lint/suspicious/noArrayIndexKey: the front is fixed once the search stopped
              key={i}
              data-testid="plan-front-row"
              className={[i === selected ? 'selected' : '', p.fits ? '' : 'over'].join(' ')}
              onClick={() => setSelected(i)}
              onMouseEnter={() => hover(i)}
              onMouseLeave={() => hover(null)}
            >
              <td>
                {i === result.best ? '★ ' : ''}
                {layoutLabel(p.layout)}
              </td>
              <td>{formatMs(p.stepMs)}</td>
              <td>{formatBytes(p.peakMemoryBytes)}</td>
              {tokens && (
                <td>{p.tokensPerSecPerGpu !== undefined ? formatTokens(p.tokensPerSecPerGpu) : '—'}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SweepSection() {
  const axis = usePlanner((s) => s.sweepAxis);
  const values = usePlanner((s) => s.sweepValues);
  const setAxis = usePlanner((s) => s.setSweepAxis);
  const setValues = usePlanner((s) => s.setSweepValues);
  const sweep = usePlanner((s) => s.sweep);
  const sweeping = usePlanner((s) => s.sweeping);
  return (
    <section className="panel planner-sweep">
      <h2>Sweep</h2>
      <p className="hint">The current design recompiled at each value, everything else as it is.</p>
      <form
        className="planner-form"
        onSubmit={(e) => {
          e.preventDefault();
          performPlanner(sweepAction, { axis, values });
        }}
      >
        <label>
          against
          <select
            data-testid="sweep-axis"
            value={axis}
            onChange={(e) => setAxis(e.target.value === 'stages' ? 'stages' : 'microbatches')}
          >
            <option value="microbatches">microbatches m</option>
            <option value="stages">pipeline stages p</option>
          </select>
        </label>
        <label>
          values
          <input data-testid="sweep-values" value={values} onChange={(e) => setValues(e.target.value)} />
        </label>
        <button type="submit" data-testid="sweep-run" disabled={sweeping}>
          {sweeping ? 'Sweeping…' : 'Sweep'}
        </button>
      </form>
      {sweep && (
        <>
          <p className="hint">{sweep.designName}</p>
          <SweepPlot axis={sweep.axis} points={sweep.points} />
        </>
      )}
    </section>
  );
}
