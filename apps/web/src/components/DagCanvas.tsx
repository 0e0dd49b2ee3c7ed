/**
 * The global DAG after any pass: lanes per device group, rows per stage, microbatches collapsed
 * until a stage is expanded. Palette items drop onto nodes; hovering shows a node's details.
 */
import {
  Background,
  Controls,
  type Edge,
  Handle,
  MarkerType,
  type Node,
  type NodeHandle,
  type NodeProps,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useStore as useFlowStore,
  useReactFlow,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { dagViewport, labelScale, labelsReadable } from '../core/dagFit.ts';
import type { DagGraph, GraphEdge, GraphLane, GraphNode, GraphNodeData } from '../core/dagGraph.ts';
import { NODE_H, NODE_W } from '../core/dagGraph.ts';
import { activeNode, isArrowKey, nodeAfterKey, rowOfNode } from '../core/dagKeys.ts';
import { EDGE_BUDGET, edgesInView, type GraphRect, nodesInView, rectInView } from '../core/dagWindow.ts';
import { formatCount } from '../core/format.ts';
import { passColor } from '../core/passColors.ts';
import { useStore } from '../store/index.ts';
import { applyItem } from './applyItem.ts';
import { carriesItem, itemOf } from './dragItem.ts';

type OpNode = Node<GraphNodeData, 'op'>;
type LaneNode = Node<{ lane: GraphLane; width: number }, 'lane'>;

const LABEL_W = 190;

/** The handles' size in the stylesheet (.dag-node .react-flow__handle). */
const HANDLE = 4;

/**
 * Where an op node's handles sit, as React Flow would measure them. A node handed over with its
 * handles and size counts as measured: without them React Flow renders every new node of a graph
 * once, visible or not, to measure it (22,000 elements, 1.7 s of the page's time for DeepSeek-V3).
 */
const OP_HANDLES: NodeHandle[] = [
  {
    type: 'target',
    position: Position.Left,
    x: -HANDLE / 2,
    y: NODE_H / 2 - HANDLE / 2,
    width: HANDLE,
    height: HANDLE,
  },
  {
    type: 'source',
    position: Position.Right,
    x: NODE_W - HANDLE / 2,
    y: NODE_H / 2 - HANDLE / 2,
    width: HANDLE,
    height: HANDLE,
  },
];
const OP_SIZE = { width: NODE_W, height: NODE_H };

function targetOf(d: GraphNodeData) {
  return { id: d.firstId, tags: d.tags, devices: d.devices, ...(d.mesh ? { mesh: d.mesh } : {}) };
}

const OpNodeView = memo(function OpNodeView({ data }: NodeProps<OpNode>) {
  const [over, setOver] = useState(false);
  const hover = useStore((s) => s.hover);
  const isTarget = useStore((s) => s.target?.id === data.firstId);
  const color = passColor(data.colorKey);
  const comm = data.kind !== 'compute';
  return (
    <button
      type="button"
      // The canvas is the tab stop; arrow keys move between nodes (core/dagKeys.ts).
      tabIndex={-1}
      className={`dag-node${comm ? ' comm' : ''}${over ? ' drop-over' : ''}${isTarget ? ' is-target' : ''}${data.highlight ? ` hl-${data.highlight}` : ''}`}
      aria-label={`${data.label}${data.count > 1 ? ` ×${data.count}` : ''}`}
      title={`${data.label}${data.count > 1 ? ` ×${data.count}` : ''}`}
      data-testid="dag-node"
      data-node-id={data.firstId}
      data-op={data.op}
      style={{ width: NODE_W, height: NODE_H, borderColor: color, background: comm ? '#fff' : color }}
      onMouseEnter={() => hover(data)}
      onMouseLeave={() => hover(null)}
      onDragOver={(e) => {
        if (!carriesItem(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const item = itemOf(e);
        if (item) applyItem(item, targetOf(data));
      }}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="dag-node-label">{data.label}</span>
      {data.count > 1 && <span className="dag-node-count">×{data.count}</span>}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </button>
  );
});

const LaneNodeView = memo(function LaneNodeView({ data }: NodeProps<LaneNode>) {
  const toggle = useStore((s) => s.toggleStage);
  const { lane, width } = data;
  return (
    <div className="dag-lane" style={{ width: width + LABEL_W + 40, height: lane.height }}>
      <div className="dag-lane-title" title={lane.devices ?? lane.label}>
        {lane.label}
      </div>
      {lane.rows.map((r) => (
        <div key={r.key} className="dag-row" style={{ top: r.y - lane.y, height: r.height }}>
          {/* Within the label column: a long label is cut there (full on hover), never over an op. */}
          <div className="dag-row-head" style={{ width: LABEL_W - 16 }}>
            <span className="dag-row-label" title={r.label}>
              {r.label}
            </span>
            {r.ops > 1 && (
              <button
                type="button"
                className="dag-row-toggle nodrag"
                data-testid={`stage-toggle-${r.key}`}
                // The DAG is one tab stop: from the keyboard, Enter on an op of the stage toggles it.
                tabIndex={-1}
                onClick={() => toggle(r.key)}
                title={`${
                  r.expanded
                    ? 'collapse the microbatches of this stage'
                    : 'draw every microbatch of this stage'
                } (or Enter on one of its ops)`}
              >
                {r.expanded ? '▾ collapse' : `▸ ${r.ops} ops`}
              </button>
            )}
          </div>
        </div>
      ))}
    </div>
  );
});

const nodeTypes = { op: OpNodeView, lane: LaneNodeView };

/** One React Flow node per graph node, kept while the graph is: a node handed over again unchanged is not indexed again. */
const opNodes = new WeakMap<GraphNode, OpNode>();

function flowNodes(graph: DagGraph, shown: readonly GraphNode[]): Node[] {
  const nodes: Node[] = graph.lanes.map(
    (lane): LaneNode => ({
      id: lane.id,
      type: 'lane',
      position: { x: -LABEL_W, y: lane.y },
      data: { lane, width: graph.width },
      draggable: false,
      selectable: false,
      focusable: false,
      zIndex: -1,
      style: { pointerEvents: 'none' },
      handles: [],
      measured: { width: graph.width + LABEL_W + 40, height: lane.height },
    }),
  );
  for (const n of shown) {
    let node = opNodes.get(n);
    if (!node) {
      node = {
        id: n.id,
        type: 'op',
        position: { x: n.x, y: n.y },
        data: n.data,
        draggable: false,
        width: NODE_W,
        height: NODE_H,
        handles: OP_HANDLES,
        measured: OP_SIZE,
      } satisfies OpNode;
      opNodes.set(n, node);
    }
    nodes.push(node);
  }
  return nodes;
}

/**
 * Edges are drawn, not clicked: without the invisible 20 px stroke React Flow lays along each for
 * the pointer, the browser's first hit test after a new graph (any mouse move over the page) no
 * longer strokes every edge's outline (0.3 s for DeepSeek-V3's edges in view).
 */
function flowEdges(edges: readonly GraphEdge[]): Edge[] {
  return edges.map((e) =>
    e.kind === 'data'
      ? {
          id: e.id,
          source: e.source,
          target: e.target,
          className: 'edge-data',
          interactionWidth: 0,
          markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14, color: '#6b7480' },
        }
      : { id: e.id, source: e.source, target: e.target, className: 'edge-temporal', interactionWidth: 0 },
  );
}

/** Beyond this many ops, drawing every microbatch would not stay smooth: expand stages one by one. */
const EXPAND_ALL_LIMIT = 3000;

function StageControls({ graph }: { graph: DagGraph }) {
  const setExpanded = useStore((s) => s.setExpandedStages);
  const expanded = useStore((s) => s.expandedStages.length);
  const rows = graph.lanes.flatMap((l) => l.rows.map((r) => r.key));
  return (
    <div className="dag-tools">
      <span className="hint">
        {formatCount(graph.totalNodes)} ops · {graph.nodes.length} drawn
      </span>
      <button
        type="button"
        data-testid="expand-all"
        disabled={graph.totalNodes > EXPAND_ALL_LIMIT}
        title={
          graph.totalNodes > EXPAND_ALL_LIMIT
            ? `more than ${formatCount(EXPAND_ALL_LIMIT)} ops: expand stages one by one`
            : 'draw every microbatch of every stage'
        }
        onClick={() => setExpanded(rows)}
      >
        expand all
      </button>
      <button
        type="button"
        data-testid="collapse-all"
        disabled={expanded === 0}
        onClick={() => setExpanded([])}
      >
        collapse all
      </button>
    </div>
  );
}

/** Keeps the node the arrow keys moved to on screen, at the zoom the user chose. */
function FollowKeys({ node }: { node: GraphNode | null }) {
  const flow = useReactFlow();
  useEffect(() => {
    if (node)
      void flow.setCenter(node.x + NODE_W / 2, node.y + NODE_H / 2, { zoom: Math.max(flow.getZoom(), 0.6) });
  }, [node, flow]);
  return null;
}

/**
 * What the pane's own tools cover, all along its top: the op counter strip (.dag-tools: 8 px from
 * the top, 24 px tall) on the right and React Flow's zoom buttons in a row on the left (15 px from
 * the edges, 26 px tall: @xyflow/react's .react-flow__panel and .react-flow__controls-button).
 * The graph is fitted below them, so neither covers a lane's or a row's label.
 */
const PANE_TOOLS = { top: Math.max(8 + 24, 15 + 26) + 4, left: 0 };

/**
 * Fits the graph again when its shape or the pane's size changes (an edit that adds a column, the
 * split moved): a new result of the same shape keeps the user's zoom and pan.
 */
function FitOnChange({
  graph,
  onFit,
}: {
  graph: DagGraph | null;
  onFit(view: GraphRect, pane: { width: number; height: number }): void;
}) {
  const flow = useReactFlow();
  const width = useFlowStore((s) => s.width);
  const height = useFlowStore((s) => s.height);
  const zoom = useFlowStore((s) => s.transform[2]);
  const domNode = useFlowStore((s) => s.domNode);
  // Labels grow in graph units as the view zooms out (a style variable: no node re-renders).
  useEffect(() => {
    domNode?.style.setProperty('--dag-label-scale', labelScale(zoom).toFixed(3));
    domNode?.setAttribute('data-zoom', zoom.toFixed(3));
    // Too small to read: the outline only, each label in full on hover.
    domNode?.setAttribute('data-labels', labelsReadable(zoom) ? 'shown' : 'hover');
  }, [zoom, domNode]);
  const key = graph ? `${graph.width}x${graph.height}:${graph.nodes.length}:${graph.lanes.length}` : '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: the graph counts by its shape (key)
  useEffect(() => {
    if (!graph || width === 0 || height === 0) return;
    const bounds = { x: -LABEL_W, y: 0, width: graph.width + LABEL_W + 40, height: graph.height };
    const viewport = dagViewport(bounds, { width, height }, 16, PANE_TOOLS);
    void flow.setViewport(viewport);
    onFit(rectInView(viewport, width, height), { width, height });
  }, [key, width, height, flow]);
  return null;
}

export function DagCanvas() {
  const final = useStore((s) => s.graph);
  const passView = useStore((s) => s.passView);
  // The timeline updates first; the canvas follows in a render React may interrupt.
  const graph = useDeferredValue(passView ? passView.graph : final);
  // A big graph's edges and nodes are handed over near the view only (dagWindow.ts).
  const [view, setView] = useState<GraphRect | null>(null);
  const pane = useRef({ width: 0, height: 0 });
  const shownEdges = useMemo(() => (graph ? edgesInView(graph.edges, graph.nodes, view) : []), [graph, view]);
  const nodes = useMemo(
    () => (graph ? flowNodes(graph, nodesInView(graph.nodes, graph.edges.length, shownEdges, view)) : []),
    [graph, shownEdges, view],
  );
  const edges = useMemo(() => flowEdges(shownEdges), [shownEdges]);
  const big = (graph?.edges.length ?? 0) > EDGE_BUDGET;
  const target = useStore((s) => s.target);
  const setTarget = useStore((s) => s.setTarget);
  const toggleStage = useStore((s) => s.toggleStage);
  const [keyed, setKeyed] = useState<GraphNode | null>(null);
  // The layout follows its result: until it comes, the DAG on screen is the previous edit's.
  const behind = useStore((s) => !s.passView && s.graphRevision !== s.resultRevision);
  return (
    <div
      className="dag-canvas"
      data-testid="dag-canvas"
      data-selected-node={target?.id ?? ''}
      aria-busy={behind}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: one tab stop for the whole DAG, whose nodes the arrow keys walk
      tabIndex={0}
      role="application"
      aria-label="DAG: arrow keys move between ops, Enter expands or collapses the op's stage, Escape clears the selection"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && target) {
          setTarget(null);
          return;
        }
        if (e.key === 'Enter' && graph && e.target === e.currentTarget) {
          const node = activeNode(graph.nodes, target?.id ?? null);
          const row = node && rowOfNode(graph.lanes, node);
          if (row && row.ops > 1) {
            e.preventDefault();
            toggleStage(row.key);
          }
          return;
        }
        if (!graph || !isArrowKey(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
        const next = nodeAfterKey(graph.nodes, target?.id ?? null, e.key);
        if (!next) return;
        e.preventDefault();
        setTarget(targetOf(next.data));
        setKeyed(next);
      }}
    >
      {graph && <StageControls graph={graph} />}
      {passView && (
        <div className="dag-banner">
          DAG after <b>{passView.pass}</b> · <span className="hl-key added">added</span>{' '}
          <span className="hl-key changed">changed</span>
        </div>
      )}
      <ReactFlowProvider>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          onlyRenderVisibleElements
          nodesDraggable={false}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable
          minZoom={0.03}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
          onNodeClick={(_, n) => {
            if (n.type !== 'op') return;
            setTarget(targetOf(n.data as unknown as GraphNodeData));
          }}
          onPaneClick={() => setTarget(null)}
          onMoveEnd={(_, viewport) => {
            if (big) setView(rectInView(viewport, pane.current.width, pane.current.height));
          }}
        >
          <FitOnChange
            graph={graph}
            onFit={(v, size) => {
              pane.current = size;
              setView(v);
            }}
          />
          <Background gap={24} size={1} color="#e3e6ea" />
          <Controls showInteractive={false} position="top-left" orientation="horizontal" />
          <FollowKeys node={keyed} />
        </ReactFlow>
      </ReactFlowProvider>
      {!graph && (
        <div className="dag-empty">{passView ? 'computing the DAG after this pass…' : 'compiling…'}</div>
      )}
    </div>
  );
}
