/**
 * The complete (`X`) events of a Chrome-format trace that are plan instructions, checked field by
 * field so a bad event is reported by its index (`traceEvents[12].dur: expected a number`) rather
 * than silently skewing a fit. Events that are not instructions are skipped unchecked beyond their
 * name: a profiler writes many shapes of them.
 */
import { formatPath, IssueList, type PathSegment } from '@stagecraft/ir';
import { looksLikeInstructionId } from './instructionName.ts';

export interface RawSpan {
  /** Instruction id. */
  id: string;
  /** Process id as written (a device number, a rank, or a name such as "CPU functions"). */
  pid: unknown;
  startUs: number;
  durUs: number;
  /** The event's category, when given (Kineto: `user_annotation`, `gpu_user_annotation`). */
  cat: string | undefined;
  args: Record<string, unknown> | undefined;
}

/**
 * Larger durations are the trace's error, not a measurement: no op of a training step runs for a
 * day (86,400 s in µs), and a fit of 1e308 µs blamed the plan's dispatch time for it.
 */
const MAX_DURATION_US = 86_400e6;
/**
 * Chrome traces count µs from an origin, Kineto from the epoch (about 1.8e15 µs in 2026); past
 * 2^53 µs a time no longer holds whole microseconds.
 */
const MAX_TIMESTAMP_US = Number.MAX_SAFE_INTEGER;

/**
 * Instruction spans of `events`, or the issues of the ones that are malformed: the first hundred
 * and a count, since a bad writer gets every event wrong.
 */
export function instructionSpans(
  events: unknown[],
  at: readonly PathSegment[],
  idOf: (e: Record<string, unknown>) => unknown = (e) => e.name,
): { spans: RawSpan[]; errors: IssueList } {
  const spans: RawSpan[] = [];
  const errors = new IssueList();
  const issue = (where: PathSegment[], message: string) => errors.add(formatPath(where), message);
  events.forEach((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      issue([...at, i], 'expected an event object');
      return;
    }
    const e = raw as Record<string, unknown>;
    if (e.ph !== 'X') return;
    const id = idOf(e);
    if (typeof id !== 'string' || !looksLikeInstructionId(id)) return;
    const where = [...at, i];
    const ts = e.ts;
    const dur = e.dur;
    if (typeof ts !== 'number' || !Number.isFinite(ts)) {
      issue([...where, 'ts'], `expected a number (event "${id}")`);
      return;
    }
    if (Math.abs(ts) > MAX_TIMESTAMP_US) {
      issue(
        [...where, 'ts'],
        `${ts} µs is past 2^53 µs, where a trace's times lose their microseconds (event "${id}")`,
      );
      return;
    }
    if (typeof dur !== 'number' || !Number.isFinite(dur) || dur < 0) {
      issue([...where, 'dur'], `expected a duration ≥ 0 in microseconds (event "${id}")`);
      return;
    }
    if (dur > MAX_DURATION_US) {
      issue(
        [...where, 'dur'],
        `${dur} µs is over a day: the trace's duration is wrong, no op runs that long (event "${id}")`,
      );
      return;
    }
    const args =
      typeof e.args === 'object' && e.args !== null ? (e.args as Record<string, unknown>) : undefined;
    spans.push({
      id,
      pid: e.pid,
      startUs: ts,
      durUs: dur,
      cat: typeof e.cat === 'string' ? e.cat : undefined,
      args,
    });
  });
  return { spans, errors };
}
