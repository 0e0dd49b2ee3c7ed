/**
 * The cluster form's mesh builder: the pipeline stages laid out on a mesh with named axes (dp × tp
 * per stage), written as the schedule's `groups` in design format @3. Two layouts cover what people
 * run: each stage a block of consecutive devices, or the first axis spread across the stages
 * (Megatron's TP within a node, then PP, then DP: device = dp·(stages·rest) + stage·rest + …, the
 * Llama 3 layout).
 */
import {
  type Cluster,
  clusterDevices,
  DESIGN_FORMAT,
  type Design,
  type MeshSpec,
  meshSchema,
  type ScheduleDirective,
} from '@stagecraft/ir';
import { type Outcome, refused } from './action.ts';
import { modelPipelineStages, stageCountProblem } from './modelStages.ts';
import { withDirectives } from './program.ts';

export type MeshOrder = 'stage-blocks' | 'first-axis-across-stages';

export interface MeshLayout {
  /** Pipeline stages (the schedule's ranks): one mesh group each. */
  stages: number;
  /** Axis names, outermost first, e.g. ["dp", "tp"]. */
  axes: readonly string[];
  /** Devices along each axis, e.g. [2, 8]. */
  sizes: readonly number[];
  order: MeshOrder;
}

/** The schedule's groups for a layout: one mesh per stage. */
export function meshGroups(layout: MeshLayout): MeshSpec[] {
  const { stages, axes, sizes, order } = layout;
  const perStage = sizes.reduce((a, b) => a * b, 1);
  if (order === 'stage-blocks')
    return Array.from({ length: stages }, (_, s) => ({
      axes: [...axes],
      shape: [...sizes],
      start: s * perStage,
    }));
  // The first axis outside the stages: its stride skips every stage's inner block.
  const inner = perStage / sizes[0]!;
  const strides = sizes.map((_, a) => sizes.slice(a + 1).reduce((x, y) => x * y, 1));
  strides[0] = stages * inner;
  return Array.from({ length: stages }, (_, s) => ({
    axes: [...axes],
    shape: [...sizes],
    start: s * inner,
    strides,
  }));
}

/** Devices of a cluster, or why it has none to count (an unknown preset). */
export function meshClusterDevices(cluster: Cluster): number | string {
  const c = clusterDevices(cluster);
  return c.ok ? c.devices : c.errors.map((e) => `cluster.${e.path}: ${e.message}`).join('; ');
}

/** What is wrong with a layout for this cluster, one line per problem naming the field. */
export function meshLayoutProblems(layout: MeshLayout, cluster: Cluster): string[] {
  const out: string[] = [];
  if (!Number.isInteger(layout.stages) || layout.stages < 1) out.push('stages: a whole number ≥ 1');
  if (layout.axes.length === 0) out.push('axes: name at least one, e.g. dp, tp');
  if (layout.sizes.length !== layout.axes.length)
    out.push(
      `sizes: ${layout.sizes.length} sizes for ${layout.axes.length} axes (${layout.axes.join(', ')})`,
    );
  if (layout.sizes.some((n) => !Number.isInteger(n) || n < 1)) out.push('sizes: whole numbers ≥ 1');
  if (out.length > 0) return out;
  const spec = meshSchema.safeParse({ axes: layout.axes, shape: layout.sizes });
  if (!spec.success) {
    for (const issue of spec.error.issues) out.push(`axes: ${issue.message}`);
    return out;
  }
  const devices = meshClusterDevices(cluster);
  if (typeof devices === 'string') return [devices];
  const perStage = layout.sizes.reduce((a, b) => a * b, 1);
  const needed = layout.stages * perStage;
  if (needed > devices)
    out.push(
      `the mesh needs ${layout.stages} stages × ${layout.sizes.join(' × ')} = ${needed} devices; the cluster has ${devices}`,
    );
  return out;
}

/** The schedule the layout goes on: the design's first, with its index. */
function scheduleOf(design: Design): { at: number; schedule: ScheduleDirective } | undefined {
  const at = design.directives.findIndex((d) => d.op === 'schedule');
  const d = design.directives[at];
  return d?.op === 'schedule' ? { at, schedule: d } : undefined;
}

/** The stages the schedule runs now, as the compiler counts them (expandSchedule). */
export function scheduleStages(design: Design): number | undefined {
  const found = scheduleOf(design);
  if (!found) return undefined;
  const devices = meshClusterDevices(design.cluster);
  return found.schedule.ranks ?? found.schedule.groups?.length ?? (typeof devices === 'number' ? devices : 1);
}

/** The layout the schedule's groups already are, when they are meshes of one shape. */
export function currentMeshLayout(design: Design): MeshLayout | undefined {
  const groups = scheduleOf(design)?.schedule.groups;
  const first = groups?.[0];
  if (!groups || !first || Array.isArray(first) || first.shape === undefined) return undefined;
  const order: MeshOrder = first.strides ? 'first-axis-across-stages' : 'stage-blocks';
  const layout = { stages: groups.length, axes: first.axes, sizes: first.shape, order };
  // Only a layout this form would write reads back as one; anything else is left to the JSON.
  return JSON.stringify(meshGroups(layout)) === JSON.stringify(groups) ? layout : undefined;
}

/** The design with its schedule's stages on the layout's meshes, or the problems. */
export function withMeshLayout(design: Design, layout: MeshLayout): Outcome {
  const found = scheduleOf(design);
  if (!found) return refused("a mesh lays out the schedule's stages: add a schedule first");
  const problems = meshLayoutProblems(layout, design.cluster);
  const stageProblem = stageCountProblem(design, layout.stages, modelPipelineStages(design.model));
  if (stageProblem) problems.push(stageProblem);
  if (problems.length > 0) return refused(problems.join('\n'));
  const { at, schedule } = found;
  const next: ScheduleDirective = { ...schedule, groups: meshGroups(layout) };
  if (schedule.ranks !== undefined) next.ranks = layout.stages;
  const directives = design.directives.slice();
  directives[at] = next;
  // Meshes are design format @3.
  return { ok: true, design: { ...withDirectives(design, directives), format: DESIGN_FORMAT }, select: at };
}
