/**
 * Pass colours, following the conventions of the published schedule figures (Zero Bubble,
 * DualPipe): forward blue, fused backward green, backward-for-inputs light green, backward-for-
 * weights purple; communication grey to orange, so compute stands out and transfers recede.
 */
export const OP_COLORS: Record<string, string> = {
  F: '#3b7dd8',
  B: '#2f9e44',
  BI: '#8fd19e',
  BW: '#8e5cc4',
  RECOMPUTE: '#9ec5f4',
  UPD: '#495057',
  SEND: '#adb5bd',
  RECV: '#ced4da',
  ALL_REDUCE: '#f08c00',
  REDUCE_SCATTER: '#f59f00',
  ALL_GATHER: '#fab005',
  ALL_TO_ALL: '#e8590c',
  OFFLOAD: '#868e96',
  RELOAD: '#868e96',
};

/** Text drawn on a pass colour: dark on the light fills, white on the rest. */
const DARK_TEXT = new Set(['BI', 'RECOMPUTE', 'SEND', 'RECV', 'ALL_GATHER', 'REDUCE_SCATTER']);

/**
 * Colour of an op; `chunk` is which of its device's stages the op belongs to (interleaved, V and
 * DualPipe placements hold two or more): later chunks are drawn darker, as in the published figures.
 */
export function opColor(op: string, chunk = 0): string {
  const base = OP_COLORS[op] ?? '#adb5bd';
  return chunk > 0 && op in CHUNKED ? darker(base, Math.min(0.45, 0.3 * chunk)) : base;
}

const CHUNKED: Record<string, true> = { F: true, B: true, BI: true, BW: true, RECOMPUTE: true };

const shades = new Map<string, string>();
function darker(hex: string, by: number): string {
  const key = `${hex}/${by}`;
  const hit = shades.get(key);
  if (hit) return hit;
  const n = Number.parseInt(hex.slice(1), 16);
  const ch = (shift: number) => Math.round(((n >> shift) & 255) * (1 - by));
  const out = `#${[16, 8, 0].map((s) => ch(s).toString(16).padStart(2, '0')).join('')}`;
  shades.set(key, out);
  return out;
}

export function labelColor(op: string): string {
  return DARK_TEXT.has(op) ? '#212529' : '#ffffff';
}

export const OVERLAP_OUTLINE = '#212529';
export const SELECTION_OUTLINE = '#e03131';
export const DROP_OUTLINE = '#f08c00';
/** Around every op of the hovered op's microbatch, on every device. */
export const MICROBATCH_OUTLINE = '#212529';
export const BUBBLE_FILL = 'rgba(250, 82, 82, 0.10)';
export const BUBBLE_HATCH = 'rgba(224, 49, 49, 0.35)';
export const MEMORY_FILL = 'rgba(59, 125, 216, 0.18)';
export const MEMORY_LINE = '#3b7dd8';
export const CAPACITY_LINE = '#e03131';
export const ARROW = 'rgba(73, 80, 87, 0.7)';
/** Behind the memory strip of a device over its capacity. */
export const OOM_FILL = 'rgba(224, 49, 49, 0.12)';
/** The flows of the selected op: drawn over every other arrow, in the selection's colour. */
export const FLOW = '#e03131';
export const STEP_END = '#495057';
/** The gutter's and the axis's background. */
export const GUTTER_FILL = '#f8f9fa';
export const TEXT = '#212529';
/** A gutter's second line and the axis's labels. */
export const TEXT_SECONDARY = '#495057';
/** The axis line and ticks, and the memory strip's base label. */
export const TEXT_MUTED = '#868e96';
