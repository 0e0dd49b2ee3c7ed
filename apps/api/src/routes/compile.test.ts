import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bufferIo } from '../../../cli/src/io.ts';
import { main } from '../../../cli/src/main.ts';
import { EXAMPLES, errorOf, example, oneFOneB, post, type TestApp, testApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => t.close());

interface CompileBody {
  ok: true;
  hash: string;
  cached: boolean;
  ops: number;
  timings: { compileMs: number; simulateMs: number; totalMs: number };
  passes: {
    pass: string;
    ms: number;
    nodes: number;
    edges: number;
    added: string[];
    removed: string[];
    changed: string[];
    dag?: unknown;
  }[];
  dag?: {
    nodes: { id: string; tags: Record<string, unknown> }[];
    edges: { from: string; to: string; kind: string; bytes?: number }[];
  };
  program: { directive: { op: string } }[];
  plan?: { format: string; devices: unknown[] };
  simulation: { makespanMs: number; timeline?: unknown[]; memory?: unknown[] };
  metrics: Record<string, unknown>;
}

describe('POST /api/compile', () => {
  test('include.steps adds the steady step to the metrics: ZB-H2 at 24 ms a step against 27 for one', async () => {
    const res = await post(t.app, '/api/compile', {
      design: example('zb-h2-p4-m8'),
      include: { steps: 3, dag: false, plan: false, timeline: false, snapshots: 'none' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as CompileBody;
    expect(body.metrics.makespanMs).toBe(27);
    expect(body.metrics.steadyState).toEqual({ steps: 3, steadyStepMs: 24 });
    const bad = await post(t.app, '/api/compile', { design: example('zb-h2-p4-m8'), include: { steps: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).path).toBe('include.steps');
  });

  test('returns the DAG, the passes, the program, the plan, the simulation and the metrics', async () => {
    const res = await post(t.app, '/api/compile', { design: example('1f1b-p4-m8') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json() as CompileBody;
    expect(body.ok).toBe(true);
    expect(body.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.cached).toBe(false);
    expect(body.ops).toBeGreaterThan(0);
    expect(body.simulation.makespanMs).toBe(33);
    expect(body.simulation.timeline!.length).toBeGreaterThan(0);
    expect(body.plan!.format).toBe('stagecraft/plan@2');
    expect(body.program.map((e) => e.directive.op)).toEqual([
      'split',
      'place',
      'place',
      'place',
      'place',
      'order',
      'order',
      'order',
      'order',
    ]);
    const ids = new Set(body.dag!.nodes.map((n) => n.id));
    for (const e of body.dag!.edges) {
      expect(ids.has(e.from) && ids.has(e.to)).toBe(true);
      expect(['data', 'temporal']).toContain(e.kind);
    }
    expect(body.dag!.nodes.find((n) => n.id === 'F.b0.mb0')!.tags).toEqual({ PP: 0, MB: 0, PASS: 'F' });
    const passes = body.passes.map((p) => p.pass);
    expect(passes.slice(0, 4)).toEqual(['expand-schedule', 'build-dag', 'check-supported', 'split']);
    const split = body.passes.find((p) => p.pass === 'split')!;
    expect(split.added).toContain('F.b0.mb7');
    expect(split.removed).toContain('F.b0');
    const place = body.passes.find((p) => p.pass === 'place')!;
    expect(place.changed).toContain('F.b3.mb0');
    expect(place.added).toEqual([]);
    expect(body.passes.every((p) => p.dag === undefined)).toBe(true);
  });

  // The DGX example has a GPU, so both carry its MFU too.
  test.each(['zb-h1-p4-m8', 'llama3-8b-dgx-h100-pp4-1f1b'])(
    'metrics of %s are exactly the object of stagecraft simulate --json (timings aside)',
    async (name) => {
      const res = await post(t.app, '/api/compile', { design: example(name) });
      const io = bufferIo();
      expect(main(['simulate', join(EXAMPLES, `${name}.json`), '--json'], io)).toBe(0);
      const cli = JSON.parse(io.stdout) as Record<string, unknown>;
      const metrics = (res.json() as CompileBody).metrics;
      expect(Object.keys(metrics)).toEqual(Object.keys(cli));
      expect({ ...metrics, timings: undefined }).toEqual({ ...cli, timings: undefined });
      if (name.includes('dgx')) expect(metrics.mfu).toBeGreaterThan(0);
    },
  );

  test('the same design again is answered from the cache under the same hash', async () => {
    const design = oneFOneB(4, 6, 'cache me');
    const a = (await post(t.app, '/api/compile', { design })).json() as CompileBody;
    const b = (
      await post(t.app, '/api/compile', { design: JSON.parse(JSON.stringify(design)) })
    ).json() as CompileBody;
    expect(a.cached).toBe(false);
    expect(b.cached).toBe(true);
    expect(b.hash).toBe(a.hash);
    expect(b.plan).toEqual(a.plan);
    // Key order does not change the content hash.
    const reordered = {
      directives: design.directives,
      cluster: design.cluster,
      model: design.model,
      name: design.name,
      format: design.format,
    };
    expect(((await post(t.app, '/api/compile', { design: reordered })).json() as CompileBody).hash).toBe(
      a.hash,
    );
  });

  test('include trims the answer: no snapshots, no plan, no DAG, no timeline', async () => {
    const res = await post(t.app, '/api/compile', {
      design: example('gpipe-p4-m8'),
      include: { snapshots: 'none', plan: false, dag: false, timeline: false },
    });
    const body = res.json() as CompileBody;
    expect(res.statusCode).toBe(200);
    expect(body.passes).toEqual([]);
    expect(body.plan).toBeUndefined();
    expect(body.dag).toBeUndefined();
    expect(body.simulation.timeline).toBeUndefined();
    expect(body.simulation.memory).toBeUndefined();
    expect(body.metrics.makespanMs).toBe(body.simulation.makespanMs);
  });

  test('snapshots "full" carries the DAG after every pass that changed it', async () => {
    const body = (
      await post(t.app, '/api/compile', {
        design: example('manual-order-p2-m4'),
        include: { snapshots: 'full' },
      })
    ).json() as CompileBody;
    const split = body.passes.find((p) => p.pass === 'split')!;
    expect((split.dag as { nodes: unknown[] }).nodes).toHaveLength(split.nodes);
    expect(body.passes.find((p) => p.pass === 'expand-schedule')!.dag).toBeUndefined();
  });

  test('a later edit of the same designId reruns only the passes from the edited directive on', async () => {
    const design = example('manual-order-p2-m4');
    const first = (
      await post(t.app, '/api/compile', { design, designId: 'inc-1', revision: 1 })
    ).json() as CompileBody & {
      incremental: { reused: number; rerunFrom?: string };
    };
    expect(first.incremental.reused).toBe(0);
    const edited = structuredClone(design);
    edited.directives.push({ op: 'stream', name: 'p2p', priority: 1 });
    const second = (
      await post(t.app, '/api/compile', { design: edited, designId: 'inc-1', revision: 2 })
    ).json() as CompileBody & {
      incremental: { reused: number; rerunFrom?: string };
    };
    expect(second.incremental.rerunFrom).toBe('streams');
    expect(second.incremental.reused).toBeGreaterThan(3);
  });

  test('a revision older than one already seen is a 409 naming revision', async () => {
    const design = oneFOneB(2, 4, 'revisions');
    expect((await post(t.app, '/api/compile', { design, designId: 'rev', revision: 5 })).statusCode).toBe(
      200,
    );
    const res = await post(t.app, '/api/compile', { design, designId: 'rev', revision: 4 });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res)).toEqual({
      path: 'revision',
      message: 'superseded by revision 5',
      all: expect.any(Array),
    });
  });

  test('a revision without a designId is a 400 naming revision', async () => {
    const res = await post(t.app, '/api/compile', { design: oneFOneB(2, 2), revision: 1 });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('revision');
  });

  test.each([
    [{ design: oneFOneB(2, 2), include: { snapshots: 'all' } }, 'include.snapshots'],
    [{ design: oneFOneB(2, 2), include: { plan: 'yes' } }, 'include.plan'],
    [{ design: oneFOneB(2, 2), revision: -1, designId: 'x' }, 'revision'],
    [{ design: oneFOneB(2, 2), designId: '' }, 'designId'],
    [{ design: oneFOneB(2, 2), extra: 1 }, 'extra'],
    [{}, 'design'],
    [{ design: 'a design' }, 'design'],
    [{ design: { ...oneFOneB(2, 2), format: 'stagecraft/design@9' } }, 'design.format'],
  ])('a body that fails its schema is a 400 naming the field (%#)', async (body, path) => {
    const res = await post(t.app, '/api/compile', body);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe(path);
  });
});
