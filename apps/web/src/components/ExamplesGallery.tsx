/** The examples gallery: open any design of examples/ as a new document. */
import { openDesignAction } from '../core/actions.ts';
import { EXAMPLES } from '../examples.ts';
import { autosave, useStore } from '../store/index.ts';
import { Dialog } from './Dialog.tsx';

export function ExamplesGallery({ onClose }: { onClose: () => void }) {
  const dispatch = useStore((s) => s.dispatch);
  const setSave = useStore((s) => s.setSave);
  return (
    <Dialog title="Examples" onClose={onClose} testid="examples-gallery">
      <div className="gallery">
        {EXAMPLES.map((e) => (
          <button
            type="button"
            key={e.file}
            className="gallery-card"
            data-testid={`example-${e.file}`}
            onClick={() => {
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
            }}
          >
            <b>{e.design.name}</b>
            <span>{e.design.description ?? ''}</span>
          </button>
        ))}
      </div>
    </Dialog>
  );
}
