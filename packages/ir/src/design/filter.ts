import * as z from 'zod';

/** The passes of a training step a filter may select with the `PASS` key. */
export const PASS_NAMES = ['F', 'B', 'BI', 'BW'] as const;
export type PassName = (typeof PASS_NAMES)[number];

/**
 * A filter selects DAG nodes by tags (Piper's annotations): keys are block tags (`PP`, `EP`, ...),
 * split dimensions (`MB`) or `PASS`; a value is an index, `"*"` (any index) or a pass name.
 * Keys are conjunctive and `{}` matches everything. Whether a key exists is checked by the passes,
 * which know the model's tags.
 */
export type FilterValue = number | '*' | PassName;
export type Filter = Readonly<Record<string, FilterValue>>;

export const filterSchema = z
  .record(z.string(), z.union([z.number().int().min(0), z.literal('*'), z.enum(PASS_NAMES)]))
  .superRefine((f, ctx) => {
    for (const [k, v] of Object.entries(f)) {
      if (k === 'PASS') {
        if (typeof v === 'number') {
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `PASS must be one of ${PASS_NAMES.join(', ')} or "*"`,
          });
        }
      } else if (typeof v === 'string' && v !== '*') {
        ctx.addIssue({ code: 'custom', path: [k], message: `tag ${k} takes an index or "*", not "${v}"` });
      }
    }
  }) as unknown as z.ZodType<Filter>;
