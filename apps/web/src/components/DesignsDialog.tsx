/** Saved designs (open) and the version history of the current one (restore). */
import { useEffect, useState } from 'react';
import {
  type DesignSummary,
  listDesigns,
  listVersions,
  openDesign,
  openVersion,
  type VersionSummary,
} from '../api/designsApi.ts';
import { openDesignAction, restoreVersionAction } from '../core/actions.ts';
import { useStore } from '../store/index.ts';
import { Dialog } from './Dialog.tsx';

export async function openSaved(id: string): Promise<boolean> {
  const r = await openDesign(id);
  const s = useStore.getState();
  if (!r.ok) {
    s.notify('error', `could not open ${id}: ${r.message}`);
    return false;
  }
  s.dispatch(openDesignAction, { design: r.value.design });
  s.setSave({
    designId: id,
    savedVersion: r.value.version,
    saveStatus: 'saved',
    saveMessage: `version ${r.value.version}`,
  });
  history.replaceState(null, '', `#design=${id}`);
  return true;
}

export function OpenDialog({ onClose }: { onClose: () => void }) {
  const [list, setList] = useState<DesignSummary[] | string | null>(null);
  useEffect(() => {
    void listDesigns().then((r) => setList(r.ok ? r.value : r.message));
  }, []);
  return (
    <Dialog title="Open a saved design" onClose={onClose} testid="open-dialog">
      {list === null && <p className="hint">loading…</p>}
      {typeof list === 'string' && <p className="inline-error">{list}</p>}
      {Array.isArray(list) && list.length === 0 && (
        <p className="hint">No saved designs yet: edits are saved automatically.</p>
      )}
      {Array.isArray(list) && (
        <ul className="saved-list">
          {list.map((d) => (
            <li key={d.id}>
              <button
                type="button"
                data-testid={`saved-${d.id}`}
                onClick={() => void openSaved(d.id).then((ok) => ok && onClose())}
              >
                <b>{d.name}</b> <span>v{d.version}</span>{' '}
                <time>{new Date(d.updatedAt).toLocaleString()}</time>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}

export function VersionsDialog({ onClose }: { onClose: () => void }) {
  const id = useStore((s) => s.designId);
  const current = useStore((s) => s.savedVersion);
  const [list, setList] = useState<VersionSummary[] | string | null>(null);
  useEffect(() => {
    if (!id) return;
    void listVersions(id).then((r) => setList(r.ok ? r.value : r.message));
  }, [id]);
  return (
    <Dialog title="Version history" onClose={onClose} testid="versions-dialog">
      {!id && <p className="hint">This design is not saved yet: the first edit saves it.</p>}
      {id && list === null && <p className="hint">loading…</p>}
      {typeof list === 'string' && <p className="inline-error">{list}</p>}
      {Array.isArray(list) && (
        <ul className="saved-list">
          {list.map((v) => (
            <li key={v.version}>
              <button
                type="button"
                data-testid={`version-${v.version}`}
                disabled={v.version === current}
                onClick={() => {
                  if (!id) return;
                  void openVersion(id, v.version).then((r) => {
                    const s = useStore.getState();
                    if (!r.ok) s.notify('error', r.message);
                    // Restoring is an edit: undoable, and saved as the newest version.
                    else s.dispatch(restoreVersionAction, { design: r.value });
                    onClose();
                  });
                }}
              >
                <b>v{v.version}</b> {v.name} <time>{new Date(v.savedAt).toLocaleString()}</time>
                {v.version === current && <i> current</i>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
