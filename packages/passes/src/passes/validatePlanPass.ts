import { CompileError } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';
import { validatePlan } from '../validatePlan.ts';

/** The last pass: a plan that fails validation is a compile error, never output. */
export const validatePlanPass: Pass = {
  name: 'validate-plan',
  run(dag, ctx) {
    const issues = validatePlan(ctx.plan!, { uniqueIds: true });
    if (issues.length > 0) throw new CompileError(issues);
    return dag;
  },
};
