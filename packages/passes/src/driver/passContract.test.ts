import { type Dag, type Design, FRESH, lend } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../../test/repoFiles.ts';
import { DEFAULT_MAX_OPS, expandAndBuild, PASSES } from '../compile/pipeline.ts';
import type { PassSnapshot } from './compileTypes.ts';
import type { Pass, PassContext } from './pass.ts';
import { runWatched, unwrittenReads } from './passContract.ts';

function contextOf(design: Design, scratch: PassContext['scratch']): PassContext {
  return { design, options: { maxOps: DEFAULT_MAX_OPS, keepSnapshots: false }, scratch, program: [] };
}

/** Every pass of the pipeline on `design`, watched: what each touched of the context undeclared. */
function undeclaredAccess(design: Design): string[] {
  const loan = lend();
  try {
    const ctx = contextOf(design, loan);
    const snapshots: PassSnapshot[] = [];
    let dag = expandAndBuild(ctx, snapshots);
    const problems: string[] = [];
    for (const pass of PASSES) {
      const out = runWatched(pass, dag, ctx);
      problems.push(...out.undeclared);
      dag = out.dag;
    }
    return problems;
  } finally {
    loan.close();
  }
}

// Small examples that between them take every pass through its context fields, and one with meshes.
const WATCHED = new Set(['1f1b-p4-m8.json', 'dualpipev-p4-m10.json', 'piper-pp2-dp2-ep2.json']);

describe('what passes declare of the context', () => {
  it('every field a pass of the pipeline reads, a pass before it writes', () => {
    expect(unwrittenReads(PASSES)).toEqual([]);
  });

  it('the passes of the pipeline read and set only the context fields they declare', async () => {
    const designs = (await exampleDesigns()).filter((e) => WATCHED.has(e.file));
    expect(designs.map((e) => e.file).sort()).toEqual([...WATCHED].sort());
    for (const { file, design } of designs) expect([file, undeclaredAccess(design)]).toEqual([file, []]);
  });

  it('a pass that sets a context field it does not declare is named', () => {
    const sneaky: Pass = {
      name: 'sneaky',
      reads: [],
      writes: [],
      run(dag, ctx) {
        ctx.planOps = 1;
        return dag;
      },
    };
    const out = runWatched(sneaky, {} as Dag, contextOf({} as Design, FRESH));
    expect(out.undeclared).toEqual(['pass sneaky sets ctx.planOps but does not declare it in writes']);
  });

  it('a pass that reads a context field it does not declare is named', () => {
    const peeking: Pass = {
      name: 'peeking',
      reads: [],
      writes: [],
      run: (dag, ctx) => (ctx.plan ? dag : dag),
    };
    const out = runWatched(peeking, {} as Dag, contextOf({} as Design, FRESH));
    expect(out.undeclared).toEqual(['pass peeking reads ctx.plan but does not declare it in reads']);
  });

  it('a pass that reads a field no earlier pass writes is named, in order', () => {
    const lowering = PASSES.find((p) => p.name === 'lower-plan')!;
    const partition = PASSES.find((p) => p.name === 'partition')!;
    expect(unwrittenReads([lowering, partition])).toEqual([
      'pass lower-plan reads ctx.partition, which no pass before it writes',
      'pass lower-plan reads ctx.streamOrder, which no pass before it writes',
    ]);
  });
});
