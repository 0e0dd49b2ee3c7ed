/** The question an action asked before going ahead (the store's `confirm`): cancel it or go ahead. */
import { useEffect, useRef } from 'react';
import { useStore } from '../store/index.ts';
import { Dialog } from './Dialog.tsx';

export function ConfirmDialog() {
  const confirm = useStore((s) => s.confirm);
  const answer = useStore((s) => s.answer);
  const cancel = useRef<HTMLButtonElement>(null);
  // Focus on Cancel: Enter or Escape then keeps the user's work, the safe answer.
  useEffect(() => {
    if (confirm) cancel.current?.focus();
  }, [confirm]);
  if (!confirm) return null;
  const q = confirm.question;
  return (
    <Dialog title={q.title} onClose={() => answer(false)} testid="confirm-dialog">
      <p>{q.message}</p>
      <ul className="confirm-items">
        {q.items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
      <div className="dialog-actions">
        <button type="button" ref={cancel} data-testid="confirm-cancel" onClick={() => answer(false)}>
          Cancel
        </button>
        <button type="button" className="danger" data-testid="confirm-accept" onClick={() => answer(true)}>
          {q.accept}
        </button>
      </div>
    </Dialog>
  );
}
