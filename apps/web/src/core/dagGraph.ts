/**
 * The DAG as the canvas draws it: one lane per device group, one row per stage (block) inside it,
 * columns by dependency depth. A stage's microbatches are collapsed into one node per pass unless
 * the user expanded that stage, which keeps a design with thousands of ops readable and fast.
 * Runs in the compile worker, off the main thread.
 */
import {
  type Dag,
  type DagNode,
  EDGE_TEMPORAL,
  formatPath,
  type GroupMesh,
  meshRangeLabel,
  nodeTags,
} from '@stagecraft/ir';
import type { ExpandedDirective } from '@stagecraft/passes';
import { deviceGroupLabel, deviceGroupSummary } from './deviceList.ts';

// A type alias (not an interface) so React Flow accepts it as node data.
export type GraphNodeData = {
  label: string;
  op: string;
  kind: DagNode['kind'];
  /** Colour key: the pass of a compute op, or the kind of a communication op. */
  colorKey: string;
  count: number;
  /** Tags of the node (of its first member when collapsed). */
  tags: Record<string, number | string>;
  /** The first member's id: what a drop on a collapsed node targets. */
  firstId: string;
  memberIds: string[];
  devices: number[];
  /** The mesh of the node's group, when placed on one: a palette drop asks for its axis. */
  mesh?: GroupMesh;
  stream: string;
  provenance: { pass: string; directive: number | null; path?: string; op?: string };
  costMs?: number;
  flops?: number;
  allocBytes?: number;
  freeBytes?: number;
  bytes?: number;
  highlight?: 'added' | 'changed';
};

export interface GraphNode {
  id: string;
  x: number;
  y: number;
  data: GraphNodeData;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  kind: 'data' | 'temporal';
  count: number;
}

export interface GraphRow {
  /** Stage key `group:block`, what expanding toggles. */
  key: string;
  label: string;
  y: number;
  height: number;
  expanded: boolean;
  /** Ops of this row, before collapsing. */
  ops: number;
}

export interface GraphLane {
  id: string;
  /** One line, summarised for a group strided over a big cluster. */
  label: string;
  /** Every device of the group, for the lane title's hover text. */
  devices?: string;
  y: number;
  height: number;
  rows: GraphRow[];
}

export interface DagGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  lanes: GraphLane[];
  width: number;
  height: number;
  /** Ops of the DAG (not of the drawing). */
  totalNodes: number;
}

export interface GraphOptions {
  /** Stage keys `group:block` whose microbatches are drawn one by one. */
  expanded?: ReadonlySet<string>;
  program?: readonly ExpandedDirective[];
  highlight?: { added: ReadonlySet<string>; changed: ReadonlySet<string> };
}

export const NODE_W = 118;
export const NODE_H = 30;
const COL_W = 136;
const SUB_H = 38;
const ROW_PAD = 12;
const LANE_PAD = 18;
/**
 * A lane's title band, above its rows: the title's line at its largest (11 px text × 1.8, the most
 * labels grow, × 1.2 line height: styles.css and core/dagFit.ts), so it lies over no node.
 */
const LANE_TITLE_H = 24;

/**
 * The stage row each node is drawn in: a compute op in its block's row; a SEND, RECV, collective
 * or offload in the row of the compute op of its own device group it serves; an optimizer step in
 * its group's first row. So a device shows one row per stage it runs.
 */
export function rowBlocks(dag: Dag): Int32Array {
  const n = dag.nodes.length;
  const row = new Int32Array(n).fill(-2);
  const firstBlock = new Map<number, number>();
  dag.nodes.forEach((node, i) => {
    if (node.kind !== 'compute' || node.block < 0) return;
    row[i] = node.block;
    const f = firstBlock.get(node.group);
    if (f === undefined || node.block < f) firstBlock.set(node.group, node.block);
  });
  const { from, to } = dag.edges;
  for (let e = 0; e < from.length; e++) {
    const u = from[e]!;
    const v = to[e]!;
    const a = dag.nodes[u]!;
    const b = dag.nodes[v]!;
    if (a.group !== b.group) continue;
    if (row[v] === -2 && a.kind === 'compute' && a.block >= 0 && b.kind !== 'compute') row[v] = a.block;
    if (row[u] === -2 && b.kind === 'compute' && b.block >= 0 && a.kind !== 'compute') row[u] = b.block;
  }
  dag.nodes.forEach((node, i) => {
    if (row[i] !== -2) return;
    row[i] = node.block >= 0 ? node.block : (firstBlock.get(node.group) ?? -1);
  });
  return row;
}

