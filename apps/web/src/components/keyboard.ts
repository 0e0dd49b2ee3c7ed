/** Keys to actions: a chord performs the session action (core/actions.ts) that lists it. */
import type { KeyChord, SessionAction } from '../core/action.ts';
import { SESSION_ACTIONS } from '../core/actions.ts';
import { performSession } from '../store/session.ts';

function editingText(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  return (
    t.isContentEditable ||
    t.tagName === 'TEXTAREA' ||
    (t.tagName === 'INPUT' && (t as HTMLInputElement).type !== 'checkbox')
  );
}

/** The chord of a key press, or null when no modifier key is held (typing is not a command). */
export function chordOf(e: Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'shiftKey' | 'key'>): KeyChord | null {
  if (!(e.ctrlKey || e.metaKey)) return null;
  return `Mod+${e.shiftKey ? 'Shift+' : ''}${e.key.toUpperCase()}`;
}

/** The action a key press performs where it was pressed, if any. */
export function actionFor(e: KeyboardEvent): SessionAction | undefined {
  const chord = chordOf(e);
  const action = chord ? SESSION_ACTIONS.find((a) => a.keys.includes(chord)) : undefined;
  // Inside a text field, the field's own undo applies.
  if (action && !action.inTextFields && editingText(e.target)) return undefined;
  return action;
}

export function onKeyDown(e: KeyboardEvent): void {
  const action = actionFor(e);
  if (!action) return;
  e.preventDefault();
  performSession(action);
}
