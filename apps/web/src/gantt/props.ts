/**
 * What the timeline is given (GanttProps) and what its controllers read at event time (GanttLive):
 * they are bound once per element, so they read the latest render through one object instead of
 * being re-bound on every render.
 */
import type { Simulation, TimelineEvent } from '@stagecraft/sim';
import type { OpMove } from '../core/reorder.ts';
import type { Flow } from './flows.ts';
import type { GanttLayout } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import type { TimelinePlan } from './timelinePlan.ts';
import type { ViewSync } from './viewSync.ts';

export interface GanttProps {
  /** The simulated step; its `timeline` and `memory` are drawn (simulate with keepTimeline on). */
  sim: Simulation;
  /**
   * The compiled plan the simulation ran: streams, stages, provenance, SEND/RECV pairs. An outline
   * of it (planOutline) draws the same timeline, arrows included, without op details.
   */
  plan: TimelinePlan;
  /** Memory capacity of a device in bytes, drawn as a dashed line over its memory curve. */
  memoryCapacityBytes?: (device: number) => number | undefined;
  /** Bytes at the top of every memory strip (default: each device's own peak or capacity). */
  memoryScaleBytes?: number;
  /** Instruction id of the selected op (outlined). */
  selection?: string | null;
  /** The op under the pointer changed (null when it leaves every op). */
  onHover?(op: TimelineEvent | null): void;
  /** An op was clicked (null: the background was). */
  onSelect?(id: string | null): void;
  /** A palette item (HTML5 drag of type PALETTE_DRAG_TYPE) was dropped onto an op. */
  onDropPaletteItem?(item: string, op: TimelineEvent): void;
  /** An op was dragged before or after another; apply it with moveOp and pass back any refusal. */
  onReorder?(move: OpMove): void;
  /** Why the last reorder was refused: shown beside the lanes of the device it was tried on. */
  refusal?: string | null;
  /** The user dismissed the refusal (clicked it). */
  onDismissRefusal?(): void;
  /** Draw an arrow from every SEND to its RECV. */
  showArrows?: boolean;
  /** Streams whose lanes are folded to a thin strip (e.g. p2p). */
  collapsedStreams?: ReadonlySet<string>;
  /** Leave out the memory strips. */
  memoryCollapsed?: boolean;
  /**
   * Bring an op into view (zoomed to it, scrolled to its device) or scroll a device's band to the
   * top; a new object asks again.
   */
  reveal?: { id: string } | { device: number } | null;
  /** Show the selected op's details in a panel that stays until the selection is cleared. */
  selectionPanel?: boolean;
  /** 'auto' (default) uses SVG up to SVG_OP_LIMIT ops and a canvas beyond. */
  render?: 'auto' | 'svg' | 'canvas';
  /** End of the time axis (default the makespan): several timelines share one axis with the same value. */
  domainMs?: number;
  /** Share zoom and pan with other timelines (see createViewSync). */
  viewSync?: ViewSync;
  /** Width in pixels (default: the element's width, followed as it resizes). */
  width?: number;
  /** Thinner lanes (Compare with three or four variants). */
  compact?: boolean;
  /**
   * Collect frame times while zooming and panning in window.__stagecraftGanttFrames (frameMeter.ts).
   * Also on whenever that global exists, so a benchmark can switch it on from outside.
   */
  measureFrames?: boolean;
  /** Name of the expanded program's directive `index`, for provenance in the hover details. */
  directiveLabel?(index: number): string | undefined;
}

/** The latest render, as every controller reads it. */
export interface GanttLive {
  props: GanttProps;
  layout: GanttLayout;
  planIndex: PlanIndex;
  mode: 'svg' | 'canvas';
  domainMs: number;
  width: number;
  /** Index of the op a palette item is dragged over, or -1. */
  dropTarget: number;
  /** Index of the op under the pointer, or -1. */
  hover: number;
  /** SEND→RECV flows of the selected op. */
  flows: readonly Flow[];
  /** The time range marked on the axis, in ms (either order), or null. */
  range: [number, number] | null;
}

/** Frame times are collected on request, or whenever a benchmark has set up their global. */
export function measuring(props: GanttProps): boolean {
  return props.measureFrames === true || window.__stagecraftGanttFrames !== undefined;
}
