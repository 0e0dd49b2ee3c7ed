/** The axes of a planner chart (chartScales.ts): ticks, grid lines and the two titles. */
import type { ChartFrame } from './chartScales.ts';
import { MARGIN } from './chartScales.ts';

export function ChartAxes({
  frame,
  xTitle,
  yTitle,
  formatX,
  formatY,
}: {
  frame: ChartFrame;
  xTitle: string;
  yTitle: string;
  formatX(v: number): string;
  formatY(v: number): string;
}) {
  const { width, height, x, y, xTicks, yTicks } = frame;
  const bottom = height - MARGIN.bottom;
  return (
    <g className="chart-axes">
      {yTicks.map((t) => (
        <g key={`y${t}`}>
          <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(t)} y2={y(t)} className="chart-grid" />
          <text x={MARGIN.left - 6} y={y(t)} dy="0.32em" textAnchor="end">
            {formatY(t)}
          </text>
        </g>
      ))}
      {xTicks.map((t) => (
        <text key={`x${t}`} x={x(t)} y={bottom + 14} textAnchor="middle">
          {formatX(t)}
        </text>
      ))}
      <line x1={MARGIN.left} x2={width - MARGIN.right} y1={bottom} y2={bottom} className="chart-axis" />
      <text
        x={(MARGIN.left + width - MARGIN.right) / 2}
        y={height - 6}
        textAnchor="middle"
        className="chart-title"
      >
        {xTitle}
      </text>
      <text
        transform={`translate(12 ${(MARGIN.top + bottom) / 2}) rotate(-90)`}
        textAnchor="middle"
        className="chart-title"
      >
        {yTitle}
      </text>
    </g>
  );
}
