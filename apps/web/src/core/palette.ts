/**
 * The directive palette: what each item adds when dropped on a DAG node or a Gantt op. Schedule
 * builders are applied to the whole program instead (they need no target).
 */
import {
  DESIGN_FORMAT,
  type Design,
  type Directive,
  type Filter,
  type GroupMesh,
  SCHEDULE_BUILDERS,
  type ScheduleBuilderName,
} from '@stagecraft/ir';
import type { ExpandedDirective } from '@stagecraft/passes';
import { BUILDERS } from '@stagecraft/passes';
import { type Confirmation, type Outcome, refused } from './action.ts';
import { type DropTarget, exactFilter, regionFilter } from './dropTarget.ts';
import { filterMatches } from './filterMatch.ts';
import { insertDirective, withDirectives } from './program.ts';
import { runningSlots, scheduleOpOf, splitRegions, withScheduleEdit } from './scheduleEdits.ts';
import { splitBackwardSlot } from './scheduleFold.ts';

export const DIRECTIVE_ITEMS = [
  { key: 'split_backward', label: 'split backward', summary: 'split the fused backward into BI and BW' },
  {
    key: 'recompute',
    label: 'recompute',
    summary: 'drop stashed activations, re-run forward before backward',
  },
  { key: 'offload', label: 'offload', summary: 'move stashed activations to host after F, reload before B' },
  {
    key: 'replicate',
    label: 'replicate',
    summary: 'data parallel: gradient all-reduce (ZeRO with sharding)',
  },
  { key: 'shard', label: 'shard', summary: 'expert parallel: all-to-all around the region' },
  { key: 'shard_tensor', label: 'shard tensor', summary: 'tensor parallel: all-reduce pair on the region' },
  {
    key: 'shard_sequence',
    label: 'shard sequence',
    summary: 'context parallel: 1/n of the sequence per member, K/V exchanged',
  },
  { key: 'place', label: 'place', summary: "put the region on the target's device group" },
  { key: 'overlap', label: 'overlap slot', summary: 'run the op overlapped with the next one of its device' },
] as const;

export type DirectiveItem = (typeof DIRECTIVE_ITEMS)[number]['key'];

export const BUILDER_ITEMS = SCHEDULE_BUILDERS.map((b) => ({
  key: b,
  label: b,
  summary: BUILDERS[b].summary,
}));

export function isBuilder(key: string): key is ScheduleBuilderName {
  return (SCHEDULE_BUILDERS as readonly string[]).includes(key);
}

/** The answer to "which axis?" that runs the directive over the whole group, as without a mesh. */
export const WHOLE_GROUP = '';

/** Items that run over a device group, so over one axis of it when the group is a mesh. */
const AXIS_ITEMS: ReadonlySet<DirectiveItem> = new Set([
  'replicate',
  'shard',
  'shard_tensor',
  'shard_sequence',
]);

/**
 * The directive an item adds on a target, before the user edits it in the inspector. `axis` (a
 * mesh axis of the target's group) makes a replicate, shard, shard_tensor or shard_sequence run over that axis
 * only: the same devices, one collective per sub-group along it.
 */
export function directiveFor(
  item: Exclude<DirectiveItem, 'overlap'>,
  target: DropTarget,
  axis?: string,
): Directive {
  const filter = regionFilter(target.tags);
  const devices = target.devices && target.devices.length > 0 ? [...target.devices] : [0];
  const over = axis ? { axis } : {};
  switch (item) {
    case 'split_backward':
    case 'recompute':
      return { op: item, filter };
    case 'offload':
      return { op: 'offload', filter, stream: 'offload' };
    case 'replicate':
      return { op: 'replicate', filter, devices, ...over };
    case 'shard':
    case 'shard_tensor':
    case 'shard_sequence':
      return { op: item, filter, devices, ...over };
    case 'place':
      return { op: 'place', filter, devices };
  }
}

/**
 * The axis a drop runs over, or the question to ask: none without a mesh, the only axis of a
 * one-axis mesh, and the user's pick (an axis or the whole group) when the mesh has several.
 */
export function dropAxis(
  item: DirectiveItem,
  target: DropTarget,
  choice: string | undefined,
): { axis?: string } | { ask: Confirmation } | { error: string } {
  const mesh = target.mesh;
  if (!AXIS_ITEMS.has(item) || !mesh || mesh.axes.length === 0) return {};
  if (mesh.axes.length === 1) return { axis: mesh.axes[0]! };
  if (choice === undefined) return { ask: axisQuestion(item, mesh) };
  if (choice === WHOLE_GROUP) return {};
  if (!mesh.axes.includes(choice))
    return { error: `"${choice}" is not an axis of the group's mesh (${mesh.axes.join(', ')})` };
  return { axis: choice };
}

