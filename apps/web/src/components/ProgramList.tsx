/**
 * The directive program in order: select to edit, drag (or ↑ ↓) to reorder, toggle, delete.
 * Errors of the last compile show at the directive their path names, and at the directive the
 * user edited when that edit caused them (core/errorCause.ts).
 */
import type { Directive, Issue } from '@stagecraft/ir';
import { useMemo, useState } from 'react';
import { deleteDirectiveAction, moveDirectiveAction, toggleDirectiveAction } from '../core/actions.ts';
import { directiveSummary } from '../core/directiveSummary.ts';
import { causedErrors, filterAtPath } from '../core/errorCause.ts';
import { useStore } from '../store/index.ts';
import { useFittedSummary } from './summaryRoom.ts';

const PROGRAM_MIME = 'application/x-stagecraft-directive-index';

/** Errors of directive i: paths `directives[i]` and below. */
export function errorsAt(errors: readonly Issue[], i: number): Issue[] {
  const p = `directives[${i}]`;
  return errors.filter((e) => e.path === p || e.path.startsWith(`${p}.`) || e.path.startsWith(`${p}[`));
}

/** Errors the user's edits caused elsewhere, by the index of the edited directive. */
export function useCausedErrors(): Map<number, Issue[]> {
  const errors = useStore((s) => s.errors);
  const design = useStore((s) => s.design);
  const suspects = useStore((s) => s.suspects);
  return useMemo(() => causedErrors(errors, design, suspects), [errors, design, suspects]);
}

/** An error this directive's edit caused elsewhere: the compiler's path and message, led by the cause. */
export function CausedError({ issue }: { issue: Issue }) {
  const filter = useStore((s) => filterAtPath(s.design, issue.path));
  return (
    <div className="inline-error caused" data-testid="directive-cause" role="alert">
      after this edit: {issue.path && <code>{issue.path}</code>}
      {filter && ` (${filter})`} {issue.message}
    </div>
  );
}

/** A row's op and summary: the summary cut between words to the room it has (core/summaryFit.ts). */
function ProgramMain({
  index,
  directive,
  onSelect,
}: {
  index: number;
  directive: Directive;
  onSelect: () => void;
}) {
  const full = directiveSummary(directive);
  const { main, op, summary, fit } = useFittedSummary(full);
  return (
    <button
      type="button"
      className="program-main"
      title={`${directive.op} ${full}`}
      onClick={onSelect}
      ref={main}
    >
      <span className="program-index">{index}</span>
      <span className={`program-op op-${directive.op}`} ref={op}>
        {directive.op}
      </span>
      <span
        className={`program-summary${fit.below ? ' below' : ''}`}
        ref={summary}
        data-testid="program-summary"
        style={fit.below ? { paddingLeft: fit.indent } : undefined}
      >
        {fit.text}
      </span>
    </button>
  );
}

export function ProgramList() {
  const directives = useStore((s) => s.design.directives);
  const errors = useStore((s) => s.errors);
  const selected = useStore((s) => s.selectedDirective);
  const select = useStore((s) => s.select);
  const dispatch = useStore((s) => s.dispatch);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const caused = useCausedErrors();
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
          const blamed = caused.get(i) ?? [];
          const off = d.enabled === false;
          return (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: a directive's identity is its position in the program
              key={i}
              className={`program-item${selected === i ? ' selected' : ''}${off ? ' disabled' : ''}${errs.length || blamed.length ? ' has-error' : ''}${dragOver === i ? ' drag-over' : ''}`}
              data-testid={`directive-${i}`}
              data-op={d.op}
              data-cause={blamed.length > 0 || undefined}
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
                <ProgramMain index={i} directive={d} onSelect={() => select(i)} />
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
              {blamed.map((e) => (
                <CausedError key={`cause ${e.path} ${e.message}`} issue={e} />
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
