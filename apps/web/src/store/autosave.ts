/**
 * Autosave: a changed design is saved through the API after a pause in editing, each save a new
 * version. The API is the source of truth; the page only remembers which design it edits (#design=id).
 * An example is forked once: its first save makes a saved design recording the example (its working
 * copy), and every later edit (in this page, after opening the example again, or after a reload,
 * when the API's list gives the copy back) is a new version of that one, not another copy.
 * An edit not yet saved when the page goes away is sent on `pagehide` (a keepalive request), and
 * the page asks before leaving while one is unsent; the design's id is in the address from its
 * first edit on, so a reload opens what was sent.
 * An autosave is made for one store and keeps what it remembers (the pending save, the forks) with it.
 */

import { listDesigns, saveDesign, saveDesignOnLeave } from '../api/designsApi.ts';
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
  /** The page goes away: an edit not saved yet is sent with a request that outlives it. */
  flush(): void;
  /** Whether leaving now would lose an edit (an unsent or unsaved one): the page asks first. */
  unsaved(): boolean;
}

/** Save states whose latest edit the server does not have. */
const UNSAVED: ReadonlySet<string> = new Set(['dirty', 'saving', 'error', 'offline', 'invalid']);

type AppState = ReturnType<AppStore['getState']>;

/** Puts the design's id in the address, so a reload opens what was saved or sent. */
function showInAddress(id: string): void {
  if (designIdFromHash() !== id) history.replaceState(null, '', `#design=${id}`);
}

/**
 * Holds a design the API would refuse (what the design schema refuses): not sent, and the status
 * says why; the next edit that makes it valid saves it. True when held.
 */
function heldAsInvalid(s: AppState): boolean {
  const problems = designProblems(s.design);
  if (problems.length === 0) return false;
  s.setSave({ saveStatus: 'invalid', saveMessage: `not saved: ${issuesText(problems.slice(0, 3))}` });
  return true;
}

/** Saves a new version of the design on the version it was edited from. */
async function saveVersion(id: string, s: AppState, forkOf: string | null): ReturnType<typeof saveDesign> {
  const r = await saveDesign(id, s.design, s.savedVersion ?? undefined, forkOf ?? undefined);
  if (r.ok || r.status !== 409) return r;
  // Saved elsewhere meanwhile: this edit becomes the newest version; the other stays in history.
  return saveDesign(id, s.design);
}

/**
 * Shows the API's answer to the save of edit `revision` in the save status. True when the design
 * was edited again meanwhile: that later edit is still to save.
 */
function recordAnswer(s: AppState, r: Awaited<ReturnType<typeof saveDesign>>, revision: number): boolean {
  if (!r.ok) {
    s.setSave({ saveStatus: r.status === 0 ? 'offline' : 'error', saveMessage: r.message });
    return false;
  }
  const stillDirty = s.revision !== revision;
  s.setSave({
    savedVersion: r.value.version,
    saveStatus: stillDirty ? 'dirty' : 'saved',
    saveMessage: `saved as version ${r.value.version}`,
  });
  return stillDirty;
}

/** Why the Save button added no version. */
function nothingToSave(savedVersion: number | null): string {
  return savedVersion !== null
    ? `nothing to save: no change since version ${savedVersion}`
    : 'nothing to save: no change since the design was opened';
}

/** Sends an unsent edit when the page goes away and asks before leaving while one is unsaved. */
function guardLeaving(flush: () => void, unsaved: () => boolean): () => void {
  const warn = (e: BeforeUnloadEvent) => {
    if (!unsaved()) return;
    e.preventDefault();
    // Older browsers ask only when returnValue is set (HTML standard, "beforeunload").
    e.returnValue = '';
  };
  window.addEventListener('pagehide', flush);
  window.addEventListener('beforeunload', warn);
  return () => {
    window.removeEventListener('pagehide', flush);
    window.removeEventListener('beforeunload', warn);
  };
}

export function createAutosave(store: AppStore): Autosave {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight = false;
  /** The example the unsaved document was opened from (the first screen's, or the gallery's). */
  let example: string | null = null;
  /** Each example's saved fork, by example file. */
  const forks = new Map<string, string>();
  /**
   * The id an unsaved document's first save creates, chosen at its first edit so the address
   * names it before any save: a reload right after the edit opens what pagehide sent.
   */
  let fresh: { document: number; id: string } | null = null;

  /** The id the current document is saved under, choosing one for a new document. */
  const idOf = (s: AppState): string => {
    if (s.designId !== null) return s.designId;
    if (fresh?.document !== s.document) fresh = { document: s.document, id: newId(s.design.name) };
    return fresh.id;
  };

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
    if (s.saveStatus !== 'dirty' || heldAsInvalid(s)) return;
    const id = idOf(s);
    const forkOf = s.designId === null ? example : null;
    const { revision, document } = s;
    inFlight = true;
    s.setSave({ saveStatus: 'saving', designId: id });
    showInAddress(id);
    const r = await saveVersion(id, s, forkOf);
    inFlight = false;
    if (r.ok && forkOf !== null) forks.set(forkOf, id);
    const after = store.getState();
    // Another document was opened meanwhile: this answer is about the one before it.
    if (after.document !== document) return;
    if (recordAnswer(after, r, revision)) schedule();
  }

  /** The example's working copy saved in an earlier page, from the API's list (newest first). */
  async function findFork(file: string, document: number): Promise<void> {
    const r = await listDesigns();
    const copy = r.ok ? r.value.find((d) => d.example === file) : undefined;
    if (!copy || forks.has(file)) return;
    forks.set(file, copy.id);
    const s = store.getState();
    // Still the example's document, and no save of it chose another id meanwhile.
    if (s.document === document && example === file && s.designId === null && fresh?.document !== document)
      s.setSave({ designId: copy.id, savedVersion: copy.version });
  }

  return {
    start() {
      const stop = store.subscribe((s, prev) => {
        if (s.revision !== prev.revision && s.saveStatus === 'dirty') {
          showInAddress(idOf(s));
          schedule();
        }
      });
      const unguard = guardLeaving(
        () => this.flush(),
        () => this.unsaved(),
      );
      return () => {
        stop();
        unguard();
      };
    },
    flush() {
      const s = store.getState();
      if ((s.saveStatus !== 'dirty' && s.saveStatus !== 'saving') || designProblems(s.design).length > 0)
        return;
      if (timer) clearTimeout(timer);
      const forkOf = s.designId === null ? example : null;
      saveDesignOnLeave(idOf(s), s.design, forkOf ?? undefined);
    },
    unsaved: () => UNSAVED.has(store.getState().saveStatus),
    saveSoon() {
      const s = store.getState();
      if (s.saveStatus === 'saved' || s.saveStatus === 'clean') {
        s.notify('info', nothingToSave(s.savedVersion));
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
      if (file === null) return null;
      const fork = forks.get(file);
      if (fork === undefined) void findFork(file, store.getState().document);
      return fork ?? null;
    },
    designDeleted(id) {
      for (const [file, fork] of forks) if (fork === id) forks.delete(file);
    },
  };
}
