/**
 * A modal dialog as keyboard and screen-reader users expect one: focus moves in when it opens and
 * back to where it was when it closes, Tab cycles inside it, Escape and a click on the backdrop
 * close it, and `aria-modal` tells assistive technology that the page behind is inert.
 */
import { type ReactNode, useEffect, useRef } from 'react';

const FOCUSABLE =
  'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((e) => e.getClientRects().length > 0);
}

export function Dialog({
  title,
  onClose,
  children,
  testid,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testid: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const root = box.current;
    if (!root) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // A child may already have focused what it prefers (Cancel in a confirmation); else the first
    // control after the close button, or the close button.
    if (!root.contains(document.activeElement)) {
      const all = focusables(root);
      (all[1] ?? all[0] ?? root).focus();
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        close.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const all = focusables(root);
      if (all.length === 0) {
        e.preventDefault();
        return;
      }
      const first = all[0]!;
      const last = all[all.length - 1]!;
      const at = document.activeElement;
      if (e.shiftKey && (at === first || !root.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !root.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    };
    // Bubbling, so a field inside that uses Escape itself (cancel a rename) can stop it first.
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (before?.isConnected) before.focus();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the backdrop's click is the mouse's way out; Escape is the keyboard's
    <div
      className="dialog-backdrop"
      data-testid={`${testid}-backdrop`}
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) close.current();
      }}
    >
      <div
        ref={box}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testid}
        tabIndex={-1}
      >
        <header>
          <h2>{title}</h2>
          <button type="button" aria-label="close" onClick={onClose}>
            ✕
          </button>
        </header>
        <div className="dialog-body">{children}</div>
      </div>
    </div>
  );
}
