import { CompileError, provesLayout, validatePlan } from '@stagecraft/ir';
import type { Pass } from '../driver/pass.ts';
import { layoutFromColumns } from '../lower/layoutFromColumns.ts';

/** The last pass: a plan that fails validation is a compile error, never output. */
export const validatePlanPass: Pass = {
  name: 'validate-plan',
  reads: ['plan', 'planColumns'],
  writes: [],
  run(dag, ctx) {
    const plan = ctx.plan!;
    // A compiled plan is proven on the layout of the columns lowering made, without reading its
    // objects; the plan then carries that layout for the simulator (compiledLayout.ts in ir).
    const columns = ctx.planColumns?.plan === plan ? ctx.planColumns.columns : undefined;
    const layout = columns && layoutFromColumns(plan, columns, ctx.scratch);
    if (layout && provesLayout(layout, ctx.scratch)) {
      plan.compiled?.prove(layout);
      return dag;
    }
    const issues = validatePlan(plan, { uniqueIds: true });
    if (issues.length > 0) throw new CompileError(issues);
    return dag;
  },
};
