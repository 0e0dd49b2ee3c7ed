/**
 * Property: a pass never writes what an earlier pass returned. Passes share columns and append
 * rows in place past the ones their input uses (ir/columns.ts), so a later pass writing an
 * earlier DAG's rows would change a snapshot the user inspects, or the input an incremental
 * compile resumes from. Every DAG of a compile is copied the moment its pass returns it and
 * compared with the copy once every pass has run, over random schedules and parallelisms.
 */
import {
  CompileError,
  type Dag,
  type Design,
  type Directive,
  FRESH,
  type SyntheticBlock,
  tableOf,
} from '@stagecraft/ir';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { PASSES } from './compile/pipeline.ts';
import type { PassContext } from './driver/pass.ts';
import { lowerModel, stageValues } from './model/lowerModel.ts';
import { buildDag } from './passes/buildDag.ts';
import { expandProgram } from './passes/expandSchedule.ts';

function deepCopy(v: unknown): unknown {
  if (ArrayBuffer.isView(v)) return (v as Int32Array).slice();
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, deepCopy(x)]));
  if (Array.isArray(v)) return v.map(deepCopy);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepCopy(x)]));
  return v;
}

/** Everything a DAG holds, its columns included, without making its node objects. */
function contents(dag: Dag): unknown {
  const { blocks, dims, groups, edges, overlaps, streams, dataParallel, tensorParallel, meshes, subgroups } =
    dag;
  return deepCopy({
    blocks,
    dims,
    groups,
    edges,
    overlaps,
    streams,
    dataParallel,
    tensorParallel,
    meshes,
    subgroups,
    table: { ...tableOf(dag) },
  });
}

function design(builder: string, stages: number, size: number, m: number, extra: readonly string[]): Design {
  const blocks: SyntheticBlock[] = [];
  for (let s = 0; s < stages; s++) {
    blocks.push({
      tags: { PP: s, TP: 0 },
      F: 1,
      BI: 1,
      BW: 1,
      activationBytes: 100,
      paramBytes: 1000,
      outputBytes: 10,
    });
    blocks.push({
      tags: { PP: s, EP: 0 },
      F: 1,
      BI: 1,
      BW: 1,
      activationBytes: 100,
      paramBytes: 2000,
      outputBytes: 10,
      experts: 12,
      topK: 2,
    });
  }
  const group = (s: number) => Array.from({ length: size }, (_, i) => s * size + i);
  const groups = Array.from({ length: stages }, (_, s) => group(s));
  const directives: Directive[] = [{ op: 'schedule', builder: builder as 'gpipe', microbatches: m, groups }];
  for (let s = 0; s < stages; s++) {
    if (extra.includes('tp'))
      directives.push({ op: 'shard_tensor', filter: { PP: s, TP: '*' }, devices: group(s) });
    if (extra.includes('zero3'))
      directives.push({ op: 'replicate', filter: { PP: s }, devices: group(s), shard_params: true });
    else if (extra.includes('dp') && !extra.includes('tp'))
      directives.push({ op: 'replicate', filter: { PP: s }, devices: group(s), shard_grads: true });
    if (extra.includes('ep')) directives.push({ op: 'shard', filter: { PP: s, EP: '*' }, devices: group(s) });
  }
  if (extra.includes('recompute')) directives.push({ op: 'recompute', filter: { PP: 0 } });
  if (extra.includes('offload')) directives.push({ op: 'offload', filter: { PP: stages - 1 } });
  if (extra.includes('split_backward')) directives.push({ op: 'split_backward', filter: {} });
  return {
    format: 'stagecraft/design@1',
    name: 'immutability',
    model: { kind: 'synthetic', blocks, tokensPerMicrobatch: 128 },
    cluster: { kind: 'ideal', devices: stages * size },
    directives,
  };
}

test('no pass writes a DAG an earlier pass returned', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('gpipe', '1f1b', 'zb-h1', 'zb-h2'),
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom(1, 2),
      fc.integer({ min: 1, max: 5 }),
      fc.subarray(['tp', 'dp', 'zero3', 'ep', 'recompute', 'offload', 'split_backward']),
      (builder, stages, size, m, extra) => {
        const d = design(builder, stages, size, m, extra);
        const ctx: PassContext = {
          design: d,
          options: { maxOps: 1e6, keepSnapshots: true },
          scratch: FRESH,
          program: [],
        };
        const kept: { dag: Dag; copy: unknown }[] = [];
        try {
          const blocks = lowerModel(d.model);
          ctx.program = expandProgram(ctx, stageValues(blocks), blocks.length);
          let dag = buildDag(blocks);
          kept.push({ dag, copy: contents(dag) });
          for (const pass of PASSES) {
            const next = pass.run(dag, ctx);
            if (next !== dag) kept.push({ dag: next, copy: contents(next) });
            dag = next;
          }
        } catch (e) {
          // A design the compiler refuses still ran its passes up to the refusal.
          if (!(e instanceof CompileError)) throw e;
        }
        for (const { dag, copy } of kept) expect(contents(dag)).toEqual(copy);
      },
    ),
    { numRuns: 80 },
  );
});
