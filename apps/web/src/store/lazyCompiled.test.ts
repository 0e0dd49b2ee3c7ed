// @vitest-environment happy-dom
import { describe, expect, test } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { example } from '../../test/testDesigns.ts';
import { planOutline } from '../gantt/timelinePlan.ts';
import type { WorkerRequest } from '../workerProtocol.ts';
import { initStore, LAZY_COMPILED_OPS, useStore } from './index.ts';

/** A worker reply for the example's result, its op count set to `ops`. */
function computed(ops: number) {
  const { sim, plan } = runExample('1f1b-p4-m8');
  const s = useStore.getState();
  const result = {
    ok: true,
    simulation: { ...sim, ops },
    program: [],
    passes: [],
    ops,
    compileMs: 1,
    simulateMs: 1,
    plan: planOutline(plan),
  } as never;
  return { type: 'computed', revision: s.revision, result, workerMs: 1 } as const;
}

const afterFrame = () => new Promise((r) => setTimeout(r, 60));

describe('the DAG and whole plan of a result', () => {
  test('a small result fetches them right after its first frame', async () => {
    const sent: WorkerRequest[] = [];
    initStore(example('1f1b-p4-m8'), { send: (r) => sent.push(r) });
    useStore.receive(computed(164));
    await afterFrame();
    expect(sent.map((r) => r.type)).toContain('compiled');
  });

  test('a big result fetches them only when an op is hovered, selected or pinned, and once', async () => {
    const sent: WorkerRequest[] = [];
    initStore(example('1f1b-p4-m8'), { send: (r) => sent.push(r) });
    useStore.receive(computed(LAZY_COMPILED_OPS + 1));
    await afterFrame();
    expect(sent.map((r) => r.type)).toEqual(['layout']);
    useStore.getState().wantCompiled();
    useStore.getState().wantCompiled();
    expect(sent.map((r) => r.type)).toEqual(['layout', 'compiled']);
  });
});
