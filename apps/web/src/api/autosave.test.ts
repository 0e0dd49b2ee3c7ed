// @vitest-environment happy-dom
import { afterEach, describe, expect, test, vi } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { updateDirectiveAction } from '../core/actions.ts';
import { initStore, useStore } from '../store/index.ts';
import { saveSoon } from './autosave.ts';

afterEach(() => vi.unstubAllGlobals());

describe('autosave', () => {
  test('a design the schema refuses is held with its reason, never sent, and saved once valid', async () => {
    const design = example('1f1b-p4-m8');
    // As if it came in by a way the inspector does not guard.
    initStore({ ...design, directives: [{ op: 'schedule', builder: '1f1b', microbatches: 0 }] });
    const sent: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        sent.push(url);
        return new Response(JSON.stringify({ id: 'x', version: 1 }), { status: 200 });
      }),
    );
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('invalid'));
    expect(useStore.getState().saveMessage).toBe('not saved: directives[0].microbatches: must be ≥ 1');
    expect(sent).toEqual([]);
    useStore.getState().dispatch(updateDirectiveAction, {
      index: 0,
      directive: { op: 'schedule', builder: '1f1b', microbatches: 8 },
    });
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('saved'));
    expect(sent).toHaveLength(1);
  });
});
