/**
 * Text rendering of a simulated timeline, one row per device, like the published schedule figures.
 *
 * When every compute op starts and ends on a multiple of the shortest compute op and the step fits
 * in `width` cells, each cell is one such time unit and shows the op occupying it, labelled by its
 * microbatch: `3` forward, `[3]` fused backward, `(3)` backward for inputs, `<3>` backward for
 * weights, `{3}` recompute, `U` optimizer step, `3&[5]` an overlapped unit, `.` idle. On a device
 * holding several stages a letter names which one (`3a` is the device's first stage, `3b` its
 * second). Otherwise a scaled summary of `width` cells shows one letter per op kind.
 */
import type { Plan } from '@stagecraft/ir';
import type { Simulation, TimelineEvent } from './types.ts';

const COMPUTE = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP']);
const LETTER: Record<string, string> = {
  F: 'F',
  B: 'B',
  BI: 'I',
  BW: 'W',
  RECOMPUTE: 'R',
  UPD: 'U',
  OVERLAP: '&',
};
const EXACT_LEGEND =
  'legend: n forward of microbatch n, [n] backward (fused), (n) backward for inputs, <n> backward for weights,\n' +
  '        {n} recompute, U optimizer step, x&y overlapped unit, . idle';
const STAGE_LEGEND = "        na, nb, ...: microbatch n of the device's first, second, ... stage";
const SCALED_LEGEND =
  'legend: F forward, B backward (fused), I backward for inputs, W backward for weights, R recompute, ' +
  'U optimizer step, & overlapped unit, . idle (each cell shows the op at its midpoint)';

export interface AsciiOptions {
  /** Most time cells per row (default 64). */
  width?: number;
}

export function renderAsciiTimeline(sim: Simulation, plan: Plan, options: AsciiOptions = {}): string {
  const width = Math.max(1, Math.floor(options.width ?? 64));
  if (!sim.timeline) return 'no timeline: simulate with keepTimeline';
  const span = sim.makespanMs;
  const rows = new Map<number, TimelineEvent[]>();
  for (const d of sim.devices) rows.set(d.device, []);
  let unit = Number.POSITIVE_INFINITY;
  for (const e of sim.timeline) {
    if (!COMPUTE.has(e.op)) continue;
    rows.get(e.device)?.push(e);
    const dt = e.endMs - e.startMs;
    if (dt > 0 && dt < unit) unit = dt;
  }
  for (const list of rows.values()) list.sort((a, b) => a.startMs - b.startMs);
  const label = (d: number) => `dev ${d}`;
  const labelWidth = Math.max(...[...rows.keys()].map((d) => label(d).length), 0);
  const summary = `makespan ${fmt(span)} ms, bubble ${pct(sim.bubbleRatio)} of total (${pct(sim.bubbleOverIdeal)} of ideal)`;
  if (span <= 0 || unit === Number.POSITIVE_INFINITY) return `${summary}\n(no compute to draw)`;

  const cells = Math.round(span / unit);
  const onGrid = (t: number) => Math.abs(t / unit - Math.round(t / unit)) < 1e-6;
  const exact =
    cells <= width &&
    onGrid(span) &&
    [...rows.values()].every((l) => l.every((e) => onGrid(e.startMs) && onGrid(e.endMs)));

  const lines: string[] = [];
  if (exact) {
    const stagesOf = new Map(plan.devices.map((d) => [d.device, d.stages]));
    let lettered = false;
    const text = (e: TimelineEvent, op: string, tags: Record<string, number | string>) => {
      const stages = stagesOf.get(e.device) ?? [];
      const pp = tags.PP;
      const chunk =
        stages.length > 1 && typeof pp === 'number' && stages.includes(pp) ? letter(stages.indexOf(pp)) : '';
      if (chunk !== '') lettered = true;
      const n = `${tags.MB ?? '?'}${chunk}`;
      return decorate(op, n);
    };
    const memberTags = memberTagIndex(plan);
    const texts = new Map<TimelineEvent, string>();
    let cw = 1;
    for (const list of rows.values())
      for (const e of list) {
        const t =
          e.op === 'OVERLAP'
            ? (e.members ?? [])
                .map((m) => {
                  const mt = memberTags.get(`${e.device}\u0000${m}`);
                  return mt ? text(e, mt.op, mt.tags) : '?';
                })
                .join('&')
            : text(e, e.op, e.tags);
        texts.set(e, t);
        cw = Math.max(cw, t.length);
      }
    lines.push(`1 cell = ${fmt(unit)} ms; ${summary}`);
    for (const [d, list] of rows) {
      const row: string[] = new Array(cells).fill(pad('.', cw));
      for (const e of list) {
        const t = pad(texts.get(e)!, cw);
        for (let c = Math.round(e.startMs / unit); c < Math.round(e.endMs / unit); c++)
          if (c < cells) row[c] = t;
      }
      lines.push(`${label(d).padEnd(labelWidth)} | ${row.join(' ')}`);
    }
    lines.push(EXACT_LEGEND);
    if (lettered) lines.push(STAGE_LEGEND);
  } else {
    const dt = span / width;
    lines.push(`1 cell = ${fmt(dt)} ms (scaled); ${summary}`);
    const busyOf = new Map(sim.devices.map((d) => [d.device, d.busyMs]));
    for (const [d, list] of rows) {
      let row = '';
      let i = 0;
      for (let c = 0; c < width; c++) {
        const mid = (c + 0.5) * dt;
        while (i < list.length && list[i]!.endMs <= mid) i++;
        let ch = '.';
        for (let j = i; j < list.length && list[j]!.startMs <= mid; j++)
          if (list[j]!.endMs > mid) {
            ch = LETTER[list[j]!.op] ?? '?';
            break;
          }
        row += ch;
      }
      lines.push(`${label(d).padEnd(labelWidth)} | ${row} | busy ${pct((busyOf.get(d) ?? 0) / span)}`);
    }
    lines.push(SCALED_LEGEND);
  }
  return lines.join('\n');
}

function decorate(op: string, n: string): string {
  switch (op) {
    case 'F':
      return n;
    case 'B':
      return `[${n}]`;
    case 'BI':
      return `(${n})`;
    case 'BW':
      return `<${n}>`;
    case 'RECOMPUTE':
      return `{${n}}`;
    case 'UPD':
      return 'U';
    default:
      return '?';
  }
}

function memberTagIndex(plan: Plan): Map<string, { op: string; tags: Record<string, number | string> }> {
  const out = new Map<string, { op: string; tags: Record<string, number | string> }>();
  for (const d of plan.devices)
    for (const s of d.streams)
      for (const i of s.instructions)
        if (i.op === 'OVERLAP')
          for (const m of i.members) out.set(`${d.device}\u0000${m.id}`, { op: m.op, tags: m.tags });
  return out;
}

function letter(i: number): string {
  return i < 26 ? String.fromCharCode(97 + i) : `#${i}`;
}

function pad(t: string, w: number): string {
  const left = Math.floor((w - t.length) / 2);
  return ' '.repeat(left) + t + ' '.repeat(w - t.length - left);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toPrecision(4);
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
