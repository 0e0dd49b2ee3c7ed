import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.tsx';
import { openDesignFromLink } from './components/DesignLink.tsx';
import { openSaved } from './components/DesignsDialog.tsx';
import { DEFAULT_EXAMPLE, defaultDesign } from './examples.ts';
import { designIdFromHash } from './store/autosave.ts';
import { autosave, startStore, useStore } from './store/index.ts';
import './styles.css';

startStore(defaultDesign());
const id = designIdFromHash();
if (id) void openSaved(id);
else if (!openDesignFromLink(location.hash)) autosave.exampleOpened(DEFAULT_EXAMPLE);
// A link to another saved design, or one carrying a design, opens it in place.
window.addEventListener('hashchange', () => {
  if (openDesignFromLink(location.hash)) return;
  const next = designIdFromHash();
  if (next && next !== useStore.getState().designId) void openSaved(next);
});

// For scripts and benchmarks driving the page: the same store the UI uses.
(window as unknown as { stagecraft: unknown }).stagecraft = { store: useStore };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
