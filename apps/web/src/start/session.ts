/**
 * The page's first stage: the store and its worker, started so the worker compiles the first
 * design while the page's components still load (start/appRoot.tsx), then the design the address
 * names. This module pulls in the schemas and the compiler code the page runs itself.
 */
import { openDesignFromLink } from '../components/DesignLink.tsx';
import { openSaved } from '../components/DesignsDialog.tsx';
import { DEFAULT_EXAMPLE, defaultDesign } from '../examples.ts';
import { designIdFromHash } from '../store/autosave.ts';
import { autosave, startStore, useStore } from '../store/index.ts';

export function startSession(): void {
  const id = designIdFromHash();
  // A page opened on a link shows that design alone: compiling the default example first cost its
  // result's render, timeline and DAG on the page while the linked one was fetched and compiled.
  startStore(defaultDesign(), false);
  const first = useStore.getState().document;
  const opened = id ? openSaved(id) : openDesignFromLink(location.hash);
  if (opened) {
    void opened.then((ok) => {
      // Unreadable: the default example stays, computed now (unless another was opened meanwhile).
      if (!ok && useStore.getState().document === first) useStore.computeNow();
    });
  } else {
    autosave.exampleOpened(DEFAULT_EXAMPLE);
    useStore.computeNow();
  }
  // A link to another saved design, or one carrying a design, opens it in place.
  window.addEventListener('hashchange', () => {
    if (openDesignFromLink(location.hash)) return;
    const next = designIdFromHash();
    if (next && next !== useStore.getState().designId) void openSaved(next);
  });

  // For scripts and benchmarks driving the page: the same store the UI uses.
  (window as unknown as { stagecraft: unknown }).stagecraft = { store: useStore };
}
