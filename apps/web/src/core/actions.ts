/**
 * Every user operation, one action each (see action.ts): the design's edits, then the session's,
 * then the planner panel's.
 */
import {
  type Cluster,
  type Design,
  type Directive,
  type Model,
  parseDesign,
  type ScheduleBuilderName,
} from '@stagecraft/ir';
import type { ExpandedDirective } from '@stagecraft/passes';
import { action, type Confirmable, plannerAction, refused, type SweepAxis, sessionAction } from './action.ts';
import { switchBuilder } from './builderSwitch.ts';
import { sizeGrowth } from './designGrowth.ts';
import { directiveProblems, issuesText, partProblems } from './directiveCheck.ts';
import type { DropTarget } from './dropTarget.ts';
import { redo, undo } from './history.ts';
import { type MeshLayout, withMeshLayout } from './meshLayout.ts';
import { type DirectiveItem, dropItem } from './palette.ts';
import { type PlanForm, parsePlanForm } from './planForm.ts';
import { layoutLabel, type PlannedLayout } from './planFront.ts';
import {
  deleteDirective,
  insertDirective,
  moveDirective,
  replaceDirective,
  toggleDirective,
} from './program.ts';
import { type CompiledDesign, moveOp, type OpMove } from './reorder.ts';
import { expandSchedule } from './schedule.ts';
import { removeScheduleEdit } from './scheduleEdits.ts';
import { parseSweepValues } from './sweepValues.ts';

// Edits of directives, the model, the cluster and the name are refused when the design schema
// refuses the result: a design the editor holds is always one the compiler reads and the API saves.

export const addDirectiveAction = action('add-directive', (d, a: { directive: Directive; at?: number }) => {
  const at = a.at ?? d.directives.length;
  const problems = directiveProblems(a.directive, at);
  if (problems.length > 0) return refused(issuesText(problems));
  const design = insertDirective(d, a.directive, a.at);
  return { ok: true, design, select: a.at ?? design.directives.length - 1 };
});

export const updateDirectiveAction = action(
  'update-directive',
  (d, a: { index: number; directive: Directive } & Confirmable) => {
    if (!d.directives[a.index]) return refused(`directives[${a.index}] does not exist`);
    const problems = directiveProblems(a.directive, a.index);
    if (problems.length > 0) return refused(issuesText(problems));
    const design = replaceDirective(d, a.index, a.directive);
    const growth = a.confirmed ? undefined : sizeGrowth(d, design);
    if (growth) return { ok: false, error: growth.message, confirm: growth };
    return { ok: true, design, select: a.index };
  },
);

export const moveDirectiveAction = action('move-directive', (d, a: { from: number; to: number }) => ({
  ok: true,
  design: moveDirective(d, a.from, a.to),
  select: Math.max(0, Math.min(a.to, d.directives.length - 1)),
}));

export const toggleDirectiveAction = action('toggle-directive', (d, a: { index: number }) => ({
  ok: true,
  design: toggleDirective(d, a.index),
}));

export const deleteDirectiveAction = action('delete-directive', (d, a: { index: number }) => ({
  ok: true,
  design: deleteDirective(d, a.index),
}));

export const dropItemAction = action(
  'drop-item',
  (d, a: { item: DirectiveItem; target: DropTarget; program: readonly ExpandedDirective[] } & Confirmable) =>
    dropItem(d, a.item, a.target, a.program, a.choice),
);

/** A palette schedule item: asks before it drops hand-edited orders (see builderSwitch.ts). */
export const switchBuilderAction = action(
  'switch-builder',
  (d, a: { builder: ScheduleBuilderName } & Confirmable) => switchBuilder(d, a.builder, a.confirmed),
);

export const expandScheduleAction = action(
  'expand-schedule',
  (d, a: { index: number; program: readonly ExpandedDirective[] }) => expandSchedule(d, a.index, a.program),
);

/** The program list's ✕ on one of a schedule's folded edits. */
export const removeScheduleEditAction = action(
  'remove-schedule-edit',
  (d, a: { index: number; edit: number }) => removeScheduleEdit(d, a.index, a.edit),
);

export const setModelAction = action('set-model', (d, a: { model: Model }) => {
  const problems = partProblems(d, 'model', a.model);
  return problems.length > 0 ? refused(issuesText(problems)) : { ok: true, design: { ...d, model: a.model } };
});

export const setClusterAction = action('set-cluster', (d, a: { cluster: Cluster }) => {
  const problems = partProblems(d, 'cluster', a.cluster);
  return problems.length > 0
    ? refused(issuesText(problems))
    : { ok: true, design: { ...d, cluster: a.cluster } };
});

/** The cluster form's mesh builder: the schedule's stages laid out on meshes (meshLayout.ts). */
export const setMeshLayoutAction = action('set-mesh-layout', (d, a: { layout: MeshLayout }) =>
  withMeshLayout(d, a.layout),
);

