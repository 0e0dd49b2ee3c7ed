/** Edits the fields of the selected directive; every committed change is one undoable action. */
import {
  type Directive,
  type Filter,
  type FilterValue,
  SCHEDULE_BUILDERS,
  type ScheduleBuilderName,
} from '@stagecraft/ir';
import { useEffect, useState } from 'react';
import { expandScheduleAction, switchBuilderAction, updateDirectiveAction } from '../core/actions.ts';
import { fieldProblem } from '../core/directiveCheck.ts';
import { isBuilder } from '../core/palette.ts';
import { scheduleIndex } from '../core/schedule.ts';
import { currentResult } from '../store/current.ts';
import { useStore } from '../store/index.ts';
import { FIELDS, type FieldSpec } from './fields.ts';
import { CausedError, errorsAt, useCausedErrors } from './ProgramList.tsx';

type Value = unknown;

function parseFilterValue(text: string): FilterValue | null {
  const t = text.trim();
  if (t === '*' || t === 'F' || t === 'B' || t === 'BI' || t === 'BW') return t;
  if (/^\d+$/.test(t)) return Number(t);
  return null;
}

type Parse = (text: string) => { ok: true; value: Value } | { ok: false; message: string };

/**
 * A text input that commits on Enter or blur, and says what is wrong with its text. A value it
 * refuses is never committed; its message goes as soon as the text is valid again (or back to
 * the committed value), not only on the next commit.
 */
export function CommitInput({
  value,
  onCommit,
  testid,
  parse,
  multiline,
  placeholder,
  label,
}: {
  value: string;
  onCommit: (v: Value) => void;
  testid: string;
  parse: Parse;
  multiline?: boolean;
  /** Its accessible name, when no <label> around it gives one. */
  label?: string;
  /** What an empty field stands for (a preset's value the design does not override). */
  placeholder?: string;
}) {
  const [text, setText] = useState(value);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    setText(value);
    setErr(null);
  }, [value]);
  const edit = (next: string) => {
    setText(next);
    if (err === null) return;
    if (next === value) setErr(null);
    else {
      const r = parse(next);
      setErr(r.ok ? null : r.message);
    }
  };
  const commit = () => {
    if (text === value) {
      setErr(null);
      return;
    }
    const r = parse(text);
    if (!r.ok) {
      setErr(r.message);
      return;
    }
    setErr(null);
    onCommit(r.value);
  };
  const common = {
    'data-testid': testid,
    value: text,
    onBlur: commit,
    className: err ? 'invalid' : '',
    'aria-invalid': err !== null,
    ...(placeholder !== undefined ? { placeholder } : {}),
    ...(label !== undefined ? { 'aria-label': label } : {}),
  };
  return (
    <span className="commit-input">
      {multiline ? (
        <textarea
          {...common}
          rows={Math.min(12, Math.max(3, text.split('\n').length))}
          onChange={(e) => edit(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) commit();
          }}
        />
      ) : (
        <input
          {...common}
          onChange={(e) => edit(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            // Else the key's keypress clicks the button of a question the commit raised (focus
            // moved there meanwhile): "1e3" then answered its own question with Cancel.
            e.preventDefault();
            commit();
          }}
        />
      )}
      {err && (
        <span className="field-error" data-testid={`${testid}-error`} role="alert">
          {err}
        </span>
      )}
    </span>
  );
}

function FilterEditor({
  filter,
  onChange,
  testid,
}: {
  filter: Filter;
  onChange: (f: Filter) => void;
  testid: string;
}) {
  const entries = Object.entries(filter);
  const [newKey, setNewKey] = useState('');
  return (
    <div className="filter-editor">
      {entries.length === 0 && <span className="hint">matches every op</span>}
      {entries.map(([k, v]) => (
        <span className="filter-chip" key={k}>
          <b>{k}</b>=
          <CommitInput
            value={String(v)}
            label={`filter ${k}`}
            testid={`${testid}-${k}`}
            parse={(t) => {
              const p = parseFilterValue(t);
              return p === null
                ? { ok: false, message: 'an index, "*", or F / B / BI / BW' }
                : { ok: true, value: p };
            }}
            onCommit={(val) => onChange({ ...filter, [k]: val as FilterValue })}
          />
          <button
            type="button"
            aria-label={`remove ${k}`}
            onClick={() => {
              const { [k]: _, ...rest } = filter;
              onChange(rest);
            }}
          >
            ✕
          </button>
        </span>
      ))}
      <span className="filter-add">
        <input
          placeholder="tag"
          aria-label="add a filter tag"
          value={newKey}
          data-testid={`${testid}-new`}
          onChange={(e) => setNewKey(e.target.value.toUpperCase())}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && /^[A-Z][A-Z0-9_]*$/.test(newKey) && !(newKey in filter)) {
              onChange({ ...filter, [newKey]: newKey === 'PASS' ? 'F' : 0 });
              setNewKey('');
            }
          }}
        />
      </span>
    </div>
  );
}

