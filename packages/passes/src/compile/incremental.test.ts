import { type Dag, type Design, type Directive, tableOf } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { CompileResult } from '../driver/compileTypes.ts';
import { compile } from './compile.ts';
import { compileIncremental, type IncrementalState } from './incremental.ts';

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A design whose program is the expansion of a schedule, written out as Piper directives. */
function expandedDesign(builder: string, p: number, m: number): Design {
  const macro: Design = {
    format: 'stagecraft/design@1',
    name: `${builder} p=${p} m=${m}`,
    model: {
      kind: 'synthetic',
      stages: p,
      costs: { F: 1, BI: 1, BW: 1 },
      activationBytes: 1024,
      outputBytes: 64,
    },
    cluster: { kind: 'ideal', devices: p },
    directives: [{ op: 'schedule', builder: builder as 'gpipe', microbatches: m }],
  };
  const r = compile(macro, { keepSnapshots: false });
  if (!r.ok) throw new Error(`${builder} p=${p} m=${m}: ${r.errors[0]!.message}`);
  return { ...macro, directives: r.program.map((e) => e.directive) };
}

type Edit =
  | { kind: 'microbatches'; delta: number }
  | { kind: 'swap-slots'; at: number; i: number; j: number }
  | { kind: 'move-place'; at: number; device: number }
  | { kind: 'toggle'; at: number }
  | { kind: 'remove'; at: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'stream'; name: string; priority: number }
  | { kind: 'split-backward'; pp: number }
  | { kind: 'recompute'; pp: number }
  | { kind: 'offload'; pp: number }
  | { kind: 'replicate'; at: number; zero: 0 | 2 | 3 }
  | { kind: 'rename'; name: string }
  | { kind: 'costs'; F: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('microbatches' as const), delta: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ kind: fc.constant('swap-slots' as const), at: fc.nat(40), i: fc.nat(40), j: fc.nat(40) }),
  fc.record({ kind: fc.constant('move-place' as const), at: fc.nat(40), device: fc.nat(4) }),
  fc.record({ kind: fc.constant('toggle' as const), at: fc.nat(40) }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat(40) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(40) }),
  fc.record({
    kind: fc.constant('stream' as const),
    name: fc.constantFrom('p2p', 'compute', 'comm'),
    priority: fc.integer({ min: -2, max: 2 }),
  }),
  fc.record({ kind: fc.constant('split-backward' as const), pp: fc.nat(4) }),
  fc.record({ kind: fc.constant('recompute' as const), pp: fc.nat(4) }),
  fc.record({ kind: fc.constant('offload' as const), pp: fc.nat(4) }),
  fc.record({ kind: fc.constant('replicate' as const), at: fc.nat(40), zero: fc.constantFrom(0, 2, 3) }),
  fc.record({ kind: fc.constant('rename' as const), name: fc.constantFrom('a', 'b', 'c') }),
  fc.record({ kind: fc.constant('costs' as const), F: fc.constantFrom(1, 2) }),
);

function apply(design: Design, e: Edit): Design {
  const d = clone(design);
  const ds = d.directives;
  const pick = <T extends Directive['op']>(op: T, at: number) => {
    const of = ds.filter((x: Directive) => x.op === op) as Extract<Directive, { op: T }>[];
    return of.length > 0 ? of[at % of.length] : undefined;
  };
  switch (e.kind) {
    case 'microbatches': {
      const s = pick('split', 0);
      if (s) s.num_microbatches = Math.max(1, s.num_microbatches + e.delta);
      break;
    }
    case 'swap-slots': {
      const o = pick('order', e.at);
      if (o && o.filters.length > 1) {
        const i = e.i % o.filters.length;
        const j = e.j % o.filters.length;
        [o.filters[i], o.filters[j]] = [o.filters[j]!, o.filters[i]!];
      }
      break;
    }
    case 'move-place': {
      const pl = pick('place', e.at);
      if (pl) pl.devices = [e.device];
      break;
    }
    case 'toggle':
      if (ds.length > 0) {
        const x = ds[e.at % ds.length]!;
        x.enabled = x.enabled === false;
      }
      break;
    case 'remove':
      if (ds.length > 0) ds.splice(e.at % ds.length, 1);
      break;
    case 'duplicate':
      if (ds.length > 0) ds.splice(e.at % ds.length, 0, clone(ds[e.at % ds.length]!));
      break;
    case 'stream':
      ds.push({ op: 'stream', name: e.name, priority: e.priority });
      break;
    case 'split-backward':
      ds.splice(1, 0, { op: 'split_backward', filter: { PP: e.pp } });
      break;
    case 'recompute':
      ds.push({ op: 'recompute', filter: { PP: e.pp } });
      break;
    case 'offload':
      ds.push({ op: 'offload', filter: { PP: e.pp } });
      break;
    case 'replicate': {
      // Data parallel over the devices of one stage's placement, as a user would drop it.
      const pl = pick('place', e.at);
      if (pl)
        ds.push({
          op: 'replicate',
          filter: pl.filter,
          devices: pl.devices,
          ...(e.zero >= 2 ? { shard_grads: true } : {}),
          ...(e.zero === 3 ? { shard_params: true } : {}),
        });
      break;
    }
    case 'rename':
      d.name = e.name;
      break;
    case 'costs':
      d.model = { ...d.model, costs: { F: e.F, BI: 1, BW: 1 } } as Design['model'];
      break;
  }
  return d;
}

