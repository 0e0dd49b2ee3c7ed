/**
 * The directive program in order: select to edit, drag (or ↑ ↓) to reorder, toggle, delete. A
 * schedule is one item with what the user changed of it folded beneath (core/scheduleFold.ts).
 * Errors of the last compile show at the directive their path names, and at the directive the
 * user edited when that edit caused them (core/errorCause.ts).
 */
import { type Directive, type Issue, scheduleEditDetail } from '@stagecraft/ir';
import { useMemo, useState } from 'react';
import {
  deleteDirectiveAction,
  moveDirectiveAction,
  removeScheduleEditAction,
  toggleDirectiveAction,
} from '../core/actions.ts';
import { directiveSummary } from '../core/directiveSummary.ts';
import { causedErrors, filterAtPath } from '../core/errorCause.ts';
import { foldedIndices, foldSummary, type ScheduleFold, scheduleFold } from '../core/scheduleFold.ts';
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

/** Errors of edit k of the schedule at i: paths `directives[i].edits[k]` and below. */
function editErrors(errors: readonly Issue[], i: number, k: number): Issue[] {
  const p = `directives[${i}].edits[${k}]`;
  return errors.filter((e) => e.path === p || e.path.startsWith(`${p}.`) || e.path.startsWith(`${p}[`));
}

function InlineErrors({ errors }: { errors: readonly Issue[] }) {
  return errors.map((e) => (
    <div key={e.path + e.message} className="inline-error" data-testid="directive-error" role="alert">
      <code>{e.path}</code> {e.message}
    </div>
  ));
}

/** One directive of the program: its row, its errors and, for a schedule, what is folded beneath it. */
function ProgramItem({
  index,
  dragOver,
  setDragOver,
}: {
  index: number;
  dragOver: number | null;
  setDragOver: (i: number | null) => void;
}) {
  const design = useStore((s) => s.design);
  const errors = useStore((s) => s.errors);
  const selected = useStore((s) => s.selectedDirective);
  const select = useStore((s) => s.select);
  const dispatch = useStore((s) => s.dispatch);
  const caused = useCausedErrors();
  const d = design.directives[index]!;
  const count = design.directives.length;
  const fold = scheduleFold(design, index);
  // A schedule's edit errors show at the edit, in its fold.
  const errs = errorsAt(errors, index).filter((e) => !e.path.startsWith(`directives[${index}].edits[`));
  const editErrs = errorsAt(errors, index).filter((e) => !errs.includes(e));
  const blamed = caused.get(index) ?? [];
  const off = d.enabled === false;
  return (
    <li
      className={`program-item${selected === index ? ' selected' : ''}${off ? ' disabled' : ''}${errs.length || editErrs.length || blamed.length ? ' has-error' : ''}${dragOver === index ? ' drag-over' : ''}`}
      data-testid={`directive-${index}`}
      data-op={d.op}
      data-cause={blamed.length > 0 || undefined}
      draggable
      onDragStart={(e) => {
        e.stopPropagation();
        e.dataTransfer.setData(PROGRAM_MIME, String(index));
        e.dataTransfer.effectAllowed = 'move';
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes(PROGRAM_MIME)) return;
        e.preventDefault();
        e.stopPropagation();
        setDragOver(index);
      }}
      onDragLeave={() => setDragOver(null)}
      onDrop={(e) => {
        e.stopPropagation();
        setDragOver(null);
        const from = Number(e.dataTransfer.getData(PROGRAM_MIME));
        if (Number.isInteger(from) && from !== index) dispatch(moveDirectiveAction, { from, to: index });
      }}
    >
      <div className="program-row">
        <ProgramMain index={index} directive={d} onSelect={() => select(index)} />
        <span className="program-actions">
          <button
            type="button"
            title="move up"
            aria-label="move up"
            disabled={index === 0}
            onClick={() => dispatch(moveDirectiveAction, { from: index, to: index - 1 })}
          >
            ↑
          </button>
          <button
            type="button"
            title="move down"
            aria-label="move down"
            disabled={index === count - 1}
            onClick={() => dispatch(moveDirectiveAction, { from: index, to: index + 1 })}
          >
            ↓
          </button>
          <label className="toggle" title={off ? 'enable' : 'disable'}>
            <input
              type="checkbox"
              aria-label={off ? 'enable' : 'disable'}
              data-testid={`directive-toggle-${index}`}
              checked={!off}
              onChange={() => dispatch(toggleDirectiveAction, { index })}
            />
          </label>
          <button
            type="button"
            title="delete"
            aria-label="delete"
            data-testid={`directive-delete-${index}`}
            onClick={() => dispatch(deleteDirectiveAction, { index })}
          >
            ✕
          </button>
        </span>
      </div>
      <InlineErrors errors={errs} />
      {blamed.map((e) => (
        <CausedError key={`cause ${e.path} ${e.message}`} issue={e} />
      ))}
      {fold && (fold.splits.length > 0 || fold.edits.length > 0) && (
        <ScheduleFoldView
          index={index}
          fold={fold}
          editErrors={editErrs}
          dragOver={dragOver}
          setDragOver={setDragOver}
        />
      )}
    </li>
  );
}

