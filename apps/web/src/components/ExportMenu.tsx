/**
 * Exports through POST /api/export in every format, plus the design file itself. Every file is
 * named by core/exportName.ts; a large file shows how much of it has arrived.
 */
import { piperRefusal, torchRefusal } from '@stagecraft/passes';
import { useState } from 'react';
import { EXPORT_FORMATS, type ExportProgress, exportDesign } from '../api/designsApi.ts';
import { exportFileName } from '../core/exportName.ts';
import { formatBytes } from '../gantt/label.ts';
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

/** The progress line: what the server is doing, then the bytes arrived (of the total, when known). */
export function progressText(p: ExportProgress): string {
  if (p.phase === 'compiling') return 'compiling and writing the file…';
  if (p.total === undefined) return `receiving ${formatBytes(p.bytes)}…`;
  return `receiving ${formatBytes(p.bytes)} of ${formatBytes(p.total)} (${Math.floor((100 * p.bytes) / p.total)}%)`;
}

type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Why the design cannot be written in `f`, from the exporters' own rule (exportRefusal.ts) on the
 * last result's program: the item is greyed with it instead of failing on the server.
 */
export function exportRefusal(
  f: ExportFormat,
  program: Parameters<typeof piperRefusal>[0],
): string | undefined {
  const refused =
    f.key === 'piper' ? piperRefusal(program) : f.key === 'torch-csv' ? torchRefusal(program) : undefined;
  return refused && `${refused.path ? `${refused.path}: ` : ''}${refused.message}`;
}

/** The plan's format: stagecraft/plan@3 for a design on meshes (docs/exports.md). */
export function exportLabel(f: ExportFormat, meshes: boolean): string {
  return f.key === 'plan' && meshes ? 'Plan (stagecraft/plan@3)' : f.label;
}

export function ExportMenu() {
  const program = useStore((s) => s.result?.program);
  const meshes = useStore((s) => s.result?.plan.meshes !== undefined);
  const [open, setOpen] = useState(false);
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const busy = progress !== null;
  return (
    <div className="menu">
      <button type="button" data-testid="export-menu" onClick={() => setOpen(!open)} aria-expanded={open}>
        Export ▾
      </button>
      {progress && (
        <span className="export-progress" role="status" data-testid="export-progress">
          {progressText(progress)}
        </span>
      )}
      {open && (
        <div className="menu-items" role="menu">
          {EXPORT_FORMATS.map((f) => {
            const refusal = program && exportRefusal(f, program);
            return (
              <button
                type="button"
                role="menuitem"
                key={f.label}
                disabled={busy || refusal !== undefined}
                title={refusal}
                data-testid={`export-${f.kind}`}
                onClick={async () => {
                  const s = useStore.getState();
                  const name = exportFileName(s.design.name, f.kind);
                  setOpen(false);
                  const r = await exportDesign(s.design, f.key, { ...f.options }, setProgress);
                  setProgress(null);
                  if (r.ok) download(r.value, name);
                  else s.notify('error', `export failed: ${r.message}`);
                }}
              >
                {exportLabel(f, meshes)}
                {refusal && <span className="menu-reason">{refusal}</span>}
              </button>
            );
          })}
          <button
            type="button"
            role="menuitem"
            data-testid="export-design"
            onClick={() => {
              const d = useStore.getState().design;
              download(
                new Blob([`${JSON.stringify(d, null, 2)}\n`], { type: 'application/json' }),
                exportFileName(d.name, 'design'),
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
