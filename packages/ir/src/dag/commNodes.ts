/**
 * Constructors of collective and memory nodes, one shape per kind (see the note on the node
 * constructors in dag.ts).
 */
import type { CollectiveNode, MemoryNode } from './dag.ts';

export function collectiveNode(n: Omit<CollectiveNode, 'kind'>): CollectiveNode {
  return {
    kind: 'collective',
    op: n.op,
    id: n.id,
    block: n.block,
    dims: n.dims,
    group: n.group,
    stream: n.stream,
    provenance: n.provenance,
    devices: n.devices,
    bytes: n.bytes,
  };
}

export function memoryNode(n: Omit<MemoryNode, 'kind'>): MemoryNode {
  return {
    kind: 'memory',
    op: n.op,
    id: n.id,
    block: n.block,
    dims: n.dims,
    group: n.group,
    stream: n.stream,
    provenance: n.provenance,
    bytes: n.bytes,
  };
}
