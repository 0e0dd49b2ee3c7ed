/**
 * Kahn's sweep over a wait graph given as edges (dependent waits for dependency), in flat arrays
 * since plans run to hundreds of thousands of instructions. Plan validation asks only whether
 * every node can run; the diagnosis then walks the waits left unmet to name the cycle.
 */

/** Each node's waits still unmet once nothing more can run, or null when every node runs. */
export function blockedWaits(
  total: number,
  dependent: ArrayLike<number>,
  dependency: ArrayLike<number>,
  m: number,
): Int32Array | null {
  const off = new Int32Array(total + 1);
  const indeg = new Int32Array(total);
  for (let e = 0; e < m; e++) {
    off[dependency[e]! + 1]!++;
    indeg[dependent[e]!]!++;
  }
  for (let v = 0; v < total; v++) off[v + 1]! += off[v]!;
  const fill = off.slice(0, total);
  const users = new Int32Array(m);
  for (let e = 0; e < m; e++) users[fill[dependency[e]!]!++] = dependent[e]!;
  const stack = new Int32Array(total);
  let top = 0;
  for (let v = 0; v < total; v++) if (indeg[v] === 0) stack[top++] = v;
  let done = 0;
  while (top > 0) {
    const v = stack[--top]!;
    done++;
    for (let k = off[v]!; k < off[v + 1]!; k++) if (--indeg[users[k]!]! === 0) stack[top++] = users[k]!;
  }
  return done === total ? null : indeg;
}