export function colorKey(n: DagNode): string {
  if (n.kind === 'compute') return n.op;
  if (n.kind === 'p2p') return 'P2P';
  if (n.kind === 'collective') return n.op === 'ALL_TO_ALL' ? 'ALL_TO_ALL' : 'COLLECTIVE';
  if (n.kind === 'memory') return 'MEMORY';
  return 'CONTROL';
}

function collapseKey(n: DagNode): string {
  const extra = n.kind === 'p2p' ? `${n.pass}>${n.peerGroup}` : '';
  return `${n.op}|${extra}|${n.group}|${n.block}|${n.stream}`;
}

function nodeLabel(dag: Dag, n: DagNode, collapsed: boolean): string {
  const base = n.kind === 'p2p' ? `${n.op} ${n.pass}` : n.op;
  if (collapsed) return base;
  const parts = dag.dims
    .map((d, i) => ((n.dims[i] ?? -1) >= 0 ? `${d.name.toLowerCase()}${n.dims[i]}` : ''))
    .filter(Boolean);
  return parts.length ? `${base} ${parts.join(' ')}` : base;
}

/**
 * Dependency depth of every node over data and temporal edges (Kahn's order), counting compute
 * ops only: a SEND or RECV shares the column of the op it serves, which keeps pipelines compact.
 */
export function depths(dag: Dag): Int32Array {
  const n = dag.nodes.length;
  const indeg = new Int32Array(n);
  const { from, to } = dag.edges;
  const head = new Int32Array(n).fill(-1);
  const next = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) {
    indeg[to[e]!]! += 1;
    next[e] = head[from[e]!]!;
    head[from[e]!] = e;
  }
  const depth = new Int32Array(n);
  const w = new Int32Array(n);
  dag.nodes.forEach((node, i) => {
    w[i] = node.kind === 'compute' ? 1 : 0;
  });
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) queue.push(i);
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q]!;
    for (let e = head[u]!; e >= 0; e = next[e]!) {
      const v = to[e]!;
      const d = depth[u]! + w[u]!;
      if (d > depth[v]!) depth[v] = d;
      if (--indeg[v]! === 0) queue.push(v);
    }
  }
  return depth;
}

function rowLabel(dag: Dag, block: number): string {
  if (block < 0) return 'optimizer';
  const b = dag.blocks[block];
  if (!b) return `block ${block}`;
  const tags = Object.entries(b.tags)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return tags ? `${b.name} · ${tags}` : b.name;
}

/** A node as drawn: one op, or a collapsed stage's microbatches of one pass. */
interface DrawnNode {
  key: string;
  members: number[];
  /** The shallowest member's depth: the column the node is drawn in. */
  depth: number;
  /** Stage key `group:block` of the row it is drawn in. */
  row: string;
}

interface DrawnNodes {
  drawn: Map<string, DrawnNode>;
  /** The drawn node's key of every op, by op index. */
  drawnOf: string[];
  /** Ops per stage row, before collapsing. */
  rowOps: Map<string, number>;
}

/** Groups the ops into drawn nodes: an expanded stage's ops one by one, any other collapsed. */
function drawnNodes(dag: Dag, depth: Int32Array, expanded: ReadonlySet<string>): DrawnNodes {
  const drawn = new Map<string, DrawnNode>();
  const drawnOf = new Array<string>(dag.nodes.length);
  const rowOps = new Map<string, number>();
  const rows = rowBlocks(dag);
  dag.nodes.forEach((n, i) => {
    const row = `${n.group}:${rows[i]}`;
    rowOps.set(row, (rowOps.get(row) ?? 0) + 1);
    const key = expanded.has(row) ? n.id : `~${collapseKey(n)}`;
    drawnOf[i] = key;
    const d = drawn.get(key);
    if (d) {
      d.members.push(i);
      if (depth[i]! < d.depth) d.depth = depth[i]!;
    } else drawn.set(key, { key, members: [i], depth: depth[i]!, row });
  });
  return { drawn, drawnOf, rowOps };
}

/** Column of each depth: the distinct depths, compacted. */
function depthColumns(drawn: Iterable<DrawnNode>): Map<number, number> {
  const distinct = [...new Set([...drawn].map((d) => d.depth))].sort((a, b) => a - b);
  return new Map(distinct.map((d, i) => [d, i]));
}

/** Stage keys in order of device group, then block; unplaced and optimizer rows last. */
function stageOrder(rowKeys: Iterable<string>): string[] {
  return [...rowKeys].sort((a, b) => {
    const [ga, ba] = a.split(':').map(Number) as [number, number];
    const [gb, bb] = b.split(':').map(Number) as [number, number];
    const ka = ga < 0 ? Number.MAX_SAFE_INTEGER : ga;
    const kb = gb < 0 ? Number.MAX_SAFE_INTEGER : gb;
    return ka - kb || (ba < 0 ? 1e9 : ba) - (bb < 0 ? 1e9 : bb);
  });
}

