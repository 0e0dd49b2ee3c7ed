import { useEffect } from 'react';
import { useStore } from '../store/index.ts';

const clear = () => useStore.setState({ notice: null });

/**
 * A refused action's reason (an invalid timeline move, a failed export), or what an edit changed
 * beyond what was asked, until dismissed or replaced; a passing word (info) goes by itself.
 */
export function Notice() {
  const notice = useStore((s) => s.notice);
  useEffect(() => {
    if (notice?.kind !== 'info') return;
    const t = setTimeout(clear, 5000);
    return () => clearTimeout(t);
  }, [notice]);
  if (!notice) return null;
  return (
    <div
      className={`notice ${notice.kind}`}
      role={notice.kind === 'error' ? 'alert' : 'status'}
      data-testid="notice"
      data-kind={notice.kind}
    >
      <span>{notice.text}</span>
      <button type="button" aria-label="dismiss" onClick={clear}>
        ✕
      </button>
    </div>
  );
}
