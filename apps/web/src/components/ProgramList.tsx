/**
 * The directive program in order: select to edit, drag (or ↑ ↓) to reorder, toggle, delete.
 * Errors of the last compile show at the directive their path names.
 */
import type { Issue } from '@stagecraft/ir';
import { useState } from 'react';
import { deleteDirectiveAction, moveDirectiveAction, toggleDirectiveAction } from '../core/actions.ts';
import { directiveSummary } from '../core/directiveSummary.ts';
import { useStore } from '../store/index.ts';

const PROGRAM_MIME = 'application/x-stagecraft-directive-index';

/** Errors of directive i: paths `directives[i]` and below. */
export function errorsAt(errors: readonly Issue[], i: number): Issue[] {
  const p = `directives[${i}]`;
  return errors.filter((e) => e.path === p || e.path.startsWith(`${p}.`) || e.path.startsWith(`${p}[`));
}

export function ProgramList() {
  const directives = useStore((s) => s.design.directives);
  const errors = useStore((s) => s.errors);
  const selected = useStore((s) => s.selectedDirective);
  const select = useStore((s) => s.select);
  const dispatch = useStore((s) => s.dispatch);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const general = errors.filter((e) => !e.path.startsWith('directives['));
  return (
    <section className="panel program">
      <h2>
        Program <span className="count">{directives.length}</span>
      </h2>
      {directives.length === 0 && (
        <p className="hint">No directives yet: pick a schedule or drop a directive.</p>
      )}
      <ol className="program-list" data-testid="program-list">
        {directives.map((d, i) => {
          const errs = errorsAt(errors, i);
          const off = d.enabled === false;
          return (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: a directive's identity is its position in the program
              key={i}
              className={`program-item${selected === i ? ' selected' : ''}${off ? ' disabled' : ''}${errs.length ? ' has-error' : ''}${dragOver === i ? ' drag-over' : ''}`}
              data-testid={`directive-${i}`}
              data-op={d.op}
              draggable
              onDragStart={(e) => {
                e.dataTransfer.setData(PROGRAM_MIME, String(i));
                e.dataTransfer.effectAllowed = 'move';
              }}
              onDragOver={(e) => {
                if (!e.dataTransfer.types.includes(PROGRAM_MIME)) return;
                e.preventDefault();
                setDragOver(i);
              }}
              onDragLeave={() => setDragOver(null)}
              onDrop={(e) => {
                setDragOver(null);
                const from = Number(e.dataTransfer.getData(PROGRAM_MIME));
                if (Number.isInteger(from) && from !== i) dispatch(moveDirectiveAction, { from, to: i });
              }}
            >
              <div className="program-row">
                <button
                  type="button"
                  className="program-main"
                  title={`${d.op} ${directiveSummary(d)}`}
                  onClick={() => select(i)}
                >
                  <span className="program-index">{i}</span>
                  <span className={`program-op op-${d.op}`}>{d.op}</span>
                  <span className="program-summary">{directiveSummary(d)}</span>
                </button>
                <span className="program-actions">
                  <button
                    type="button"
                    title="move up"
                    aria-label="move up"
                    disabled={i === 0}
                    onClick={() => dispatch(moveDirectiveAction, { from: i, to: i - 1 })}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    title="move down"
                    aria-label="move down"
                    disabled={i === directives.length - 1}
                    onClick={() => dispatch(moveDirectiveAction, { from: i, to: i + 1 })}
                  >
                    ↓
                  </button>
                  <label className="toggle" title={off ? 'enable' : 'disable'}>
                    <input
                      type="checkbox"
                      data-testid={`directive-toggle-${i}`}
                      checked={!off}
                      onChange={() => dispatch(toggleDirectiveAction, { index: i })}
                    />
                  </label>
                  <button
                    type="button"
                    title="delete"
                    aria-label="delete"
                    data-testid={`directive-delete-${i}`}
                    onClick={() => dispatch(deleteDirectiveAction, { index: i })}
                  >
                    ✕
                  </button>
                </span>
              </div>
              {errs.map((e) => (
                <div
                  key={e.path + e.message}
                  className="inline-error"
                  data-testid="directive-error"
                  role="alert"
                >
                  <code>{e.path}</code> {e.message}
                </div>
              ))}
            </li>
          );
        })}
      </ol>
      {general.map((e) => (
        <div key={e.path + e.message} className="inline-error" data-testid="design-error" role="alert">
          {e.path && <code>{e.path}</code>} {e.message}
        </div>
      ))}
    </section>
  );
}
