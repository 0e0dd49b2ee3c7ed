/**
 * The page starts in stages, each in its own task, so none holds the main thread long: evaluating
 * the whole bundle at once (the schemas, the compiler code the page runs, React, React Flow and
 * every component) took one task of 0.5–1.2 s on a loaded 2-core machine before anything showed.
 * The store and its worker go first, so the first design compiles while the components load.
 */
import './styles.css';
import { nextTask } from './core/nextTask.ts';

const { startSession } = await import('./start/session.ts');
startSession();
await nextTask();
const { renderApp } = await import('./start/appRoot.tsx');
renderApp(document.getElementById('root')!);
