/**
 * What passes declare of the context against what they do with it. A pass declares the context
 * fields it sets (`Pass.writes`) and reads (`Pass.reads`); `unwrittenReads` checks a pass order
 * against those declarations (each field read is set by an earlier pass), and `runWatched` runs a
 * pass on a context that notes every field it touches, so a test can hold each declaration to
 * what the pass does. Neither runs in a compile: the declarations are checked by tests, once.
 */
import type { Dag } from '@stagecraft/ir';
import type { ContextField, Pass, PassContext, PassInput } from './pass.ts';

/** Every context field, by the type's keys: a field added to `ContextState` must be added here. */
const FIELDS: Record<ContextField, true> = {
  partition: true,
  streamOrder: true,
  plan: true,
  planOps: true,
  planColumns: true,
};

function isContextField(key: PassInput | string | symbol): key is ContextField {
  return typeof key === 'string' && Object.hasOwn(FIELDS, key);
}

/** For each context field a pass reads that no pass before it in `passes` writes, a message. */
export function unwrittenReads(passes: readonly Pass[]): string[] {
  const written = new Set<ContextField>();
  const problems: string[] = [];
  for (const pass of passes) {
    for (const r of pass.reads)
      if (isContextField(r) && !written.has(r))
        problems.push(`pass ${pass.name} reads ctx.${r}, which no pass before it writes`);
    for (const w of pass.writes) written.add(w);
  }
  return problems;
}

/**
 * Runs `pass` as the pass manager would, on a view of `ctx` that notes which context fields it
 * reads and sets; answers its DAG and, for each field it touched without declaring it, a message.
 */
export function runWatched(pass: Pass, dag: Dag, ctx: PassContext): { dag: Dag; undeclared: string[] } {
  const read = new Set<ContextField>();
  const wrote = new Set<ContextField>();
  const watched = new Proxy(ctx, {
    get(target, key) {
      if (isContextField(key)) read.add(key);
      return Reflect.get(target, key);
    },
    set(target, key, value) {
      if (isContextField(key)) wrote.add(key);
      return Reflect.set(target, key, value);
    },
  });
  const out = pass.run(dag, watched);
  const undeclared: string[] = [];
  for (const f of wrote)
    if (!pass.writes.includes(f))
      undeclared.push(`pass ${pass.name} sets ctx.${f} but does not declare it in writes`);
  for (const f of read)
    if (!pass.reads.includes(f) && !pass.writes.includes(f))
      undeclared.push(`pass ${pass.name} reads ctx.${f} but does not declare it in reads`);
  return { dag: out, undeclared };
}
