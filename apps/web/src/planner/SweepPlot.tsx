/**
 * The sweep view's chart: step time, bubble and peak memory of the current design against m or p,
 * each its own small chart on a shared x axis (three units, three y axes), values that did not
 * compile listed beneath with their reason.
 */
import type { SweepAxis } from '../core/action.ts';
import { formatBytes, formatMs, formatPercent } from '../core/format.ts';
import type { SweepPoint } from '../store/planner.ts';
import { ChartAxes } from './ChartAxes.tsx';
import { chartFrame } from './chartScales.ts';

const WIDTH = 360;
const HEIGHT = 180;

const SERIES = [
  { key: 'stepMs', title: 'step time', format: formatMs },
  { key: 'bubbleRatio', title: 'bubble', format: formatPercent },
  { key: 'peakMemoryBytes', title: 'peak memory', format: formatBytes },
] as const;

export function SweepPlot({ axis, points }: { axis: SweepAxis; points: readonly SweepPoint[] }) {
  const ok = points.filter((p) => p.error === undefined);
  const failed = points.filter((p) => p.error !== undefined);
  const xTitle = axis === 'microbatches' ? 'microbatches m' : 'pipeline stages p';
  return (
    <div className="sweep-plot" data-testid="sweep-plot">
      <div className="sweep-charts">
        {SERIES.map((s) => {
          const xs = ok.map((p) => p.value);
          const ys = ok.map((p) => p[s.key] ?? 0);
          const frame = chartFrame(xs, ys, WIDTH, HEIGHT, { yFromZero: true });
          const line = ok
            .map((p, k) => `${k === 0 ? 'M' : 'L'}${frame.x(p.value)},${frame.y(p[s.key] ?? 0)}`)
            .join('');
          return (
            <svg
              key={s.key}
              width={WIDTH}
              height={HEIGHT}
              data-testid={`sweep-${s.key}`}
              aria-label={`${s.title} against ${xTitle}`}
            >
              <ChartAxes
                frame={frame}
                xTitle={xTitle}
                yTitle={s.title}
                formatX={(v) => String(v)}
                formatY={(v) => s.format(v)}
              />
              <path d={line} className="sweep-line" />
              {ok.map((p) => (
                <circle
                  key={p.value}
                  cx={frame.x(p.value)}
                  cy={frame.y(p[s.key] ?? 0)}
                  r={3.5}
                  className="sweep-point"
                >
                  <title>{`${axis === 'microbatches' ? 'm' : 'p'}=${p.value}: ${s.format(p[s.key] ?? 0)}`}</title>
                </circle>
              ))}
            </svg>
          );
        })}
      </div>
      {failed.length > 0 && (
        <ul className="sweep-failed">
          {failed.map((p) => (
            <li key={p.value}>
              {axis === 'microbatches' ? 'm' : 'p'}={p.value}: {p.error}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