function Field({
  spec,
  directive,
  onChange,
}: {
  spec: FieldSpec;
  directive: Directive;
  onChange: (key: string, v: Value | undefined) => void;
}) {
  const raw = (directive as unknown as Record<string, unknown>)[spec.key];
  const testid = `field-${spec.key}`;
  const label = spec.key;
  // The text's own form first (a number, JSON), then the design schema's word on the value.
  const clearable =
    (parseText: Parse): Parse =>
    (t) => {
      const r = spec.optional && t.trim() === '' ? { ok: true as const, value: undefined } : parseText(t);
      if (!r.ok) return r;
      const problem = fieldProblem(directive, spec.key, r.value);
      return problem === undefined ? r : { ok: false, message: problem };
    };
  switch (spec.kind) {
    case 'filter':
      return (
        <FilterEditor
          filter={(raw as Filter) ?? {}}
          testid={testid}
          onChange={(f) => onChange(spec.key, f)}
        />
      );
    case 'devices':
      return (
        <CommitInput
          label={label}
          testid={testid}
          value={Array.isArray(raw) ? raw.join(', ') : ''}
          parse={clearable((t) => {
            const parts = t.split(/[\s,]+/).filter(Boolean);
            if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p)))
              return { ok: false, message: 'device ids separated by commas' };
            return { ok: true, value: parts.map(Number) };
          })}
          onCommit={(v) => onChange(spec.key, v)}
        />
      );
    case 'int':
    case 'number':
      return (
        <CommitInput
          label={label}
          testid={testid}
          value={raw === undefined ? '' : String(raw)}
          parse={clearable((t) => {
            const n = Number(t);
            if (t.trim() === '' || !Number.isFinite(n)) return { ok: false, message: 'a number' };
            if (spec.kind === 'int' && !Number.isInteger(n)) return { ok: false, message: 'a whole number' };
            return { ok: true, value: n };
          })}
          onCommit={(v) => onChange(spec.key, v)}
        />
      );
    case 'string':
      return (
        <CommitInput
          label={label}
          testid={testid}
          value={raw === undefined ? '' : String(raw)}
          parse={clearable((t) => ({ ok: true, value: t.trim() }))}
          onCommit={(v) => onChange(spec.key, v)}
        />
      );
    case 'bool':
      return (
        <input
          type="checkbox"
          aria-label={label}
          data-testid={testid}
          checked={raw === true}
          onChange={(e) => onChange(spec.key, e.target.checked ? true : undefined)}
        />
      );
    case 'builder':
      return (
        <select
          aria-label={label}
          data-testid={testid}
          value={String(raw)}
          onChange={(e) => onChange(spec.key, e.target.value)}
        >
          {SCHEDULE_BUILDERS.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
      );
    case 'json':
      return (
        <CommitInput
          label={label}
          testid={testid}
          multiline
          value={raw === undefined ? '' : compactJson(raw)}
          parse={clearable((t) => {
            try {
              return { ok: true, value: JSON.parse(t) };
            } catch (e) {
              return { ok: false, message: `not JSON: ${(e as Error).message}` };
            }
          })}
          onCommit={(v) => onChange(spec.key, v)}
        />
      );
  }
}

/** JSON with one slot (or group) per line: readable for an order of hundreds of slots. */
function compactJson(v: unknown): string {
  if (Array.isArray(v)) return `[\n${v.map((x) => `  ${JSON.stringify(x)}`).join(',\n')}\n]`;
  return JSON.stringify(v);
}

export function Inspector() {
  const index = useStore((s) => s.selectedDirective);
  const directive = useStore((s) => (index === null ? undefined : s.design.directives[index]));
  const errors = useStore((s) => s.errors);
  const dispatch = useStore((s) => s.dispatch);
  const caused = useCausedErrors();
  if (index === null || !directive)
    return (
      <section className="panel inspector">
        <h2>Inspector</h2>
        <p className="hint">Select a directive in the program, or drop one on the DAG.</p>
      </section>
    );
  const onChange = (key: string, v: Value | undefined) => {
    // The program's schedule changes builder as the palette switches it: adapted, and asked.
    if (key === 'builder' && isBuilder(String(v)) && index === scheduleIndex(useStore.getState().design)) {
      dispatch(switchBuilderAction, { builder: String(v) as ScheduleBuilderName });
      return;
    }
    const next = { ...directive } as Record<string, unknown>;
    if (v === undefined) delete next[key];
    else next[key] = v;
    dispatch(updateDirectiveAction, { index, directive: next as unknown as Directive });
  };
  const errs = errorsAt(errors, index);
  return (
    <section className="panel inspector" data-testid="inspector">
      <h2>
        <span className={`program-op op-${directive.op}`}>{directive.op}</span> directives[{index}]
      </h2>
      {/* A field commits as a whole (a half-typed number is not a design): say when. */}
      <p className="hint" data-testid="inspector-apply-hint">
        A field applies on Enter (Ctrl+Enter in a text box) or when you leave it.
      </p>
      {(caused.get(index) ?? []).map((e) => (
        <CausedError key={`cause ${e.path} ${e.message}`} issue={e} />
      ))}
      <div className="fields">
        {FIELDS[directive.op].map((spec) => {
          const path = `directives[${index}].${spec.key}`;
          const fieldErrs = errs.filter(
            (e) => e.path === path || e.path.startsWith(`${path}.`) || e.path.startsWith(`${path}[`),
          );
          return (
            <div className="field" key={spec.key}>
              <span className="field-label" title={spec.help}>
                {spec.key}
                {spec.optional && <i> optional</i>}
              </span>
              <Field spec={spec} directive={directive} onChange={onChange} />
              {fieldErrs.map((e) => (
                <div key={e.path + e.message} className="inline-error" role="alert">
                  <code>{e.path}</code> {e.message}
                </div>
              ))}
            </div>
          );
        })}
        <label className="field">
          <span className="field-label">enabled</span>
          <input
            type="checkbox"
            checked={directive.enabled !== false}
            onChange={(e) => onChange('enabled', e.target.checked ? undefined : false)}
          />
        </label>
      </div>
      {directive.op === 'schedule' && (
        <button
          type="button"
          className="secondary"
          data-testid="expand-schedule"
          title="replace the schedule by the split, place and order it stands for"
          onClick={() => {
            const s = useStore.getState();
            const program = currentResult(s)?.program ?? [];
            s.dispatch(expandScheduleAction, { index, program });
          }}
        >
          Expand into place + split + order
        </button>
      )}
    </section>
  );
}
