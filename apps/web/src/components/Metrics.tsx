/** The step's figures from the last valid result; marked stale while the design has errors. */
import { exposedCommPerDeviceMs } from '@stagecraft/sim';
import { formatBytes, formatCount, formatMs, formatPercent, formatRate } from '../core/format.ts';
import { useStore } from '../store/index.ts';
import { MetricGlossary } from './MetricGlossary.tsx';

export function Metrics() {
  const result = useStore((s) => s.result);
  const status = useStore((s) => s.status);
  const latency = useStore((s) => s.lastLatencyMs);
  const errorCount = useStore((s) => s.errors.length);
  if (!result)
    return (
      <div className="metrics" data-status={status}>
        <div className="metric-status" data-testid="compute-status">
          {status === 'error'
            ? `${errorCount} error${errorCount === 1 ? '' : 's'}: nothing to show until the design compiles`
            : 'computing…'}
        </div>
      </div>
    );
  const sim = result.simulation;
  const peak = Math.max(0, ...sim.devices.map((d) => d.peakMemoryBytes));
  const exposed = exposedCommPerDeviceMs(sim);
  const oom = sim.devices.some((d) => d.oom);
  return (
    <div className={`metrics${status === 'error' ? ' stale' : ''}`} data-status={status}>
      <Metric
        label="step time"
        testid="metric-makespan"
        value={formatMs(sim.makespanMs)}
        raw={sim.makespanMs}
      />
      {result.steady && (
        <Metric
          label="steady step"
          testid="metric-steady-step"
          value={formatMs(result.steady.steadyStepMs)}
          raw={result.steady.steadyStepMs}
          title={`time per step over ${result.steady.steps} steps in a row, each device starting its next step once its own optimizer step allows (no gradient-norm sync); the step time counts the pipeline fill every step`}
        />
      )}
      <Metric
        label="bubble"
        testid="metric-bubble"
        value={formatPercent(sim.bubbleRatio)}
        raw={sim.bubbleRatio}
        title="Σ idle / (devices × step time)"
      />
      <Metric
        label="bubble / ideal"
        testid="metric-bubble-ideal"
        value={formatPercent(sim.bubbleOverIdeal)}
        raw={sim.bubbleOverIdeal}
        title="Σ idle / Σ busy (Megatron's convention)"
      />
      <Metric
        label="exposed comm / GPU"
        testid="metric-exposed-comm"
        value={formatMs(exposed)}
        raw={exposed}
        title="time a GPU's communication is in flight and none of its compute runs, averaged over the GPUs in use"
      />
      <Metric
        label={oom ? 'peak memory · OOM' : 'peak memory'}
        testid="metric-peak-memory"
        value={formatBytes(peak)}
        raw={peak}
        {...(oom
          ? { title: `${sim.devices.filter((d) => d.oom).length} devices over their GPU memory` }
          : {})}
      />
      {sim.mfu !== undefined && (
        <Metric label="MFU" testid="metric-mfu" value={formatPercent(sim.mfu)} raw={sim.mfu} />
      )}
      {sim.tokensPerSecond !== undefined && (
        <Metric
          label="tokens"
          testid="metric-tokens"
          value={formatRate(sim.tokensPerSecond)}
          raw={sim.tokensPerSecond}
        />
      )}
      <Metric label="ops" testid="metric-ops" value={formatCount(sim.ops)} raw={sim.ops} />
      <MetricGlossary />
      <div className="metric-status" data-testid="compute-status">
        {status === 'computing'
          ? 'computing…'
          : status === 'error'
            ? `${errorCount} error${errorCount === 1 ? '' : 's'}: showing the last valid result`
            : `recomputed in ${formatMs(latency)}`}
      </div>
    </div>
  );
}

function Metric({
  label,
  value,
  testid,
  raw,
  title,
}: {
  label: string;
  value: string;
  testid: string;
  raw: number;
  title?: string;
}) {
  return (
    <div className="metric" title={title}>
      <span className="metric-label">{label}</span>
      <span className="metric-value" data-testid={testid} data-value={raw}>
        {value}
      </span>
    </div>
  );
}