function drawnByRow(drawn: Iterable<DrawnNode>): Map<string, DrawnNode[]> {
  const byRow = new Map<string, DrawnNode[]>();
  for (const d of drawn) {
    const list = byRow.get(d.row);
    if (list) list.push(d);
    else byRow.set(d.row, [d]);
  }
  return byRow;
}

/** A device group's lane, starting at `y`, with no rows yet. */
function openLane(dag: Dag, group: number, y: number): GraphLane {
  const devs = group >= 0 ? dag.groups[group] : undefined;
  return {
    id: `lane:${group}`,
    // A mesh group folds its symmetric members into their coordinates: `devices 0–15 · dp 0–1 · tp 0–7`;
    // a group strided over the cluster is summarised (`64 × tp8 groups: devices 0–7, …`).
    label: devs ? `${deviceGroupSummary(devs, innerAxisOf(dag, group))}${meshOf(dag, group)}` : 'unplaced',
    ...(devs ? { devices: `${deviceGroupLabel(devs)}${meshOf(dag, group)}` } : {}),
    y,
    height: 0,
    rows: [],
  };
}

interface PlacedRow {
  nodes: GraphNode[];
  height: number;
  maxCol: number;
}

/**
 * Places one stage row's drawn nodes from `y` down: by column, nodes sharing a column stacked in
 * sub-rows, so the row is as tall as its most crowded column.
 */
function placeRow(
  dag: Dag,
  list: DrawnNode[],
  column: Map<number, number>,
  y: number,
  options: GraphOptions,
): PlacedRow {
  const sorted = list.sort((a, b) => a.depth - b.depth || a.members[0]! - b.members[0]!);
  const nodes: GraphNode[] = [];
  const used = new Map<number, number>();
  let subs = 1;
  let maxCol = 0;
  const rowTop = y + ROW_PAD / 2;
  for (const d of sorted) {
    const col = column.get(d.depth)!;
    const sub = used.get(col) ?? 0;
    used.set(col, sub + 1);
    subs = Math.max(subs, sub + 1);
    maxCol = Math.max(maxCol, col);
    nodes.push({
      id: d.key,
      x: col * COL_W,
      y: rowTop + sub * SUB_H,
      data: nodeData(dag, d.members, d.key, options),
    });
  }
  return { nodes, height: subs * SUB_H + ROW_PAD, maxCol };
}

/** Edges between drawn nodes, the DAG's edges between the same two merged into one with a count. */
function mergedEdges(dag: Dag, drawnOf: readonly string[]): GraphEdge[] {
  const edgeMap = new Map<string, GraphEdge>();
  const { from, to, kind } = dag.edges;
  for (let e = 0; e < from.length; e++) {
    const s = drawnOf[from[e]!]!;
    const t = drawnOf[to[e]!]!;
    if (s === t) continue;
    const k = kind[e] === EDGE_TEMPORAL ? 'temporal' : 'data';
    const id = `${k}:${s}->${t}`;
    const found = edgeMap.get(id);
    if (found) found.count += 1;
    else edgeMap.set(id, { id, source: s, target: t, kind: k, count: 1 });
  }
  return [...edgeMap.values()];
}

export function buildDagGraph(dag: Dag, options: GraphOptions = {}): DagGraph {
  const expanded = options.expanded ?? new Set<string>();
  const { drawn, drawnOf, rowOps } = drawnNodes(dag, depths(dag), expanded);
  const column = depthColumns(drawn.values());
  const byRow = drawnByRow(drawn.values());
  const nodes: GraphNode[] = [];
  const lanes: GraphLane[] = [];
  let y = 0;
  let maxCol = 0;
  let lane: GraphLane | undefined;
  for (const rk of stageOrder(rowOps.keys())) {
    const group = Number(rk.split(':')[0]);
    const block = Number(rk.split(':')[1]);
    if (!lane || lane.id !== `lane:${group}`) {
      if (lane) {
        lane.height = y - lane.y + LANE_PAD / 2;
        y += LANE_PAD;
      }
      lane = openLane(dag, group, y);
      lanes.push(lane);
      y += LANE_PAD / 2 + LANE_TITLE_H;
    }
    const placed = placeRow(dag, byRow.get(rk) ?? [], column, y, options);
    nodes.push(...placed.nodes);
    maxCol = Math.max(maxCol, placed.maxCol);
    lane.rows.push({
      key: rk,
      label: rowLabel(dag, block),
      y,
      height: placed.height,
      expanded: expanded.has(rk),
      ops: rowOps.get(rk)!,
    });
    y += placed.height;
  }
  if (lane) lane.height = y - lane.y + LANE_PAD / 2;
  return {
    nodes,
    edges: mergedEdges(dag, drawnOf),
    lanes,
    width: (maxCol + 1) * COL_W,
    height: y,
    totalNodes: dag.nodes.length,
  };
}

