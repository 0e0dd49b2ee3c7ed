/**
 * What keeps a design's program out of an engine's format, read from the program alone: the one
 * rule the exporters refuse by (piperProgram.ts, torchExport.ts) and the designer's export menu
 * greys its formats by, so the menu never offers a file the server then refuses.
 */
import { formatPath, type Issue } from '@stagecraft/ir';
import type { ExpandedDirective } from '../driver/compileTypes.ts';

/** Stagecraft directives Piper has no op for, and why a program cannot simply leave them out. */
const NO_PIPER_OP: Partial<Record<string, string>> = {
  recompute: 'recompute has no Piper op',
  offload: 'offload has no Piper op',
  shard_sequence:
    "shard_sequence (context parallelism) has no Piper op: Piper's six split no sequence, and a program without it would run every member on the whole sequence",
};

/** Directives torch.distributed.pipelining cannot run: it runs a pure pipeline. */
const NOT_PIPELINE_OPS: Partial<Record<string, string>> = {
  shard: 'expert parallelism (shard) exchanges tokens all-to-all inside a stage',
  shard_tensor: 'tensor parallelism (shard_tensor) splits a stage across devices',
  shard_sequence:
    'context parallelism (shard_sequence) splits each sequence across devices and exchanges K/V among them',
};

/** Why the program has no Piper program, at the directive, or undefined. */
export function piperRefusal(program: readonly ExpandedDirective[]): Issue | undefined {
  for (const e of program) {
    const d = e.directive;
    const reason = NO_PIPER_OP[d.op];
    if (reason) return { path: formatPath(e.path), message: reason };
    // Piper's shard_tensor all-reduces each block's output and sends it whole.
    const option =
      d.op !== 'shard_tensor'
        ? undefined
        : d.sequence_parallel !== undefined
          ? 'sequence_parallel'
          : d.scatter_gather_sends !== undefined
            ? 'scatter_gather_sends'
            : d.comm_overlap !== undefined
              ? 'comm_overlap'
              : undefined;
    if (option)
      return {
        path: formatPath([...e.path, option]),
        message: `Piper's shard_tensor all-reduces each block's output and sends it whole; it has no ${option} option`,
      };
  }
  return undefined;
}

/** Why torch.distributed.pipelining cannot run the program, at the directive, or undefined. */
export function torchRefusal(program: readonly ExpandedDirective[]): Issue | undefined {
  const where = (e: ExpandedDirective) => formatPath(['directives', e.source]);
  for (const e of program) {
    const reason = NOT_PIPELINE_OPS[e.directive.op];
    if (reason)
      return { path: where(e), message: `torch.distributed.pipelining runs a pure pipeline: ${reason}` };
  }
  const splits = program.filter((e) => e.directive.op === 'split');
  const dims = splits.map((e) => (e.directive as { dim_name: string }).dim_name);
  if (dims.length > 1) {
    const dual = dims.includes('DIR')
      ? ' DualPipe runs two copies of the model in opposite directions, which torch cannot express; dualpipev is its one-copy form.'
      : '';
    return {
      path: where(splits[1]!),
      message: `torch schedules split the step along one microbatch dimension; this design splits along ${dims.join(' and ')}.${dual}`,
    };
  }
  return undefined;
}
