import { CompileError, keepProvenColumns, provenColumns, provesColumns, validatePlan } from '@stagecraft/ir';
import type { Pass } from '../driver/pass.ts';

/** The last pass: a plan that fails validation is a compile error, never output. */
export const validatePlanPass: Pass = {
  name: 'validate-plan',
  reads: [],
  run(dag, ctx) {
    const plan = ctx.plan!;
    // The columns lowering made prove a compiled plan without reading its objects; the simulator
    // then takes the proven waits and pairs from them.
    const columns = ctx.planColumns?.plan === plan ? ctx.planColumns.columns : undefined;
    const sendOf = columns && provesColumns(plan, columns, ctx.scratch);
    if (columns && sendOf) {
      keepProvenColumns(plan, provenColumns(columns, sendOf));
      return dag;
    }
    const issues = validatePlan(plan, { uniqueIds: true });
    if (issues.length > 0) throw new CompileError(issues);
    return dag;
  },
};
