/**
 * The complete (`X`) events of a Chrome-format trace that are plan instructions, checked field by
 * field so a bad event is reported by its index (`traceEvents[12].dur: expected a number`) rather
 * than silently skewing a fit. Events that are not instructions are skipped unchecked beyond their
 * name: a profiler writes many shapes of them.
 */
import { type Issue, issue, type PathSegment } from '@stagecraft/ir';
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

/** Instruction spans of `events`, or the issues of the ones that are malformed. */
export function instructionSpans(
  events: unknown[],
  at: readonly PathSegment[],
  idOf: (e: Record<string, unknown>) => unknown = (e) => e.name,
): { spans: RawSpan[]; errors: Issue[] } {
  const spans: RawSpan[] = [];
  const errors: Issue[] = [];
  events.forEach((raw, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      errors.push(issue([...at, i], 'expected an event object'));
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
      errors.push(issue([...where, 'ts'], `expected a number (event "${id}")`));
      return;
    }
    if (typeof dur !== 'number' || !Number.isFinite(dur) || dur < 0) {
      errors.push(issue([...where, 'dur'], `expected a duration ≥ 0 in microseconds (event "${id}")`));
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