const idIndexes = new WeakMap<Dag, Map<string, number>>();

/** Node index by id, built once per DAG: hovering runs on every pointer move. */
function idIndex(dag: Dag): Map<string, number> {
  let m = idIndexes.get(dag);
  if (!m) {
    m = new Map(dag.nodes.map((n, i) => [n.id, i]));
    idIndexes.set(dag, m);
  }
  return m;
}

/** Hover details of one op of the DAG by id (a timeline op shows the same as its DAG node). */
export function detailsOf(
  dag: Dag,
  id: string,
  program: readonly ExpandedDirective[],
): GraphNodeData | undefined {
  const i = idIndex(dag).get(id);
  return i === undefined ? undefined : nodeData(dag, [i], id, { program });
}

const groupCopies = new WeakMap<readonly number[], number[]>();

/**
 * One array per device group, shared by the group's nodes: a structured clone copies a shared
 * array once, and DeepSeek-V3's graph held 455,000 device numbers in a copy per node (half the
 * page's time to read the graph the worker posts). Readers do not change it.
 */
function groupDevices(group: readonly number[] | undefined): number[] {
  if (!group) return [];
  let copy = groupCopies.get(group);
  if (!copy) {
    copy = [...group];
    groupCopies.set(group, copy);
  }
  return copy;
}

function nodeData(dag: Dag, members: number[], key: string, options: GraphOptions): GraphNodeData {
  const n = dag.nodes[members[0]!]!;
  const collapsed = key.startsWith('~');
  const block = n.block >= 0 ? dag.blocks[n.block] : undefined;
  const prov = n.provenance;
  const expandedDirective = prov.directive !== null ? options.program?.[prov.directive] : undefined;
  const data: GraphNodeData = {
    label: nodeLabel(dag, n, collapsed),
    op: n.op,
    kind: n.kind,
    colorKey: colorKey(n),
    count: members.length,
    tags: nodeTags(dag, n),
    firstId: n.id,
    memberIds: members.slice(0, 6).map((i) => dag.nodes[i]!.id),
    devices: n.group >= 0 ? groupDevices(dag.groups[n.group]) : [],
    ...(n.group >= 0 && dag.meshes?.[n.group] ? { mesh: dag.meshes[n.group]! } : {}),
    stream: n.stream,
    provenance: {
      pass: prov.pass,
      directive: prov.directive,
      ...(expandedDirective
        ? { path: formatPath(expandedDirective.path), op: expandedDirective.directive.op }
        : {}),
    },
  };
  if (n.kind === 'compute') {
    data.allocBytes = n.allocBytes;
    data.freeBytes = n.freeBytes;
    const pass = n.op === 'RECOMPUTE' ? 'F' : n.op === 'B' ? undefined : n.op;
    if (block?.ms) {
      data.costMs =
        n.op === 'B'
          ? block.ms.BI + block.ms.BW
          : pass && pass in block.ms
            ? block.ms[pass as 'F']
            : undefined;
      if (data.costMs === undefined) delete data.costMs;
    }
    if (block?.flops) {
      const f = block.flops;
      data.flops = n.op === 'B' ? f.BI + f.BW : n.op === 'BI' ? f.BI : n.op === 'BW' ? f.BW : f.F;
    }
  } else if (n.kind !== 'control') data.bytes = n.bytes;
  const hl = options.highlight;
  if (hl) {
    let mark: GraphNodeData['highlight'];
    for (const i of members) {
      const id = dag.nodes[i]!.id;
      if (hl.added.has(id)) {
        mark = 'added';
        break;
      }
      if (hl.changed.has(id)) mark = 'changed';
    }
    if (mark) data.highlight = mark;
  }
  return data;
}

/** ` · dp 0–1 · tp 0–7` for a group placed on a mesh, '' otherwise. */
/** The mesh's innermost axis: consecutive devices of a group strided over the cluster run along it. */
function innerAxisOf(dag: Dag, group: number): { name: string; size: number } | undefined {
  const mesh = dag.meshes?.[group];
  const k = mesh ? mesh.axes.length - 1 : -1;
  return mesh && k >= 0 ? { name: mesh.axes[k]!, size: mesh.shape[k]! } : undefined;
}

function meshOf(dag: Dag, group: number): string {
  const mesh = dag.meshes?.[group];
  return mesh ? ` · ${meshRangeLabel(mesh)}` : '';
}
