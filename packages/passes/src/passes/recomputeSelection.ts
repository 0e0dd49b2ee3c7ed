/**
 * Selective recomputation (`recompute` with `ops`): of each matched block, only the named parts are
 * dropped from the stash and re-made before the backward, as DeepSeek-V3 re-runs its RMSNorms and
 * MLA up-projections (arXiv 2412.19437, §3.2.3) and its SwiGLUs (§3.3.3) while keeping every other
 * activation. A block carries one selection: its RECOMPUTE ops are timed by it (the selected
 * GEMMs and launches), so two directives recomputing one block differently are refused.
 */
import {
  type BlockInfo,
  CompileError,
  formatPath,
  gemmFlops,
  type PathSegment,
  type RecomputePart,
} from '@stagecraft/ir';

/** What a block's RECOMPUTE re-runs under a selection, and the stash bytes it re-makes. */
export interface BlockSelection {
  info: NonNullable<BlockInfo['recomputeSelection']>;
  bytes: number;
}

/** The parts of `ops` block `b` has, as its RECOMPUTE runs them; undefined when it has none. */
export function blockSelection(b: BlockInfo, ops: readonly RecomputePart[]): BlockSelection | undefined {
  const parts = ops.flatMap((op) => {
    const cost = b.recomputeParts?.[op];
    return cost === undefined ? [] : [{ op, cost }];
  });
  if (parts.length === 0) return undefined;
  const gemms = parts
    .flatMap(({ cost }) => cost.gemms.map((i) => b.kernels?.gemms[i]))
    .filter((g) => g !== undefined);
  const launches = parts.reduce((a, { cost }) => a + cost.launches, 0);
  const bytes = parts.reduce((a, { cost }) => a + cost.bytes, 0);
  const traffic = parts.reduce((a, { cost }) => a + (cost.elementwiseBytes ?? 0), 0);
  const info: BlockSelection['info'] = { ops: parts.map((p) => p.op), flops: gemmFlops(gemms) };
  if (b.kernels)
    info.kernels = {
      gemms,
      otherLaunches: { F: launches, BI: 0, BW: 0 },
      dtype: b.kernels.dtype,
      // Only the forward runs again; the parts' bytes are one class (they are already divided).
      ...(b.kernels.elementwiseBytes === undefined
        ? {}
        : { elementwiseBytes: { sequence: { F: traffic, BI: 0, BW: 0 }, split: { F: 0, BI: 0, BW: 0 } } }),
    };
  return { info, bytes };
}

/** Which directive set each block's selection (full recomputation: ops undefined), to refuse a second one. */
export class BlockSelections {
  private readonly by = new Map<number, { ops: string; path: readonly PathSegment[] }>();

  claim(
    block: number,
    name: string,
    ops: readonly RecomputePart[] | undefined,
    path: readonly PathSegment[],
  ): void {
    const key = ops === undefined ? 'the whole forward' : `ops [${ops.join(', ')}]`;
    const before = this.by.get(block);
    if (before === undefined) {
      this.by.set(block, { ops: key, path });
      return;
    }
    if (before.ops !== key)
      throw new CompileError({
        path: formatPath([...path, ops === undefined ? 'filter' : 'ops']),
        message: `block ${block} (${name}) is recomputed with ${before.ops} by ${formatPath(before.path)}; one block is recomputed one way`,
      });
  }
}

/** A selection that names parts no matched block has is an error at `ops`, not a silent no-op. */
export function refuseUnmatchedParts(
  ops: readonly RecomputePart[],
  seen: ReadonlySet<RecomputePart>,
  path: readonly PathSegment[],
): void {
  ops.forEach((op, i) => {
    if (!seen.has(op))
      throw new CompileError({
        path: formatPath([...path, 'ops', i]),
        message: `no block the filter matches has a ${op} to recompute${op === 'mla_up_projection' ? ' (only multi-head latent attention has up-projections)' : ''}`,
      });
  });
}
