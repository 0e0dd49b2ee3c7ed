import type { ReactNode } from 'react';

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
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog"
        role="dialog"
        aria-label={title}
        data-testid={testid}
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
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
