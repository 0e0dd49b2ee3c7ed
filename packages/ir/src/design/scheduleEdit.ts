/**
 * Edits a user made to a `schedule` by hand (format `stagecraft/design@2`): moves on the
 * timeline and overlap slots. They are kept on the schedule, in the order they were made, so the
 * program still says "1F1B with these changes" instead of thousands of order slots; the compiler
 * applies them when it expands the schedule, and "Expand" writes the result out.
 *
 * Each edit names ops by what they are in the schedule — PP region, microbatch MB, PASS and, in
 * DualPipe's two pipelines, direction DIR — never by slot number, so an edit reads the same
 * whatever the edits before it moved. It acts on the slot of the rank that runs the op, as the
 * rank runs it: a B that a `split_backward` splits is its BI in that slot and its BW in the
 * slot right after, so an edit may name either half.
 *
 * - `move`: the slot that runs `op` moves just `before` or `after` the slot that runs the other
 *   op (exactly one of the two), on the same rank.
 * - `overlap`: the slot that runs `op` and the rank's next slot become one slot: a forward and a
 *   backward overlapped, as DualPipe runs its F&B pairs.
 */
import * as z from 'zod';
import { PASS_NAMES } from './filter.ts';

const index = z.number().int().min(0);

/** One op of a schedule: the pass of one microbatch of one PP region. */
export const scheduleOpSchema = z.strictObject({
  PP: index,
  MB: index,
  PASS: z.enum(PASS_NAMES),
  /** DualPipe only: 0 for the down pipeline, 1 for the up one. */
  DIR: index.optional(),
});

export const moveEditSchema = z
  .strictObject({
    kind: z.literal('move'),
    op: scheduleOpSchema,
    before: scheduleOpSchema.optional(),
    after: scheduleOpSchema.optional(),
  })
  .superRefine((e, ctx) => {
    if ((e.before === undefined) === (e.after === undefined))
      ctx.addIssue({
        code: 'custom',
        path: e.before === undefined ? [] : ['after'],
        message: 'a move names where its op goes: exactly one of before and after',
      });
  });

export const overlapEditSchema = z.strictObject({ kind: z.literal('overlap'), op: scheduleOpSchema });

export const scheduleEditSchema = z.discriminatedUnion('kind', [moveEditSchema, overlapEditSchema]);

export type ScheduleOp = z.infer<typeof scheduleOpSchema>;
export type MoveEdit = z.infer<typeof moveEditSchema>;
export type OverlapEdit = z.infer<typeof overlapEditSchema>;
export type ScheduleEdit = z.infer<typeof scheduleEditSchema>;

/** An op as the program list writes it: PP, pass, microbatch ("2F3"), with the direction if any. */
export function scheduleOpText(op: ScheduleOp): string {
  return `${op.PP}${op.PASS}${op.MB}${op.DIR === undefined ? '' : ` DIR=${op.DIR}`}`;
}

/** What an edit does, after its kind: "2F3 before 2B1", "3F1 with the next slot". */
export function scheduleEditDetail(e: ScheduleEdit): string {
  if (e.kind === 'overlap') return `${scheduleOpText(e.op)} with the next slot`;
  const [where, target] = e.before ? ['before', e.before] : ['after', e.after!];
  return `${scheduleOpText(e.op)} ${where} ${scheduleOpText(target)}`;
}

/** One edit in words: "move 2F3 before 2B1", "overlap 3F1 with the next slot". */
export function scheduleEditText(e: ScheduleEdit): string {
  return `${e.kind} ${scheduleEditDetail(e)}`;
}
