/** What the colours and marks of the timeline mean, for a panel header. */
import {
  BUBBLE_FILL,
  BUBBLE_HATCH,
  CAPACITY_LINE,
  MEMORY_FILL,
  MEMORY_LINE,
  OVERLAP_OUTLINE,
  opColor,
} from './colors.ts';

const SWATCH: React.CSSProperties = {
  display: 'inline-block',
  width: 14,
  height: 10,
  marginRight: 4,
  verticalAlign: -1,
};

const PASSES: [string, string][] = [
  ['F', 'forward'],
  ['B', 'backward'],
  ['BI', 'backward (inputs)'],
  ['BW', 'backward (weights)'],
  ['SEND', 'send / recv'],
  ['ALL_REDUCE', 'collective'],
];

export function GanttLegend() {
  return (
    <div
      data-testid="gantt-legend"
      style={{
        display: 'flex',
        flexWrap: 'wrap',
        gap: '4px 14px',
        font: '11px system-ui, sans-serif',
        color: '#495057',
        margin: '4px 0',
      }}
    >
      {PASSES.map(([op, name]) => (
        <span key={op}>
          <span style={{ ...SWATCH, background: opColor(op) }} />
          {name}
        </span>
      ))}
      <span>
        <span
          style={{
            ...SWATCH,
            background: `linear-gradient(${opColor('F')} 50%, ${opColor('B')} 50%)`,
            outline: `1.5px solid ${OVERLAP_OUTLINE}`,
          }}
        />
        overlapped F&amp;B
      </span>
      <span>
        <span style={{ ...SWATCH, background: opColor('F', 1) }} />
        darker: a device's later chunk
      </span>
      <span>
        <span
          style={{
            ...SWATCH,
            background: `repeating-linear-gradient(135deg, ${BUBBLE_HATCH} 0 1px, ${BUBBLE_FILL} 1px 4px)`,
          }}
        />
        bubble (idle compute)
      </span>
      <span>
        <span style={{ ...SWATCH, background: MEMORY_FILL, borderTop: `1px solid ${MEMORY_LINE}` }} />
        memory
      </span>
      <span>
        <span style={{ ...SWATCH, height: 0, borderTop: `1px dashed ${CAPACITY_LINE}`, verticalAlign: 3 }} />
        capacity
      </span>
      <span style={{ color: '#868e96' }}>
        ctrl+wheel or W/S: zoom · drag, shift+wheel or A/D: pan · wheel: devices · drag an op onto another:
        reorder
      </span>
    </div>
  );
}
