/**
 * torch.distributed.pipelining's action strings, as `_Action.__repr__` writes them and
 * `_Action.from_str` reads them: `{stage}{type}{microbatch}` (`0F3`, `7I0`, `2SEND_F1`), the
 * microbatch omitted for UNSHARD / RESHARD / REDUCE_GRAD (`1UNSHARD`), an overlapped pair as
 * `(0F7;7B3)OVERLAP_F_B`, and an empty cell for an idle slot.
 *
 * Two dialects: `current` writes F, I (backward for inputs), W (backward for weights), B (full
 * backward); `legacy` releases wrote B for the backward for inputs when the schedule splits the
 * backward (a W of the same stage and microbatch exists) and for the full backward otherwise, and
 * some wrote BW for the full backward. Actions are kept by meaning (`BI`, `BW`, `B`), so one
 * schedule can be read in one dialect and written in the other.
 */
import { type Issue, IssueList } from '@stagecraft/ir';
import { torchAction as builderTorchAction } from '../builders/torchActions.ts';

export type TorchDialect = 'current' | 'legacy';
export const TORCH_DIALECTS: readonly TorchDialect[] = ['current', 'legacy'];

/** What an action does, independent of how a dialect spells it. */
export type TorchCompute = 'F' | 'BI' | 'BW' | 'B';
export type TorchComm = 'SEND_F' | 'RECV_F' | 'SEND_B' | 'RECV_B';
export type TorchStageOp = 'UNSHARD' | 'RESHARD' | 'REDUCE_GRAD';
export type TorchActionType = TorchCompute | TorchComm | TorchStageOp;

export interface TorchAction {
  readonly kind: 'action';
  readonly stage: number;
  readonly type: TorchActionType;
  /** Absent for UNSHARD, RESHARD and REDUCE_GRAD, which act on a stage's parameters. */
  readonly mb?: number;
}

/** `(a;b)OVERLAP_F_B`: compute actions the runtime issues together. */
export interface TorchOverlap {
  readonly kind: 'overlap';
  readonly actions: readonly TorchAction[];
}

/** One cell of a row: an action, an overlapped group, or null for an idle slot. */
export type TorchCell = TorchAction | TorchOverlap | null;

const COMPUTE: readonly TorchActionType[] = ['F', 'BI', 'BW', 'B'];
const STAGE_OPS: readonly TorchActionType[] = ['UNSHARD', 'RESHARD', 'REDUCE_GRAD'];

export function isCompute(t: TorchActionType): t is TorchCompute {
  return COMPUTE.includes(t);
}

export function hasMicrobatch(t: TorchActionType): boolean {
  return !STAGE_OPS.includes(t);
}

export function torchAction(stage: number, type: TorchActionType, mb?: number): TorchAction {
  return mb === undefined ? { kind: 'action', stage, type } : { kind: 'action', stage, type, mb };
}

const COMM_SPELLING: Record<TorchComm | TorchStageOp, string> = {
  SEND_F: 'SEND_F',
  RECV_F: 'RECV_F',
  SEND_B: 'SEND_B',
  RECV_B: 'RECV_B',
  UNSHARD: 'UNSHARD',
  RESHARD: 'RESHARD',
  REDUCE_GRAD: 'REDUCE_GRAD',
};

const COMPUTE_SPELLING: Record<TorchDialect, Record<TorchCompute, string>> = {
  current: { F: 'F', BI: 'I', BW: 'W', B: 'B' },
  legacy: { F: 'F', BI: 'B', BW: 'W', B: 'B' },
};

export function spellType(t: TorchActionType, dialect: TorchDialect): string {
  return isCompute(t) ? COMPUTE_SPELLING[dialect][t] : COMM_SPELLING[t];
}

export function formatAction(a: TorchAction, dialect: TorchDialect): string {
  // The current dialect's compute actions are the builders' notation; one spelling for both.
  if (dialect === 'current' && isCompute(a.type) && a.mb !== undefined)
    return builderTorchAction({ stage: a.stage, mb: a.mb, pass: a.type });
  return `${a.stage}${spellType(a.type, dialect)}${a.mb ?? ''}`;
}

export function formatCell(c: TorchCell, dialect: TorchDialect): string {
  if (c === null) return '';
  if (c.kind === 'action') return formatAction(c, dialect);
  return `(${c.actions.map((a) => formatAction(a, dialect)).join(';')})OVERLAP_F_B`;
}

/**
 * A type as written in a file, before the legacy B is resolved: `B?` is legacy's B, whose meaning
 * depends on whether the same stage and microbatch also has a W.
 */
type Spelled = TorchActionType | 'B?';

const READ: Record<TorchDialect, Record<string, Spelled>> = {
  current: { F: 'F', I: 'BI', W: 'BW', B: 'B' },
  legacy: { F: 'F', B: 'B?', W: 'BW', BW: 'B' },
};
for (const d of TORCH_DIALECTS) Object.assign(READ[d], COMM_SPELLING);

