/** The page's second stage: its components, rendered into `root`. */
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '../components/App.tsx';

export function renderApp(root: HTMLElement): void {
  // A transition renders the first tree in slices that yield to the browser, instead of one task
  // that created the whole page's elements (0.3–0.4 s of a loaded machine's opening); the commit
  // that adds them to the document is still one task.
  startTransition(() =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
}
