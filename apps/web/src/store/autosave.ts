/**
 * Autosave: a changed design is saved through the API after a pause in editing, each save a new
 * version. The API is the source of truth; the page only remembers which design it edits (#design=id).
 * An example is forked once: its first save makes a saved design, every later edit (in this page,
 * even after opening the example again) is a new version of that one, not another copy.
 * An autosave is made for one store and keeps what it remembers (the pending save, the forks) with it.
 */

import { saveDesign } from '../api/designsApi.ts';
import { designProblems, issuesText } from '../core/directiveCheck.ts';
import type { AppStore } from './appStore.ts';

const DEBOUNCE_MS = 800;

export function designIdFromHash(): string | null {
  const m = /design=([a-z0-9][a-z0-9-]{0,63})/.exec(location.hash);
  return m?.[1] ?? null;
}

function newId(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${slug || 'design'}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface Autosave {
  /** Saves after a pause whenever the design changes; returns how to stop. */
  start(): () => void;
  /**
   * Saves at once (the Save button, Ctrl+S). With nothing changed since the last save (or since
   * the document opened) it adds no version: it says so instead.
   */
  saveSoon(): void;
  /**
   * Tells autosave which example the new document is (null: not an example) and returns the design
   * id its edits are saved under: the example's fork when it has one, else null (a fork is made).
   */
  exampleOpened(file: string | null): string | null;
  /** A deleted design is no example's fork any more: the example's next edit forks it afresh. */
  designDeleted(id: string): void;
}

export function createAutosave(store: AppStore): Autosave {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight = false;
  /** The example the unsaved document was opened from (the first screen's, or the gallery's). */
  let example: string | null = null;
  /** Each example's saved fork, by example file. */
  const forks = new Map<string, string>();

  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(saveNow, DEBOUNCE_MS);
  };

  async function saveNow(): Promise<void> {
    if (inFlight) {
      timer = setTimeout(saveNow, DEBOUNCE_MS);
      return;
    }
    const s = store.getState();
    if (s.saveStatus !== 'dirty') return;
    // The API refuses what the design schema refuses: such a design is held, not sent, and the
    // status says why; the next edit that makes it valid saves it.
    const problems = designProblems(s.design);
    if (problems.length > 0) {
      s.setSave({ saveStatus: 'invalid', saveMessage: `not saved: ${issuesText(problems.slice(0, 3))}` });
      return;
    }
    const id = s.designId ?? newId(s.design.name);
    const forkOf = s.designId === null ? example : null;
    const { revision, document } = s;
    inFlight = true;
    s.setSave({ saveStatus: 'saving', designId: id });
    if (designIdFromHash() !== id) history.replaceState(null, '', `#design=${id}`);
    let r = await saveDesign(id, s.design, s.savedVersion ?? undefined);
    if (!r.ok && r.status === 409) {
      // Saved elsewhere meanwhile: this edit becomes the newest version; the other stays in history.
      r = await saveDesign(id, s.design);
    }
    inFlight = false;
    if (r.ok && forkOf !== null) forks.set(forkOf, id);
    const after = store.getState();
    // Another document was opened meanwhile: this answer is about the one before it.
    if (after.document !== document) return;
    if (!r.ok) {
      after.setSave({ saveStatus: r.status === 0 ? 'offline' : 'error', saveMessage: r.message });
      return;
    }
    const stillDirty = after.revision !== revision;
    after.setSave({
      savedVersion: r.value.version,
      saveStatus: stillDirty ? 'dirty' : 'saved',
      saveMessage: `saved as version ${r.value.version}`,
    });
    if (stillDirty) schedule();
  }

  return {
    start: () =>
      store.subscribe((s, prev) => {
        if (s.revision !== prev.revision && s.saveStatus === 'dirty') schedule();
      }),
    saveSoon() {
      const s = store.getState();
      if (s.saveStatus === 'saved' || s.saveStatus === 'clean') {
        s.notify(
          'info',
          s.savedVersion !== null
            ? `nothing to save: no change since version ${s.savedVersion}`
            : 'nothing to save: no change since the design was opened',
        );
        return;
      }
      // A failed or held save is tried again.
      if (s.saveStatus === 'offline' || s.saveStatus === 'error' || s.saveStatus === 'invalid')
        s.setSave({ saveStatus: 'dirty' });
      if (timer) clearTimeout(timer);
      void saveNow();
    },
    exampleOpened(file) {
      example = file;
      return file === null ? null : (forks.get(file) ?? null);
    },
    designDeleted(id) {
      for (const [file, fork] of forks) if (fork === id) forks.delete(file);
    },
  };
}