/**
 * What the user changed of a schedule, folded beneath it in one line; opened on demand, and
 * while one of its split_backwards is selected (a drop selects the one it added).
 */
function ScheduleFoldView({
  index,
  fold,
  editErrors: errs,
  dragOver,
  setDragOver,
}: {
  index: number;
  fold: ScheduleFold;
  editErrors: readonly Issue[];
  dragOver: number | null;
  setDragOver: (i: number | null) => void;
}) {
  const design = useStore((s) => s.design);
  const selected = useStore((s) => s.selectedDirective);
  const dispatch = useStore((s) => s.dispatch);
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? (selected !== null && fold.splits.includes(selected));
  const summary = foldSummary(design, fold);
  return (
    <div className="schedule-fold" data-testid={`schedule-fold-${index}`}>
      <button
        type="button"
        className="fold-toggle"
        aria-expanded={open}
        data-testid={`fold-toggle-${index}`}
        title={summary}
        onClick={() => setChosen(!open)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> <span className="fold-summary">{summary}</span>
      </button>
      {!open && <InlineErrors errors={errs} />}
      {open && (
        <ol className="program-list fold-list">
          {fold.splits.map((i) => (
            <ProgramItem key={i} index={i} dragOver={dragOver} setDragOver={setDragOver} />
          ))}
          {fold.edits.map((e, k) => {
            const mine = editErrors(errs, index, k);
            return (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: an edit's identity is its place in the list
                key={k}
                className={`program-item fold-edit${mine.length ? ' has-error' : ''}`}
                data-testid={`schedule-edit-${index}-${k}`}
                data-kind={e.kind}
              >
                <div className="program-row">
                  <span className="program-main">
                    {/* Edits have no directive index: the column stays empty so the rows align. */}
                    <span className="program-index" />
                    <span className={`program-op edit-${e.kind}`}>{e.kind}</span>
                    <span className="program-summary">{scheduleEditDetail(e)}</span>
                  </span>
                  <span className="program-actions">
                    <button
                      type="button"
                      title="remove this edit"
                      aria-label="remove this edit"
                      data-testid={`schedule-edit-delete-${index}-${k}`}
                      onClick={() => dispatch(removeScheduleEditAction, { index, edit: k })}
                    >
                      ✕
                    </button>
                  </span>
                </div>
                <InlineErrors errors={mine} />
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

export function ProgramList() {
  const design = useStore((s) => s.design);
  const errors = useStore((s) => s.errors);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const directives = design.directives;
  const folded = useMemo(() => foldedIndices(design), [design]);
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
        {directives.map((_, i) =>
          folded.has(i) ? null : (
            // biome-ignore lint/suspicious/noArrayIndexKey: a directive's identity is its position in the program
            <ProgramItem key={i} index={i} dragOver={dragOver} setDragOver={setDragOver} />
          ),
        )}
      </ol>
      {general.map((e) => (
        <div key={e.path + e.message} className="inline-error" data-testid="design-error" role="alert">
          {e.path && <code>{e.path}</code>} {e.message}
        </div>
      ))}
    </section>
  );
}
