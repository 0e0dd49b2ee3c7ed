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

const GIB = 2 ** 30;

/**
 * Each chart's value, its tick labels and a point's own label. Memory is plotted in GiB, so its
 * ticks fall on round GiB rather than on round bytes (1.9, 3.7, 5.6 GiB).
 */
const SERIES = [
  { key: 'stepMs', title: 'step time', scale: 1, tick: formatMs, format: formatMs },
  { key: 'bubbleRatio', title: 'bubble', scale: 1, tick: formatPercent, format: formatPercent },
  {
    key: 'peakMemoryBytes',
    title: 'peak memory (GiB)',
    scale: 1 / GIB,
    tick: (v: number) => String(Number(v.toPrecision(3))),
    format: formatBytes,
  },
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
          const y = (p: SweepPoint) => (p[s.key] ?? 0) * s.scale;
          const ys = ok.map(y);
          const frame = chartFrame(xs, ys, WIDTH, HEIGHT, { yFromZero: true });
          const line = ok
            .map((p, k) => `${k === 0 ? 'M' : 'L'}${frame.x(p.value)},${frame.y(y(p))}`)
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
                formatY={s.tick}
              />
              <path d={line} className="sweep-line" />
              {ok.map((p) => (
                <circle
                  key={p.value}
                  cx={frame.x(p.value)}
                  cy={frame.y(y(p))}
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
