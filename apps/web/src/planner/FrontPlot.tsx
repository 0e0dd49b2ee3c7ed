/**
 * The planner's front, plotted with d3 scales: each layout of the front at its peak memory (x)
 * and its step time or tokens/s/GPU (y), joined in memory order; the fastest marked, the ones over
 * the memory limit hollow. Hovering a point shows its layout; a click (or Enter) selects it for
 * the card below, which opens it in the designer or pins it to compare.
 */
import { useMemo } from 'react';
import type { PlanPoint } from '../api/planJobsApi.ts';
import { formatBytes, formatMs } from '../core/format.ts';
import { type FrontMeasure, layoutLabel, measureOf, memoryGiB } from '../core/planFront.ts';
import { ChartAxes } from './ChartAxes.tsx';
import { chartFrame } from './chartScales.ts';

export const FRONT_WIDTH = 560;
export const FRONT_HEIGHT = 300;

export function formatTokens(v: number): string {
  return v >= 1000 ? `${(v / 1000).toFixed(1)}k` : v.toFixed(0);
}

export function FrontPlot({
  front,
  best,
  measure,
  hovered,
  selected,
  onHover,
  onSelect,
}: {
  front: readonly PlanPoint[];
  best: number | null;
  measure: FrontMeasure;
  hovered: number | null;
  selected: number | null;
  onHover(index: number | null): void;
  onSelect(index: number): void;
}) {
  const plotted = useMemo(
    () =>
      front
        .map((p, i) => ({ p, i, x: memoryGiB(p), y: measureOf(p, measure) }))
        .filter((d): d is { p: PlanPoint; i: number; x: number; y: number } => d.y !== null)
        .sort((a, b) => a.x - b.x),
    [front, measure],
  );
  const frame = useMemo(
    () =>
      chartFrame(
        plotted.map((d) => d.x),
        plotted.map((d) => d.y),
        FRONT_WIDTH,
        FRONT_HEIGHT,
      ),
    [plotted],
  );
  const line = plotted.map((d, k) => `${k === 0 ? 'M' : 'L'}${frame.x(d.x)},${frame.y(d.y)}`).join('');
  const tip = hovered !== null ? plotted.find((d) => d.i === hovered) : undefined;
  return (
    <div className="front-plot" data-testid="front-plot">
      <svg width={FRONT_WIDTH} height={FRONT_HEIGHT} aria-label="the front: layouts by peak memory">
        <ChartAxes
          frame={frame}
          xTitle="peak memory per device (GiB)"
          yTitle={measure === 'step' ? 'step time' : 'tokens/s per GPU'}
          formatX={(v) => `${Number(v.toPrecision(3))}`}
          formatY={measure === 'step' ? formatMs : formatTokens}
        />
        <path d={line} className="front-line" />
        {plotted.map((d) => (
          // biome-ignore lint/a11y/useSemanticElements: an SVG mark has no button element; it takes the role
          <circle
            key={d.i}
            role="button"
            tabIndex={0}
            aria-label={`${layoutLabel(d.p.layout)}: ${formatMs(d.p.stepMs)}, ${formatBytes(d.p.peakMemoryBytes)}`}
            data-testid="front-point"
            data-index={d.i}
            cx={frame.x(d.x)}
            cy={frame.y(d.y)}
            r={d.i === best ? 7 : 5}
            className={[
              'front-point',
              d.i === best ? 'best' : '',
              d.p.fits ? '' : 'over',
              d.i === selected ? 'selected' : '',
            ].join(' ')}
            onMouseEnter={() => onHover(d.i)}
            onMouseLeave={() => onHover(null)}
            onFocus={() => onHover(d.i)}
            onBlur={() => onHover(null)}
            onClick={() => onSelect(d.i)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') onSelect(d.i);
            }}
          />
        ))}
      </svg>
      {tip && (
        <div
          className="front-tip"
          data-testid="front-tip"
          // Above the point in the plot's lower half, so it never hides the memory axis.
          style={{
            left: Math.min(frame.x(tip.x) + 10, FRONT_WIDTH - 250),
            top: frame.y(tip.y) > FRONT_HEIGHT / 2 ? frame.y(tip.y) - 80 : frame.y(tip.y) + 10,
          }}
        >
          <b>{layoutLabel(tip.p.layout)}</b>
          <div>
            step {formatMs(tip.p.stepMs)} · peak {formatBytes(tip.p.peakMemoryBytes)}
            {tip.p.tokensPerSecPerGpu !== undefined
              ? ` · ${formatTokens(tip.p.tokensPerSecPerGpu)} tok/s/GPU`
              : ''}
            {tip.p.fits ? '' : ' · over the memory limit'}
          </div>
        </div>
      )}
    </div>
  );
}
