/**
 * The examples gallery: open any design of examples/ as a new document. Its examples come in
 * sections (schedules, real models, meshes), a search narrows them by name, description or file,
 * and each says whether it fits in its GPUs' memory (a precomputed fact: core/exampleFacts.ts).
 */
import { useState } from 'react';
import { openDesignAction } from '../core/actions.ts';
import { EXAMPLE_FACTS, type ExampleGroup, exampleGroup } from '../core/exampleFacts.ts';
import { formatCount } from '../core/format.ts';
import { type Example, examples } from '../examples.ts';
import { formatBytes } from '../gantt/label.ts';
import { autosave, useStore } from '../store/index.ts';
import { Dialog } from './Dialog.tsx';

const GROUPS: readonly ExampleGroup[] = ['schedules', 'real models', 'meshes'];

function matches(e: Example, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  const text = `${e.design.name} ${e.design.description ?? ''} ${e.file}`.toLowerCase();
  return q.split(/\s+/).every((word) => text.includes(word));
}

/** "does not fit: 3,584 of 8,192 GPUs over memory (peak 101.8 GiB)", or null when it fits. */
function memoryNote(file: string): string | null {
  const f = EXAMPLE_FACTS[file];
  if (!f || f.oomDevices === 0) return null;
  return `does not fit: ${formatCount(f.oomDevices)} of ${formatCount(f.devices)} GPUs over memory (peak ${formatBytes(f.peakBytes)})`;
}

export function ExamplesGallery({ onClose }: { onClose: () => void }) {
  const dispatch = useStore((s) => s.dispatch);
  const setSave = useStore((s) => s.setSave);
  const [query, setQuery] = useState('');
  const shown = examples().filter((e) => matches(e, query));
  const open = (e: Example) => {
    dispatch(openDesignAction, { design: e.design });
    // An example opens unsaved; its edits go to its one fork (made by the first save).
    setSave({
      designId: autosave.exampleOpened(e.file),
      savedVersion: null,
      saveStatus: 'clean',
      saveMessage: '',
    });
    history.replaceState(null, '', location.pathname);
    onClose();
  };
  return (
    <Dialog title="Examples" onClose={onClose} testid="examples-gallery">
      <input
        type="search"
        className="gallery-search"
        aria-label="search the examples by name, description or file"
        placeholder="search, e.g. dualpipe, 405b, zero"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        data-testid="gallery-search"
      />
      {shown.length === 0 && <p className="hint">No example matches “{query.trim()}”.</p>}
      {GROUPS.map((group) => {
        const inGroup = shown.filter((e) => exampleGroup(e.design) === group);
        if (inGroup.length === 0) return null;
        return (
          <section key={group} data-testid={`gallery-group-${group.replace(' ', '-')}`}>
            <h3 className="gallery-group">
              {group} <span className="hint">({inGroup.length})</span>
            </h3>
            <div className="gallery">
              {inGroup.map((e) => {
                const note = memoryNote(e.file);
                return (
                  <button
                    type="button"
                    key={e.file}
                    className="gallery-card"
                    data-testid={`example-${e.file}`}
                    onClick={() => open(e)}
                  >
                    <b>{e.design.name}</b>
                    <span>{e.design.description ?? ''}</span>
                    {note && (
                      <span className="gallery-oom" data-testid="gallery-oom">
                        {note}
                      </span>
                    )}
                  </button>
                );
              })}
            </div>
          </section>
        );
      })}
    </Dialog>
  );
}
