/**
 * The page's planner: its store (on the API and the sweep worker) and the session its actions
 * perform on, tied to the app's store: a layout opened goes into the designer as an undoable edit,
 * and one to pin is pinned once its result has been computed.
 */
import type { Design } from '@stagecraft/ir';
import { planJobsApi } from '../api/planJobsApi.ts';
import type { PlannerAction } from '../core/action.ts';
import { openLayoutAction } from '../core/actions.ts';
import { MAX_PIN_NAME, useStore } from '../store/index.ts';
import { createPlannerStore, type PlannerStore, plannerSession } from '../store/planner.ts';
import { sweepInWorker } from './sweepRunner.ts';

export const usePlanner: PlannerStore = createPlannerStore(planJobsApi, sweepInWorker);

export function performPlanner<A>(action: PlannerAction<A>, args: A): void {
  const s = useStore.getState();
  action.perform(
    plannerSession(usePlanner, {
      design: s.design,
      notify: (text) => s.notify('error', text),
      openLayout,
    }),
    args,
  );
}

function openLayout(design: Design, label: string, pin: boolean): void {
  const s = useStore.getState();
  if (!s.dispatch(openLayoutAction, { design, label }) || !pin) return;
  // The pin takes the layout's result: wait for the revision just made to be computed.
  const revision = useStore.getState().revision;
  const stop = useStore.subscribe((now) => {
    if (now.revision !== revision) {
      stop();
      return;
    }
    if (now.resultRevision === revision) {
      stop();
      // A pin's name heads a column of the compare table: the layout's words, cut to fit.
      now.pin(label.slice(0, MAX_PIN_NAME));
    } else if (now.status === 'error') {
      stop();
      now.notify('error', `the layout ${label} does not compile, so it cannot be pinned`);
    }
  });
}
