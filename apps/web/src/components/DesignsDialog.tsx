/** Saved designs (open) and the version history of the current one (restore). */
import { useEffect, useState } from 'react';
import {
  type DesignSummary,
  deleteDesign,
  listDesigns,
  listVersions,
  openDesign,
  openVersion,
  renameSaved,
  type VersionSummary,
} from '../api/designsApi.ts';
import { openDesignAction, renameAction, restoreVersionAction } from '../core/actions.ts';
import { groupCopies } from '../core/savedGroups.ts';
import { searchSaved } from '../core/savedSearch.ts';
import { autosave, useStore } from '../store/index.ts';
import { Dialog } from './Dialog.tsx';

export async function openSaved(id: string): Promise<boolean> {
  const asked = useStore.getState().document;
  const r = await openDesign(id);
  const s = useStore.getState();
  // Another document opened while this one was on its way (an example clicked meanwhile): the
  // later choice stands.
  if (s.document !== asked) return false;
  if (!r.ok) {
    s.notify('error', `could not open ${id}: ${r.message}`);
    return false;
  }
  s.dispatch(openDesignAction, { design: r.value.design });
  autosave.exampleOpened(null);
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
  const [query, setQuery] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    void listDesigns().then((r) => setList(r.ok ? r.value : r.message));
  }, []);
  const shown = Array.isArray(list) ? searchSaved(list, query) : [];
  const replace = (id: string, next: DesignSummary | null) =>
    setList((l) => (Array.isArray(l) ? l.flatMap((d) => (d.id !== id ? [d] : next ? [next] : [])) : l));
  return (
    <Dialog title="Open a saved design" onClose={onClose} testid="open-dialog">
      <input
        type="search"
        className="saved-search"
        data-testid="open-search"
        aria-label="search saved designs by name or id"
        placeholder="search by name or id"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {problem && (
        <p className="inline-error" role="alert">
          {problem}
        </p>
      )}
      {list === null && <p className="hint">loading…</p>}
      {typeof list === 'string' && <p className="inline-error">{list}</p>}
      {Array.isArray(list) && list.length === 0 && (
        <p className="hint">No saved designs yet: edits are saved automatically.</p>
      )}
      {Array.isArray(list) && list.length > 0 && shown.length === 0 && (
        <p className="hint">No saved design matches “{query}”.</p>
      )}
      {Array.isArray(list) && (
        <ul className="saved-list">
          {groupCopies(shown).map(({ design: d, copyOf }) => (
            <SavedRow
              key={d.id}
              design={d}
              copyOf={copyOf}
              onOpen={() => void openSaved(d.id).then((ok) => ok && onClose())}
              onRenamed={(name, version) => replace(d.id, { ...d, name, version })}
              onDeleted={() => replace(d.id, null)}
              onProblem={setProblem}
            />
          ))}
        </ul>
      )}
    </Dialog>
  );
}

interface SavedRowEvents {
  onRenamed(name: string, version: number): void;
  onDeleted(): void;
  onProblem(message: string | null): void;
}

/** One saved design: open it, rename it (a new version under the new name) or delete it (asked first). */
function SavedRow({
  design: d,
  copyOf,
  onOpen,
  ...events
}: SavedRowEvents & {
  design: DesignSummary;
  /** The example it is the working copy of: drawn under it, saying so. */
  copyOf: string | null;
  onOpen(): void;
}) {
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [name, setName] = useState(d.name);
  const rename = async () => {
    await renameSavedRow(d, name.trim(), events);
    setMode('view');
  };
  const remove = async () => {
    if (!(await deleteSavedRow(d, events))) setMode('view');
  };
  return (
    <li
      className={copyOf ? 'saved-row saved-copy' : 'saved-row'}
      data-testid={`saved-row-${d.id}`}
      data-copy-of={copyOf ?? undefined}
    >
      {mode === 'rename' ? (
        <SavedRenameForm
          design={d}
          name={name}
          onName={setName}
          onSubmit={() => void rename()}
          onCancel={() => setMode('view')}
        />
      ) : (
        <button type="button" className="saved-open" data-testid={`saved-${d.id}`} onClick={onOpen}>
          {copyOf && <span className="saved-copy-of">working copy of {copyOf} · </span>}
          <b>{d.name}</b> <span>v{d.version}</span>
          {/* Two designs may share a name: the id tells them apart. */}
          <span className="saved-id">{d.id}</span> <time>{new Date(d.updatedAt).toLocaleString()}</time>
        </button>
      )}
      {mode === 'delete' ? (
        <span className="saved-confirm">
          delete with its {d.version} version{d.version === 1 ? '' : 's'}?
          <button
            type="button"
            className="danger"
            data-testid={`delete-ok-${d.id}`}
            onClick={() => void remove()}
          >
            Delete
          </button>
          <button type="button" onClick={() => setMode('view')}>
            Keep
          </button>
        </span>
      ) : (
        mode === 'view' && (
          <SavedRowActions
            design={d}
            onRename={() => {
              setName(d.name);
              setMode('rename');
            }}
            onDelete={() => setMode('delete')}
          />
        )
      )}
    </li>
  );
}

