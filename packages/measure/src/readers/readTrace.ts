/**
 * One measured trace file, whichever tool wrote it, into per-device instruction spans:
 * - Stagecraft's own Chrome trace (the runtime's measured step, or a predicted export): one
 *   process per device, the instruction id in `args.id`, a RECV drawn from its post (`postedUs`);
 * - Kineto's JSON from torch ≥ 2's profiler: `traceEvents`, the rank in `distributedInfo.rank`,
 *   the instruction id as the name of a `record_function` range (GPU-side ranges preferred);
 * - torch 1.13's legacy export: a bare list of events (`pid: "CPU functions"`) with no rank, which
 *   the file's name must give (`rank3.json`).
 */
import { formatPath, type Issue, issue } from '@stagecraft/ir';
import { type MeasuredDevice, type MeasuredStep, numberSteps } from '../measuredStep.ts';
import { rankFromFileName } from './instructionName.ts';
import { instructionSpans, type RawSpan } from './traceEvents.ts';

export interface ReadTraceOptions {
  /** The rank of a per-rank trace that records none (overrides the file name). */
  rank?: number;
}

export type TraceRead = { ok: true; step: MeasuredStep } | { ok: false; errors: Issue[] };

const STAGECRAFT_FORMATS = new Set(['stagecraft chrome-trace', 'stagecraft measured-trace']);

export function readTrace(text: string, fileName: string, options: ReadTraceOptions = {}): TraceRead {
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    return fail('', `not JSON: ${(e as Error).message}`);
  }
  return traceFromDocument(doc, fileName, options);
}

/** A trace already parsed from JSON. */
export function traceFromDocument(doc: unknown, fileName: string, options: ReadTraceOptions = {}): TraceRead {
  if (Array.isArray(doc)) return legacy(doc, fileName, options);
  if (typeof doc !== 'object' || doc === null)
    return fail('', 'expected a trace: an object with "traceEvents" or a list of events');
  const d = doc as Record<string, unknown>;
  if (!Array.isArray(d.traceEvents))
    return fail('traceEvents', 'expected the list of trace events (Chrome trace format)');
  const other = d.otherData as Record<string, unknown> | undefined;
  if (typeof other?.format === 'string' && STAGECRAFT_FORMATS.has(other.format))
    return stagecraft(d.traceEvents, other.planFingerprint);
  return kineto(d, fileName, options);
}

function fail(path: string, message: string): TraceRead {
  return { ok: false, errors: [issue(path, message)] };
}

function stagecraft(events: unknown[], fingerprint: unknown): TraceRead {
  if (fingerprint !== undefined && typeof fingerprint !== 'string')
    return fail(
      'otherData.planFingerprint',
      'expected the fingerprint of the plan the trace measured (a string)',
    );
  const { spans, errors } = instructionSpans(
    events,
    ['traceEvents'],
    (e) => (e.args as { id?: unknown })?.id,
  );
  events.forEach((raw, i) => {
    const e = raw as { ph?: unknown; pid?: unknown; args?: { id?: unknown } };
    if (
      e?.ph === 'X' &&
      typeof e.args?.id === 'string' &&
      !(Number.isInteger(e.pid) && (e.pid as number) >= 0)
    )
      errors.add(formatPath(['traceEvents', i, 'pid']), `expected the device number (event "${e.args.id}")`);
  });
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
  const byDevice = new Map<number, RawSpan[]>();
  for (const s of spans) {
    const list = byDevice.get(s.pid as number) ?? [];
    list.push(s);
    byDevice.set(s.pid as number, list);
  }
  const devices: MeasuredDevice[] = [...byDevice]
    .sort((a, b) => a[0] - b[0])
    .map(([device, list]) => ({
      device,
      spans: numberSteps(
        list.map((s) => {
          // A RECV is drawn while its data is on the wire; it was posted at `postedUs`.
          const posted = typeof s.args?.postedUs === 'number' ? s.args.postedUs : s.startUs;
          return { id: s.id, startMs: posted / 1e3, endMs: (s.startUs + s.durUs) / 1e3 };
        }),
      ),
    }));
  return {
    ok: true,
    step: {
      sources: ['stagecraft'],
      alignedClocks: true,
      devices,
      ...(fingerprint === undefined ? {} : { planFingerprint: fingerprint }),
    },
  };
}

function kineto(d: Record<string, unknown>, fileName: string, options: ReadTraceOptions): TraceRead {
  const info = d.distributedInfo;
  let rank = options.rank;
  if (rank === undefined && info !== undefined) {
    if (typeof info !== 'object' || info === null)
      return fail('distributedInfo', 'expected an object with the rank, e.g. {"rank": 3}');
    const given = (info as { rank?: unknown }).rank;
    if (!Number.isInteger(given) || (given as number) < 0)
      return fail('distributedInfo.rank', 'expected the rank, an integer ≥ 0');
    rank = given as number;
  }
  rank ??= rankFromFileName(fileName);
  if (rank === undefined)
    return fail(
      'distributedInfo',
      'the trace does not say its rank: profile under torch.distributed (Kineto then records distributedInfo), name the file by it (rank3.json) or give --rank',
    );
  const { spans, errors } = instructionSpans(d.traceEvents as unknown[], ['traceEvents']);
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
  // A record_function range appears on the CPU (`user_annotation`) and, on a GPU, again where its
  // kernels ran (`gpu_user_annotation`): the GPU range is the op's time.
  const gpu = new Set(spans.filter((s) => s.cat === 'gpu_user_annotation').map((s) => s.id));
  const kept = spans.filter((s) => s.cat === 'gpu_user_annotation' || !gpu.has(s.id));
  return {
    ok: true,
    step: {
      sources: ['kineto'],
      alignedClocks: true,
      devices: [{ device: rank, spans: numberSteps(kept.map(toMs)) }],
    },
  };
}

function legacy(events: unknown[], fileName: string, options: ReadTraceOptions): TraceRead {
  const rank = options.rank ?? rankFromFileName(fileName);
  if (rank === undefined)
    return fail(
      '',
      "torch 1.13's profiler trace does not record its rank: name the file by it (rank3.json, trace_rank3.json) or give --rank",
    );
  const { spans, errors } = instructionSpans(events, []);
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
  return {
    ok: true,
    step: {
      sources: ['legacy-profiler'],
      alignedClocks: false,
      devices: [{ device: rank, spans: numberSteps(spans.map(toMs)) }],
    },
  };
}

function toMs(s: RawSpan): { id: string; startMs: number; endMs: number } {
  return { id: s.id, startMs: s.startUs / 1e3, endMs: (s.startUs + s.durUs) / 1e3 };
}