function axisQuestion(item: DirectiveItem, mesh: GroupMesh): Confirmation {
  const label = DIRECTIVE_ITEMS.find((d) => d.key === item)?.label ?? item;
  const size = mesh.shape.reduce((a, b) => a * b, 1);
  return {
    title: `${label} over which axis?`,
    message: `The group is a ${mesh.shape.join(' × ')} mesh (${mesh.axes.join(' × ')}). Over one axis, ${label} runs among the devices that share the other coordinates.`,
    items: [],
    accept: 'whole group',
    choices: [
      ...mesh.axes.map((a, k) => ({
        value: a,
        label: `${a} (${mesh.shape[k]} devices each, ${size / mesh.shape[k]!} sub-groups)`,
      })),
      { value: WHOLE_GROUP, label: `whole group (${size} devices)` },
    ],
  };
}

/**
 * split_backward on a region: the directive alone, right after the program's schedule (folded
 * beneath it in the program list). Orders need no rewrite: a slot naming a B it splits runs BI
 * there and BW right after.
 */
export function dropSplitBackward(design: Design, target: DropTarget): Outcome {
  const at = splitBackwardSlot(design);
  const next = insertDirective(design, { op: 'split_backward', filter: regionFilter(target.tags) }, at);
  return { ok: true, design: next, select: at };
}

/**
 * overlap slot on an op: its order slot and the next slot of the same device run as one unit. On
 * a schedule's order it is an edit of the schedule; an explicit order is edited in place.
 */
export function dropOverlap(
  design: Design,
  target: DropTarget,
  program: readonly ExpandedDirective[],
): Outcome {
  const exact = exactFilter(target.tags);
  const isTarget = (f: Filter) => filterMatches(f, exact as Record<string, number | string>);
  const regions = splitRegions(design);
  let entry: ExpandedDirective | undefined;
  let slots: readonly (readonly Filter[])[] = [];
  let k = -1;
  for (const e of program) {
    if (e.directive.op !== 'order') continue;
    slots = runningSlots(e.directive.filters, regions);
    k = slots.findIndex((slot) => slot.some(isTarget));
    if (k >= 0) {
      entry = e;
      break;
    }
  }
  if (!entry) return refused(`no order slot runs ${target.id}; add an order first`);
  const slot = slots[k]!;
  const following = slots[k + 1];
  if (!following)
    return refused(`${target.id} is the last op of its device: there is nothing after it to overlap`);
  const passes = new Set([...slot, ...following].map((f) => f.PASS));
  if (!(passes.has('F') && [...passes].some((p) => p === 'B' || p === 'BI' || p === 'BW')))
    return refused(
      `${target.id} and the next op of its device are not a forward and a backward: only an F&B pair overlaps`,
    );
  const at = entry.path[1] as number;
  if (entry.path.length > 2) {
    const op = scheduleOpOf(exact);
    if (!op) return refused(`${target.id} is not an op a schedule orders`);
    const next = withScheduleEdit(design, at, { kind: 'overlap', op });
    if (!next) return refused(`directives[${at}] is no longer the schedule that runs ${target.id}`);
    return { ok: true, design: next, select: at };
  }
  const order = design.directives[at];
  if (order?.op !== 'order') return refused(`directives[${at}] is not an order`);
  const filters = slots.map((x) => x.slice());
  filters.splice(k, 2, [...slot, ...following]);
  const directives = design.directives.slice();
  directives[at] = { ...order, filters };
  return { ok: true, design: withDirectives(design, directives), select: at };
}

/**
 * A palette item dropped on a target. On a group with a mesh of several axes, a directive that
 * runs over devices asks which axis first; `choice` is the answer (an axis, or WHOLE_GROUP).
 */
export function dropItem(
  design: Design,
  item: DirectiveItem,
  target: DropTarget,
  program: readonly ExpandedDirective[],
  choice?: string,
): Outcome {
  if (item === 'split_backward') return dropSplitBackward(design, target);
  if (item === 'overlap') return dropOverlap(design, target, program);
  const over = dropAxis(item, target, choice);
  if ('ask' in over) return { ok: false, error: over.ask.title, confirm: over.ask };
  if ('error' in over) return refused(over.error);
  const added = insertDirective(design, directiveFor(item, target, over.axis));
  // A directive over a mesh axis is design format @3, whatever format the design was built as.
  const next: Design = over.axis ? { ...added, format: DESIGN_FORMAT } : added;
  return { ok: true, design: next, select: next.directives.length - 1 };
}