/**
 * Renames a saved design to `next` (trimmed); an empty or unchanged name renames nothing. The open
 * design is renamed by an edit, any other on the server.
 */
async function renameSavedRow(d: DesignSummary, next: string, events: SavedRowEvents): Promise<void> {
  if (next === '' || next === d.name) return;
  const s = useStore.getState();
  if (s.designId === d.id) {
    // The open design: renaming is an edit of it (undoable, saved as its next version).
    if (s.dispatch(renameAction, { name: next })) events.onRenamed(next, d.version);
    return;
  }
  const r = await renameSaved(d.id, next);
  if (!r.ok) events.onProblem(`could not rename ${d.id}: ${r.message}`);
  else {
    events.onProblem(null);
    events.onRenamed(next, r.value.version);
  }
}

/** Deletes a saved design; false when the server refused (the problem is reported). */
async function deleteSavedRow(d: DesignSummary, events: SavedRowEvents): Promise<boolean> {
  const r = await deleteDesign(d.id);
  if (!r.ok) {
    events.onProblem(`could not delete ${d.id}: ${r.message}`);
    return false;
  }
  events.onProblem(null);
  autosave.designDeleted(d.id);
  const s = useStore.getState();
  if (s.designId === d.id) {
    // The design stays in the editor, unsaved: its next edit saves it as a new design.
    autosave.exampleOpened(null);
    s.setSave({ designId: null, savedVersion: null, saveStatus: 'clean', saveMessage: '' });
    history.replaceState(null, '', location.pathname);
  }
  events.onDeleted();
  return true;
}

/** A saved row's new name being typed: Enter renames, Escape or Cancel leaves the row as it was. */
function SavedRenameForm({
  design: d,
  name,
  onName,
  onSubmit,
  onCancel,
}: {
  design: DesignSummary;
  name: string;
  onName(name: string): void;
  onSubmit(): void;
  onCancel(): void;
}) {
  return (
    <form
      className="saved-rename"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <input
        data-testid={`rename-input-${d.id}`}
        aria-label={`new name of ${d.name}`}
        value={name}
        // biome-ignore lint/a11y/noAutofocus: the rename field opens on the user's click and is what they type in
        autoFocus
        onChange={(e) => onName(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            // Cancels the rename, not the dialog.
            e.stopPropagation();
            onCancel();
          }
        }}
      />
      <button type="submit" data-testid={`rename-ok-${d.id}`}>
        Rename
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** The shown row's rename and delete buttons. */
function SavedRowActions({
  design: d,
  onRename,
  onDelete,
}: {
  design: DesignSummary;
  onRename(): void;
  onDelete(): void;
}) {
  return (
    <>
      <SavedAction verb="rename" icon="✎" design={d} onClick={onRename} />
      <SavedAction verb="delete" icon="🗑" design={d} onClick={onDelete} />
    </>
  );
}

/** One action on a saved design, an icon named for screen readers and tests by its verb. */
function SavedAction({
  verb,
  icon,
  design: d,
  onClick,
}: {
  verb: 'rename' | 'delete';
  icon: string;
  design: DesignSummary;
  onClick(): void;
}) {
  return (
    <button
      type="button"
      className="saved-action"
      data-testid={`${verb}-${d.id}`}
      aria-label={`${verb} ${d.name}`}
      title={verb}
      onClick={onClick}
    >
      {icon}
    </button>
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
                  const asked = useStore.getState().document;
                  void openVersion(id, v.version).then((r) => {
                    const s = useStore.getState();
                    // A version of the document before is not restored into another one.
                    if (s.document !== asked) return;
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
