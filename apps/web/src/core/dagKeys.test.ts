import { describe, expect, it } from 'vitest';
import type { GraphNode } from './dagGraph.ts';
import { nodeAfterKey, rowOfNode } from './dagKeys.ts';

const node = (id: string, x: number, y: number): GraphNode => ({
  id,
  x,
  y,
  data: { firstId: `${id}-first` } as GraphNode['data'],
});

// Two rows: a b c on top, d e below (e sits under c).
const nodes = [node('b', 100, 0), node('a', 0, 0), node('c', 200, 0), node('d', 0, 50), node('e', 190, 50)];

describe('arrow keys on the DAG', () => {
  it('start at the top-left node when nothing is active', () => {
    expect(nodeAfterKey(nodes, null, 'ArrowRight')?.id).toBe('a');
  });

  it('move along the row by x with left and right, and stop at its ends', () => {
    expect(nodeAfterKey(nodes, 'a', 'ArrowRight')?.id).toBe('b');
    expect(nodeAfterKey(nodes, 'b', 'ArrowLeft')?.id).toBe('a');
    expect(nodeAfterKey(nodes, 'c', 'ArrowRight')?.id).toBe('c');
  });

  it('go to the nearest node of the next row with up and down', () => {
    expect(nodeAfterKey(nodes, 'c', 'ArrowDown')?.id).toBe('e');
    expect(nodeAfterKey(nodes, 'd', 'ArrowUp')?.id).toBe('a');
    expect(nodeAfterKey(nodes, 'd', 'ArrowDown')?.id).toBe('d');
  });

  it('find the active node by the id of its first member too (a collapsed node)', () => {
    expect(nodeAfterKey(nodes, 'b-first', 'ArrowRight')?.id).toBe('c');
  });

  it('find the stage row a node is drawn in, for Enter to expand or collapse', () => {
    const row = (key: string, y: number) => ({ key, label: key, y, height: 40, expanded: false, ops: 8 });
    const lanes = [{ id: 'l', label: 'l', y: 0, height: 80, rows: [row('0:a', 0), row('0:b', 40)] }];
    expect(rowOfNode(lanes, nodes[0]!)?.key).toBe('0:a');
    expect(rowOfNode(lanes, nodes[3]!)?.key).toBe('0:b');
    expect(rowOfNode(lanes, node('far', 0, 500))).toBeUndefined();
  });
});