/** A cell as an error quotes it: a line of megabytes is not echoed whole. */
function shown(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const ACTION = /^(\d+)([A-Z_]+?)(\d*)$/;

export interface ParsedAction {
  stage: number;
  type: Spelled;
  mb?: number;
}

/** One simple action (not an overlap); a reason string when it does not parse. */
export function parseAction(text: string, dialect: TorchDialect): ParsedAction | string {
  const m = ACTION.exec(text);
  if (!m) {
    return /^\d+$/.test(text)
      ? `"${shown(text)}" has a stage but no action type (a truncated cell?)`
      : `"${shown(text)}" is not an action: expected {stage}{type}{microbatch}, e.g. 2F0`;
  }
  const [, stage, typeText, mbText] = m as unknown as [string, string, string, string];
  const type = READ[dialect][typeText];
  if (type === undefined) {
    const hint =
      dialect === 'current' && typeText === 'BW'
        ? '; older releases wrote BW for the full backward: read the file with the legacy dialect'
        : '';
    const known = Object.keys(READ[dialect]).join(', ');
    return `unknown action type "${shown(typeText)}" in "${shown(text)}" (the ${dialect} dialect has ${known})${hint}`;
  }
  const needsMb = type === 'B?' || hasMicrobatch(type);
  if (needsMb && mbText === '') return `"${shown(text)}" has no microbatch index (a truncated cell?)`;
  if (!needsMb && mbText !== '') return `"${shown(text)}": ${typeText} takes no microbatch index`;
  // Past 2^53 a number no longer holds its digits: a stage of 23 digits is a broken file.
  if (!Number.isSafeInteger(Number(stage)))
    return `"${shown(text)}": stage ${stage.slice(0, 30)} is not a usable index`;
  if (mbText !== '' && !Number.isSafeInteger(Number(mbText)))
    return `"${shown(text)}": microbatch ${mbText.slice(0, 30)} is not a usable index`;
  const out: ParsedAction = { stage: Number(stage), type };
  if (mbText !== '') out.mb = Number(mbText);
  return out;
}

export type ParsedCell =
  | null
  | { kind: 'action'; action: ParsedAction }
  | { kind: 'overlap'; actions: ParsedAction[] };

/** One cell: empty (idle), an action, or `(a;b)OVERLAP_F_B`. */
export function parseCell(raw: string, dialect: TorchDialect): ParsedCell | string {
  const text = raw.trim();
  if (text === '') return null;
  if (text.startsWith('(')) {
    const close = text.indexOf(')');
    if (close < 0) return `"${shown(text)}" opens "(" but never closes it (a truncated cell?)`;
    const kind = text.slice(close + 1);
    if (kind !== 'OVERLAP_F_B')
      return `"${shown(text)}": a group of actions must be followed by OVERLAP_F_B, not "${shown(kind)}"`;
    const parts = text.slice(1, close).split(';');
    const actions: ParsedAction[] = [];
    for (const part of parts) {
      const a = parseAction(part.trim(), dialect);
      if (typeof a === 'string') return a;
      if (a.type !== 'B?' && !isCompute(a.type))
        return `"${shown(text)}": only compute actions (F, I, W, B) can overlap, not "${shown(part.trim())}"`;
      actions.push(a);
    }
    if (actions.length < 2) return `"${shown(text)}": OVERLAP_F_B needs at least two actions`;
    return { kind: 'overlap', actions };
  }
  const a = parseAction(text, dialect);
  return typeof a === 'string' ? a : { kind: 'action', action: a };
}

/** Spreadsheet coordinates, 1-based, as a user finds them in an editor. */
export function cellPath(row: number, cell: number): string {
  return `row ${row + 1}, cell ${cell + 1}`;
}

/** Parses the rows of a torch CSV (one row per rank). Legacy B is resolved against the whole file. */
export function parseTorchRows(
  text: string,
  dialect: TorchDialect,
): { ok: true; rows: TorchCell[][] } | { ok: false; errors: Issue[] } {
  if (text.trim() === '') return { ok: false, errors: [{ path: '', message: 'the file is empty' }] };
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const errors = new IssueList();
  const parsed: ParsedCell[][] = lines.map((line, r) =>
    line.split(',').map((raw, c) => {
      if (raw.includes('"')) {
        errors.add(cellPath(r, c), 'a torch action never needs quoting');
        return null;
      }
      const cell = parseCell(raw, dialect);
      if (typeof cell === 'string') {
        errors.add(cellPath(r, c), cell);
        return null;
      }
      return cell;
    }),
  );
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
  const weights = new Set<string>();
  for (const row of parsed)
    for (const cell of row)
      for (const a of actionsOf(cell)) if (a.type === 'BW') weights.add(`${a.stage}:${a.mb}`);
  const resolve = (a: ParsedAction): TorchAction =>
    torchAction(a.stage, a.type === 'B?' ? (weights.has(`${a.stage}:${a.mb}`) ? 'BI' : 'B') : a.type, a.mb);
  const rows = parsed.map((row) =>
    row.map((cell): TorchCell => {
      if (cell === null) return null;
      if (cell.kind === 'action') return resolve(cell.action);
      return { kind: 'overlap', actions: cell.actions.map(resolve) };
    }),
  );
  return { ok: true, rows };
}

function actionsOf(cell: ParsedCell): ParsedAction[] {
  if (cell === null) return [];
  return cell.kind === 'action' ? [cell.action] : cell.actions;
}

/** The CSV text: one line per rank, cells joined by commas, a newline after every row. */
export function formatTorchRows(rows: readonly (readonly TorchCell[])[], dialect: TorchDialect): string {
  return rows.map((row) => `${row.map((c) => formatCell(c, dialect)).join(',')}\n`).join('');
}

/** The simple actions of a cell (an overlap's members, in order). */
export function cellActions(cell: TorchCell): readonly TorchAction[] {
  if (cell === null) return [];
  return cell.kind === 'action' ? [cell] : cell.actions;
}
