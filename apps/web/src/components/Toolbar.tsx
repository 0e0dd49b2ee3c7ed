/** The top bar: the design's name, documents (examples, open, versions), undo/redo, export, compare. */
import { useState } from 'react';
import { pinAction, redoAction, renameAction, saveAction, undoAction } from '../core/actions.ts';
import { MAX_PINS, type Tab, useStore } from '../store/index.ts';
import { performSession } from '../store/session.ts';
import { CopyLinkButton } from './DesignLink.tsx';
import { OpenDialog, VersionsDialog } from './DesignsDialog.tsx';
import { ExamplesGallery } from './ExamplesGallery.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { CommitInput } from './Inspector.tsx';

/** The workspace's tabs, in order. */
const TABS: readonly (readonly [Tab, string])[] = [
  ['design', 'Design'],
  ['compare', 'Compare'],
  ['planner', 'Planner'],
];

const SAVE_LABEL = {
  clean: 'not saved',
  dirty: 'unsaved changes',
  saving: 'saving…',
  saved: 'saved',
  error: 'save failed',
  offline: 'API offline',
  invalid: 'not saved: the design has errors',
} as const;

export function Toolbar() {
  const name = useStore((s) => s.design.name);
  const dispatch = useStore((s) => s.dispatch);
  const canUndo = useStore((s) => s.history.past.length > 0);
  const canRedo = useStore((s) => s.history.future.length > 0);
  const tab = useStore((s) => s.tab);
  const setTab = useStore((s) => s.setTab);
  const pins = useStore((s) => s.pins.length);
  const saveStatus = useStore((s) => s.saveStatus);
  const saveMessage = useStore((s) => s.saveMessage);
  const version = useStore((s) => s.savedVersion);
  const [dialog, setDialog] = useState<'examples' | 'open' | 'versions' | null>(null);
  return (
    <header className="toolbar">
      <span className="brand">Stagecraft</span>
      <span className="design-name">
        <CommitInput
          testid="design-name"
          label="design name"
          value={name}
          parse={(t) =>
            t.trim() ? { ok: true, value: t.trim() } : { ok: false, message: 'a name is required' }
          }
          onCommit={(v) => dispatch(renameAction, { name: String(v) })}
        />
      </span>
      <span className={`save-status ${saveStatus}`} data-testid="save-status" title={saveMessage}>
        {SAVE_LABEL[saveStatus]}
        {version !== null && saveStatus === 'saved' ? ` · v${version}` : ''}
      </span>
      <nav className="toolbar-group">
        <button type="button" data-testid="open-examples" onClick={() => setDialog('examples')}>
          Examples
        </button>
        <button type="button" data-testid="open-saved" onClick={() => setDialog('open')}>
          Open
        </button>
        <button type="button" data-testid="open-versions" onClick={() => setDialog('versions')}>
          Versions
        </button>
        <button type="button" data-testid="save" onClick={() => performSession(saveAction)} title="Ctrl+S">
          Save
        </button>
      </nav>
      <nav className="toolbar-group">
        <button
          type="button"
          data-testid="undo"
          disabled={!canUndo}
          onClick={() => performSession(undoAction)}
          title="Ctrl+Z"
        >
          ↶ Undo
        </button>
        <button
          type="button"
          data-testid="redo"
          disabled={!canRedo}
          onClick={() => performSession(redoAction)}
          title="Ctrl+Shift+Z"
        >
          ↷ Redo
        </button>
      </nav>
      <nav className="toolbar-group">
        <ExportMenu />
        <CopyLinkButton />
        {/* At 4/4 the button stays focusable and says why it does nothing (title, and the notice on click). */}
        <button
          type="button"
          data-testid="pin"
          className={pins >= MAX_PINS ? 'looks-disabled' : undefined}
          onClick={() => performSession(pinAction)}
          aria-disabled={pins >= MAX_PINS}
          title={
            pins >= MAX_PINS
              ? `${MAX_PINS} variants are pinned, the most Compare shows: unpin one in Compare to pin this one`
              : 'pin this variant for comparison (Ctrl+Shift+P)'
          }
        >
          Pin ({pins}/{MAX_PINS})
        </button>
        <div className="tabs" role="tablist">
          {TABS.map(([id, label]) => (
            <button
              key={id}
              type="button"
              role="tab"
              aria-selected={tab === id}
              data-testid={`tab-${id}`}
              onClick={() => setTab(id)}
            >
              {label}
            </button>
          ))}
        </div>
      </nav>
      {dialog === 'examples' && <ExamplesGallery onClose={() => setDialog(null)} />}
      {dialog === 'open' && <OpenDialog onClose={() => setDialog(null)} />}
      {dialog === 'versions' && <VersionsDialog onClose={() => setDialog(null)} />}
    </header>
  );
}
