/** Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) undo and redo any edit; Ctrl+S saves now. */
import { saveSoon } from '../api/autosave.ts';
import { useStore } from '../store/index.ts';

function editingText(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  return (
    t.isContentEditable ||
    t.tagName === 'TEXTAREA' ||
    (t.tagName === 'INPUT' && (t as HTMLInputElement).type !== 'checkbox')
  );
}

export function onKeyDown(e: KeyboardEvent): void {
  if (!(e.ctrlKey || e.metaKey)) return;
  const key = e.key.toLowerCase();
  if (key === 's') {
    e.preventDefault();
    saveSoon();
    return;
  }
  // Inside a text field, the field's own undo applies.
  if (editingText(e.target)) return;
  const s = useStore.getState();
  if (key === 'z' && !e.shiftKey) {
    e.preventDefault();
    s.undo();
  } else if ((key === 'z' && e.shiftKey) || key === 'y') {
    e.preventDefault();
    s.redo();
  }
}
