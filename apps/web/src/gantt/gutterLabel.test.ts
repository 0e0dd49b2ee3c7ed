import { describe, expect, it } from 'vitest';
import { compactLabel, fitText, textWidth } from './gutterText.ts';
import { type DeviceBand, GUTTER, type Lane } from './layout.ts';
import { gutterLines, gutterMark, gutterTitle, thinBand } from './scene.ts';

const band = (label: string, firstLane: number, memory: Partial<DeviceBand> = {}): DeviceBand =>
  ({
    label,
    top: 22,
    lanes: [{ height: firstLane, stream: 'compute' } as Lane],
    memoryTop: 60,
    memoryHeight: 34,
    memoryBaseBytes: 0,
    peakBytes: 0,
    oom: false,
    capacityBytes: undefined,
    ...memory,
  }) as DeviceBand;

/** Pixels a gutter line may take: it starts 4 px in and is clipped 3 px short of the plot. */
const ROOM = GUTTER - 3 - 4;
const fits = (text: string, size: number, bold: boolean) => textWidth(text, { size, bold }) <= ROOM;

describe('device labels in the timeline gutter', () => {
  it('put the device and its stages on two lines when the band has room, so "dev 1152 · PP 6,9" fits', () => {
    expect(gutterLines(band('dev 1152 · PP 6,9', 26))).toEqual(['dev 1152', 'PP 6,9']);
    expect(thinBand(band('dev 1152 · PP 6,9', 26))).toBe(false);
  });

  it('give a mesh device its stages beside it and its coordinates in full on the second line', () => {
    const lines = gutterLines(band('dev 0 · PP 0,16 · dp 0–63 · tp 0–7', 26));
    expect(lines).toEqual(['dev 0 · PP 0,16', 'dp 0–63 · tp 0–7']);
    expect(fits(lines[0]!, 11, true)).toBe(true);
    expect(fits(lines[1]!, 10, false)).toBe(true);
  });

  it('write coordinates too long for the gutter tight, then cut them with an ellipsis, never past the edge', () => {
    const long = 'dev 1152 · PP 6,9 · dp 0–127 · ep 0–63 · tp 0–7 · cp 0–3';
    const [first, second] = gutterLines(band(long, 26));
    expect(first).toBe('dev 1152');
    expect(second).toMatch(/^PP6,9 dp0–127 ep/);
    expect(second!.endsWith('…')).toBe(true);
    expect(fits(second!, 10, false)).toBe(true);
    // The whole label stays on hover.
    expect(gutterTitle(band(long, 26))).toContain(long);
  });

  it('keep one line, in the smaller font, in a compact band', () => {
    expect(gutterLines(band('dev 3 · PP 3,4', 12))).toEqual(['dev 3 · PP 3,4']);
    expect(thinBand(band('dev 3 · PP 3,4', 12))).toBe(true);
  });

  it('leave a device without stages as it is', () => {
    expect(gutterLines(band('dev 7', 26))).toEqual(['dev 7']);
  });

  it('say an OOM peak in full ("OOM 101.8 GiB"), with the capacity on hover', () => {
    const b = band('dev 8 · PP 1,17', 26, {
      oom: true,
      peakBytes: 101.8 * 2 ** 30,
      capacityBytes: 80 * 2 ** 30,
      memoryBaseBytes: 12.4 * 2 ** 30,
    });
    const m = gutterMark(b);
    expect(m.memory.peak?.text).toBe('OOM 101.8 GiB');
    expect(textWidth('OOM 101.8 GiB', { size: 10, bold: true })).toBeLessThanOrEqual(GUTTER - 3 - 10);
    expect(gutterTitle(b)).toBe('dev 8 · PP 1,17\nOOM 101.8 GiB of 80.0 GiB (from 12.4 GiB)');
  });
});

describe('fitting gutter text', () => {
  it('writes mesh coordinates tight: the separators and the space after each axis name go', () => {
    expect(compactLabel('PP 0,16 · dp 0–63 · tp 0–7')).toBe('PP0,16 dp0–63 tp0–7');
  });

  it('returns a text that fits as it is, and cuts one that does not fit even tight', () => {
    expect(fitText('dev 0', 100, { size: 11, bold: true })).toBe('dev 0');
    const cut = fitText('dp 0–63 · tp 0–7 · ep 0–15', 40, { size: 10, bold: false });
    expect(cut.endsWith('…')).toBe(true);
    expect(textWidth(cut, { size: 10, bold: false })).toBeLessThanOrEqual(40);
  });
});
