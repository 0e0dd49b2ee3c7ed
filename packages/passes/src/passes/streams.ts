/** `stream` directives: resource knobs (priority, SM share) of a logical stream, carried to the plan. */
import type { StreamSpec } from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';

export const streamsPass: Pass = {
  name: 'streams',
  reads: ['stream'],
  writes: [],
  run(dag, ctx) {
    const specs = directivesOf(ctx.program, 'stream');
    if (specs.length === 0) return dag;
    const byName = new Map<string, StreamSpec>(dag.streams.map((s) => [s.name, s]));
    for (const { d } of specs) {
      const spec: StreamSpec = { ...byName.get(d.name), name: d.name };
      if (d.priority !== undefined) spec.priority = d.priority;
      if (d.smFraction !== undefined) spec.smFraction = d.smFraction;
      byName.set(d.name, spec);
    }
    const next = rewritten(dag, ctx, { streams: [...byName.values()] });
    NodeIndex.carry(dag, next);
    return next;
  },
};
