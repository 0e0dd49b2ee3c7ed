// @vitest-environment happy-dom
import { afterEach, describe, expect, test, vi } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { openDesignAction, renameAction, updateDirectiveAction } from '../core/actions.ts';
import { autosave, initStore, useStore } from './index.ts';

const saveSoon = () => autosave.saveSoon();
const exampleOpened = (file: string | null) => autosave.exampleOpened(file);
const designDeleted = (id: string) => autosave.designDeleted(id);

interface FakeApi {
  puts: string[];
  /** Each PUT's body and whether it was a keepalive request. */
  bodies: { body: { example?: string; baseVersion?: number }; keepalive: boolean }[];
  release?: () => void;
  hold: boolean;
}

/**
 * A fake API that saves every PUT as the next version of its id, and records what was sent;
 * `saved` is the list GET /api/designs answers (designs of earlier pages).
 */
function fakeApi(
  saved: { id: string; name: string; version: number; updatedAt: string; example?: string }[] = [],
): FakeApi {
  const api: FakeApi = { puts: [], bodies: [], hold: false };
  const versions = new Map<string, number>(saved.map((d) => [d.id, d.version]));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      if (init.method === 'GET' && url === '/api/designs')
        return new Response(JSON.stringify({ designs: saved }), { status: 200 });
      if (init.method !== 'PUT') return new Response('{}', { status: 404 });
      const id = decodeURIComponent(url.split('/').pop()!);
      api.puts.push(id);
      api.bodies.push({ body: JSON.parse(init.body as string), keepalive: init.keepalive === true });
      if (api.hold) await new Promise<void>((r) => (api.release = r));
      const version = (versions.get(id) ?? 0) + 1;
      versions.set(id, version);
      return new Response(JSON.stringify({ id, version }), { status: 200 });
    }),
  );
  return api;
}

/** An edit of the design, as the toolbar's name field makes one. */
function edit(name: string): void {
  useStore.getState().dispatch(renameAction, { name });
}

afterEach(() => vi.unstubAllGlobals());

describe('autosave', () => {
  test('a design the schema refuses is held with its reason, never sent, and saved once valid', async () => {
    const design = example('1f1b-p4-m8');
    // As if it came in by a way the inspector does not guard.
    initStore({ ...design, directives: [{ op: 'schedule', builder: '1f1b', microbatches: 0 }] });
    useStore.getState().setSave({ saveStatus: 'dirty' });
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

  test('Ctrl+S with nothing changed since the last save adds no version, and says so', async () => {
    initStore(example('1f1b-p4-m8'));
    const api = fakeApi();
    saveSoon();
    edit('one');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('saved'));
    saveSoon();
    saveSoon();
    expect(api.puts).toHaveLength(1);
    expect(useStore.getState().notice?.text).toBe('nothing to save: no change since version 1');
  });

  test('an example is forked once: edits after opening it again are versions of the same copy', async () => {
    initStore(example('1f1b-p4-m8'));
    const api = fakeApi();
    exampleOpened('1f1b-p4-m8');
    edit('first');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('saved'));
    edit('second');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().savedVersion).toBe(2));
    // Opened again from the gallery, then edited.
    const s = useStore.getState();
    s.dispatch(openDesignAction, { design: example('1f1b-p4-m8') });
    s.setSave({ designId: exampleOpened('1f1b-p4-m8'), savedVersion: null, saveStatus: 'clean' });
    edit('third');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().savedVersion).toBe(3));
    expect(new Set(api.puts).size).toBe(1);
    expect(api.puts).toHaveLength(3);
  });

  test('a save that answers after another document opened leaves that document unsaved and unchanged', async () => {
    initStore(example('1f1b-p4-m8'));
    const api = fakeApi();
    exampleOpened(null);
    api.hold = true;
    edit('before');
    saveSoon();
    await vi.waitFor(() => expect(api.release).toBeDefined());
    const s = useStore.getState();
    s.dispatch(openDesignAction, { design: example('1f1b-p4-m8') });
    s.setSave({ designId: null, savedVersion: null, saveStatus: 'clean' });
    api.release!();
    await new Promise((r) => setTimeout(r, 20));
    expect(useStore.getState()).toMatchObject({ designId: null, savedVersion: null, saveStatus: 'clean' });
    expect(api.puts).toHaveLength(1);
  });

  test("an example's copy records the example, and is found again by a new page: its edits go to it", async () => {
    initStore(example('1f1b-p4-m8'));
    const first = fakeApi();
    exampleOpened('1f1b-p4-m8');
    edit('mine');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('saved'));
    expect(first.bodies[0]!.body.example).toBe('1f1b-p4-m8');
    const copy = useStore.getState().designId!;
    vi.unstubAllGlobals();

    // A reload: a new store and autosave, the copy in the API's list.
    initStore(example('1f1b-p4-m8'));
    const api = fakeApi([
      { id: 'other', name: 'x', version: 1, updatedAt: '2026-01-01T00:00:00Z' },
      { id: copy, name: 'mine', version: 1, updatedAt: '2026-01-01T00:00:00Z', example: '1f1b-p4-m8' },
    ]);
    expect(exampleOpened('1f1b-p4-m8')).toBeNull();
    await vi.waitFor(() => expect(useStore.getState().designId).toBe(copy));
    expect(useStore.getState().saveStatus).toBe('clean');
    edit('mine again');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().savedVersion).toBe(2));
    expect(api.puts).toEqual([copy]);
    expect(api.bodies[0]!.body).toMatchObject({ baseVersion: 1 });
  });

  test('an unsaved edit is sent by a keepalive request when the page goes away, and leaving asks first', async () => {
    initStore(example('1f1b-p4-m8'));
    const stop = autosave.start();
    const api = fakeApi();
    exampleOpened('1f1b-p4-m8');
    const leave = () => {
      const e = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(e);
      return e.defaultPrevented;
    };
    expect(leave()).toBe(false);
    window.dispatchEvent(new Event('pagehide'));
    expect(api.puts).toEqual([]);
    edit('just now');
    expect(leave()).toBe(true);
    // The address names the design from the edit on: a reload opens what the flush sent.
    const id = location.hash.replace('#design=', '');
    expect(id).toMatch(/^just-now-[a-z0-9]+$/);
    window.dispatchEvent(new Event('pagehide'));
    expect(api.puts).toEqual([id]);
    expect(api.bodies[0]).toMatchObject({ keepalive: true, body: { example: '1f1b-p4-m8' } });
    // The autosave that follows saves under the same id.
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('saved'));
    expect(api.puts).toEqual([id, id]);
    expect(leave()).toBe(false);
    stop();
  });

  test('an example whose copy was deleted forks afresh on its next edit', async () => {
    initStore(example('gpipe-p4-m8'));
    fakeApi();
    exampleOpened('gpipe-p4-m8');
    edit('gpipe edited');
    saveSoon();
    await vi.waitFor(() => expect(useStore.getState().saveStatus).toBe('saved'));
    const fork = useStore.getState().designId!;
    expect(exampleOpened('gpipe-p4-m8')).toBe(fork);
    designDeleted(fork);
    expect(exampleOpened('gpipe-p4-m8')).toBeNull();
  });
});
