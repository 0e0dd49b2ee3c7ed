/** Exports through POST /api/export in every format, plus the design file itself. */
import { useState } from 'react';
import { EXPORT_FORMATS, exportDesign } from '../api/designsApi.ts';
import { useStore } from '../store/index.ts';

function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function ExportMenu() {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <div className="menu">
      <button type="button" data-testid="export-menu" onClick={() => setOpen(!open)} aria-expanded={open}>
        Export ▾
      </button>
      {open && (
        <div className="menu-items" role="menu">
          {EXPORT_FORMATS.map((f) => (
            <button
              type="button"
              role="menuitem"
              key={f.label}
              disabled={busy}
              data-testid={`export-${f.key}${'torchFormat' in f.options ? `-${f.options.torchFormat}` : ''}`}
              onClick={async () => {
                setBusy(true);
                const s = useStore.getState();
                const r = await exportDesign(s.design, f.key, { ...f.options });
                setBusy(false);
                setOpen(false);
                if (r.ok) download(r.value.blob, r.value.filename);
                else s.notify('error', `export failed: ${r.message}`);
              }}
            >
              {f.label}
            </button>
          ))}
          <button
            type="button"
            role="menuitem"
            data-testid="export-design"
            onClick={() => {
              const d = useStore.getState().design;
              download(
                new Blob([`${JSON.stringify(d, null, 2)}\n`], { type: 'application/json' }),
                `${d.name}.json`,
              );
              setOpen(false);
            }}
          >
            Design file (.json)
          </button>
        </div>
      )}
    </div>
  );
}
