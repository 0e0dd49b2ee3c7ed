/**
 * Colours of ops by pass, after the conventions of the published schedule figures (Zero Bubble,
 * DualPipe): forward blue, backward green (input gradient a lighter green), weight gradient
 * purple, communication grey, collectives orange.
 */
export const PASS_COLORS: Record<string, string> = {
  F: '#4a7fd6',
  B: '#2f9e6b',
  BI: '#5cc08e',
  BW: '#8e6bd1',
  RECOMPUTE: '#8fb4ec',
  UPD: '#d9a23b',
  P2P: '#9aa3ad',
  SEND: '#9aa3ad',
  RECV: '#b7bec6',
  COLLECTIVE: '#e8873a',
  ALL_REDUCE: '#e8873a',
  REDUCE_SCATTER: '#ec9a52',
  ALL_GATHER: '#f0ad6b',
  ALL_TO_ALL: '#d96f2b',
  MEMORY: '#a38470',
  OFFLOAD: '#a38470',
  RELOAD: '#b99a86',
  CONTROL: '#c8ccd2',
};

export function passColor(key: string): string {
  return PASS_COLORS[key] ?? '#c8ccd2';
}
