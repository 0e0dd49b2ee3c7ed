/**
 * Whether a palette item can apply to a target at all, asked before any question about it: a
 * region the compiled DAG already splits tensor-parallel takes no second shard_tensor (the
 * shard-tensor pass refuses it: "block … is already tensor parallel"), so the item is greyed with
 * that reason instead of asking for an axis and then failing.
 */
import type { Dag } from '@stagecraft/ir';
import { deviceGroupSummary } from './deviceList.ts';

const nodeIndexes = new WeakMap<Dag, Map<string, number>>();

function nodeIndex(dag: Dag, id: string): number | undefined {
  let m = nodeIndexes.get(dag);
  if (!m) {
    m = new Map(dag.nodes.map((n, i) => [n.id, i]));
    nodeIndexes.set(dag, m);
  }
  return m.get(id);
}

/** Why `item` cannot apply to the op `id` of this DAG, or null when it can. */
export function itemRefusal(item: string, dag: Dag, id: string): string | null {
  if (item !== 'shard_tensor') return null;
  const i = nodeIndex(dag, id);
  const node = i === undefined ? undefined : dag.nodes[i];
  if (!node || node.block < 0) return null;
  const region = dag.tensorParallel?.find((r) => r.group === node.group && r.blocks.includes(node.block));
  if (!region) return null;
  const devices = dag.groups[node.group] ?? [];
  return `shard tensor: ${dag.blocks[node.block]?.name ?? `block ${node.block}`} is already tensor parallel on ${deviceGroupSummary(devices)}; edit the shard_tensor directive that splits it instead`;
}