/** What a user of a compile sees: everything but the timings. */
function observable(r: CompileResult) {
  const snapshots = r.snapshots.map((s) => ({ pass: s.pass, dag: s.dag }));
  return r.ok
    ? { ok: true, plan: r.plan, dag: r.dag, program: r.program, ops: r.ops, snapshots }
    : { ok: false, errors: r.errors, snapshots };
}

/**
 * A copy of every DAG the state keeps, columns included: if a later compile wrote into a DAG a
 * pass had returned, the DAG would no longer equal its copy.
 */
function kept(state: IncrementalState): { dag: Dag; copy: unknown }[] {
  const dags: Dag[] = [
    ...state.steps.map((s) => s.input),
    ...state.head.flatMap((h) => (h.dag ? [h.dag] : [])),
  ];
  return dags.map((dag) => ({ dag, copy: deepCopy(contents(dag)) }));
}

function deepCopy(v: unknown): unknown {
  if (ArrayBuffer.isView(v)) return (v as Int32Array).slice();
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, deepCopy(x)]));
  if (Array.isArray(v)) return v.map(deepCopy);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepCopy(x)]));
  return v;
}

function contents(dag: Dag): unknown {
  const { nodes: _nodes, ...parts } = dag;
  return { parts, table: { ...tableOf(dag) } };
}
const base = fc.record({
  builder: fc.constantFrom('gpipe', '1f1b', 'zb-h1', 'interleaved-1f1b'),
  p: fc.integer({ min: 2, max: 4 }),
  extra: fc.integer({ min: 0, max: 3 }),
});

describe('compileIncremental', () => {
  test('after any sequence of edits it answers exactly what a full compile answers', () => {
    fc.assert(
      fc.property(base, fc.array(edit, { minLength: 1, maxLength: 6 }), ({ builder, p, extra }, edits) => {
        const m = builder === 'interleaved-1f1b' ? p * 2 : p + extra;
        const design =
          builder === 'interleaved-1f1b'
            ? {
                ...expandedDesign('1f1b', p, m),
                directives: [
                  { op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: 1 } as Directive,
                ],
              }
            : expandedDesign(builder, p, m);
        let state: IncrementalState | undefined;
        let current = design;
        let before: { dag: Dag; copy: unknown }[] = [];
        for (const e of [undefined, ...edits]) {
          if (e) current = apply(current, e);
          const inc = compileIncremental(current, state);
          expect(observable(inc.result)).toEqual(observable(compile(current)));
          for (const { dag, copy } of before) expect(contents(dag)).toEqual(copy);
          state = inc.state;
          before = kept(state);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('an edit of the last order directive reuses the passes before split-backward', () => {
    const design = expandedDesign('1f1b', 4, 8);
    const first = compileIncremental(design, undefined);
    const edited = apply(design, { kind: 'swap-slots', at: 3, i: 0, j: 0 });
    (edited.directives.at(-1) as Extract<Directive, { op: 'order' }>).filters.reverse();
    const again = compileIncremental(edited, first.state);
    expect(again.rerunFrom).toBe('split-backward');
    expect(again.reused).toBe(2);
  });

  test('a stream directive reruns from the streams pass; a rename only from lower-plan', () => {
    const design = expandedDesign('1f1b', 4, 8);
    const first = compileIncremental(design, undefined);
    const stream = compileIncremental(
      apply(design, { kind: 'stream', name: 'p2p', priority: 1 }),
      first.state,
    );
    expect(stream.rerunFrom).toBe('streams');
    const renamed = compileIncremental({ ...design, name: 'renamed' }, first.state);
    expect(renamed.rerunFrom).toBe('lower-plan');
    expect(renamed.result.ok && renamed.result.plan.name).toBe('renamed');
  });

  test('the same design again reuses every pass; a model change compiles from scratch', () => {
    const design = expandedDesign('gpipe', 2, 4);
    const first = compileIncremental(design, undefined);
    const same = compileIncremental(clone(design), first.state);
    expect(same.rerunFrom).toBeUndefined();
    const model = compileIncremental(apply(design, { kind: 'costs', F: 2 }), first.state);
    expect(model.reused).toBe(0);
  });

  test('after a failed compile, fixing the directive reruns from the pass that failed at the latest', () => {
    const design = expandedDesign('1f1b', 2, 4);
    const broken = clone(design);
    (broken.directives.at(-1) as Extract<Directive, { op: 'order' }>).filters[0] = [
      { PP: 1, MB: 9, PASS: 'F' },
    ];
    const failed = compileIncremental(broken, undefined);
    expect(failed.result.ok).toBe(false);
    const fixed = compileIncremental(design, failed.state);
    expect(fixed.result.ok).toBe(true);
    expect(observable(fixed.result)).toEqual(observable(compile(design)));
  });
});
