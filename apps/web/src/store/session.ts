/**
 * The page's store and its autosave seen as the Session that undo, redo, save and pin perform on,
 * so the toolbar, the keyboard and the tests reach them through the same action.
 */
import type { Session, SessionAction } from '../core/action.ts';
import { autosave, useStore } from './index.ts';

export function currentSession(): Session {
  const s = useStore.getState();
  return { design: s.design, history: s.history, restore: s.restore, save: autosave.saveSoon, pin: s.pin };
}

export function performSession(action: SessionAction): void {
  action.perform(currentSession());
}