export const renameAction = action('rename', (d, a: { name: string }) => {
  const name = a.name.trim();
  if (name === '') return refused('a design needs a name');
  const problems = partProblems(d, 'name', name);
  return problems.length > 0 ? refused(issuesText(problems)) : { ok: true, design: { ...d, name } };
});

/**
 * The measured overlay's "Apply calibration": the model and cluster fitted to a measured step
 * replace the design's at once, so one undo puts both back. They were fitted to `fittedTo`, and
 * apply to that design only: another one (an edit since, another document) would get a model of
 * the measured design's blocks.
 */
export const applyCalibrationAction = action(
  'apply-calibration',
  (d, a: { model: Model; cluster: Cluster; files: readonly string[]; fittedTo: Design | null }) => {
    if (a.fittedTo !== d)
      return refused(
        a.fittedTo?.name === d.name || a.fittedTo === null
          ? 'the calibration was fitted before the design last changed: apply it once the traces are compared with the design as it is'
          : `the calibration was fitted to "${a.fittedTo.name}", not to "${d.name}": it applies to the design the traces were compared with`,
      );
    const problems = [...partProblems(d, 'model', a.model), ...partProblems(d, 'cluster', a.cluster)];
    if (problems.length > 0) return refused(issuesText(problems));
    return {
      ok: true,
      design: { ...d, model: a.model, cluster: a.cluster },
      notice: `model and cluster calibrated from ${a.files.join(', ')}: the prediction now uses the measured costs (undo puts the previous ones back)`,
    };
  },
);

/** Opening a saved design, a version or an example: a new document, not an undoable edit. */
export const openDesignAction = action(
  'open-design',
  (_d, a: { design: Design }) => ({ ok: true, design: a.design }),
  'replace',
);

/** Restoring an older version into the current document: undoable. */
export const restoreVersionAction = action('restore-version', (_d, a: { design: Design }) => ({
  ok: true,
  design: a.design,
}));

/** Dragging an op before or after another of its device on the timeline edits that device's order. */
export const reorderOpAction = action('reorder-op', (d, a: { compiled: CompiledDesign; move: OpMove }) => {
  const r = moveOp(d, a.compiled, a.move);
  return r.ok ? { ok: true, design: r.design } : { ok: false, error: r.reason };
});

export const undoAction = sessionAction('undo', ['Mod+Z'], (s) => {
  const r = undo(s.history, s.design);
  if (r) s.restore(r.design, r.history);
});

export const redoAction = sessionAction('redo', ['Mod+Shift+Z', 'Mod+Y', 'Mod+Shift+Y'], (s) => {
  const r = redo(s.history, s.design);
  if (r) s.restore(r.design, r.history);
});

/** Ctrl+S means nothing else in a text field (the browser would save the page), so it saves there too. */
export const saveAction = sessionAction('save', ['Mod+S', 'Mod+Shift+S'], (s) => s.save(), true);

/** Ctrl+Shift+P: Ctrl+P alone is the browser's print. */
export const pinAction = sessionAction('pin', ['Mod+Shift+P'], (s) => s.pin());

/** The session actions the keyboard looks up by chord. */
export const SESSION_ACTIONS = [undoAction, redoAction, saveAction, pinAction] as const;

/** A layout of the planner's front put in the designer: an edit like any other, so undo goes back. */
export const openLayoutAction = action('open-layout', (_d, a: { design: Design; label: string }) => ({
  ok: true,
  design: a.design,
  notice: `opened the planner's layout ${a.label}: undo returns to the design before it`,
}));

/** The planner panel's Search: the fields read, one search at a time. */
export const startPlanAction = plannerAction('start-plan', (s, a: { form: PlanForm }) => {
  if (s.searching) return s.refuse('a search is running: cancel it before starting another');
  const form = parsePlanForm(a.form);
  if (!form.ok) return s.refuse(form.errors.join('\n'));
  s.startSearch(form.request);
});

export const cancelPlanAction = plannerAction('cancel-plan', (s) => {
  if (s.searching) s.cancelSearch();
});

/** The sweep view's Sweep: the design recompiled at each value of m or p. */
export const sweepAction = plannerAction('sweep', (s, a: { axis: SweepAxis; values: string }) => {
  const values = parseSweepValues(a.values);
  if (!values.ok) return s.refuse(values.error);
  s.runSweep(a.axis, values.values);
});

/** A click on a point of the front: opens its layout in the designer, or pins it to compare. */
export const openPlanPointAction = plannerAction(
  'open-plan-point',
  (s, a: { point: { layout: PlannedLayout; design: unknown }; pin: boolean }) => {
    const label = layoutLabel(a.point.layout);
    const parsed = parseDesign(a.point.design);
    if (!parsed.ok) {
      const e = parsed.errors[0];
      return s.refuse(`the layout ${label} does not read as a design: ${e?.path}: ${e?.message}`);
    }
    s.openLayout(parsed.design, label, a.pin);
  },
);
