/** The question an action asked before going ahead (the store's `confirm`): cancel it or go ahead. */
import { useEffect, useRef } from 'react';
import { useStore } from '../store/index.ts';
import { Dialog } from './Dialog.tsx';

export function ConfirmDialog() {
  const confirm = useStore((s) => s.confirm);
  const answer = useStore((s) => s.answer);
  const cancel = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  // Focus on Cancel: Enter or Escape then keeps the user's work, the safe answer. A choice loses
  // nothing, so its first answer takes the focus.
  useEffect(() => {
    if (confirm) (first.current ?? cancel.current)?.focus();
  }, [confirm]);
  if (!confirm) return null;
  const q = confirm.question;
  return (
    <Dialog title={q.title} onClose={() => answer(false)} testid="confirm-dialog">
      <p>{q.message}</p>
      {q.items.length > 0 && (
        <ul className="confirm-items">
          {q.items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
      {q.choices ? (
        // A question with several answers: one button each, the first focused (the usual pick).
        <div className="confirm-choices">
          {q.choices.map((c, k) => (
            <button
              type="button"
              key={c.value}
              ref={k === 0 ? first : undefined}
              data-testid={`confirm-choice-${c.value || 'whole'}`}
              onClick={() => answer(true, c.value)}
            >
              {c.label}
            </button>
          ))}
        </div>
      ) : null}
      <div className="dialog-actions">
        <button type="button" ref={cancel} data-testid="confirm-cancel" onClick={() => answer(false)}>
          Cancel
        </button>
        {!q.choices && (
          <button type="button" className="danger" data-testid="confirm-accept" onClick={() => answer(true)}>
            {q.accept}
          </button>
        )}
      </div>
    </Dialog>
  );
}
