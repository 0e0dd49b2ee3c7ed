/**
 * A torch.distributed.pipelining CSV as a design: `split` into the file's microbatches, a `place`
 * per stage on the rank whose row runs it, and an `order` per rank whose slots are the row's cells
 * (an empty cell stays an empty slot), so the schedule can be seen, simulated, edited and written
 * back cell for cell. Communication and stage actions of a `compute_comms` file are dropped: the
 * compiler inserts SEND/RECV itself.
 */
import {
  type Cluster,
  CompileError,
  DESIGN_FORMAT,
  type Design,
  type DesignResult,
  type Directive,
  deviceCount,
  type Filter,
  type Issue,
  IssueList,
  type Model,
} from '@stagecraft/ir';
import { compile } from '../compile/compile.ts';
import { lowerModel, modelBlockCount, stageValues } from '../model/lowerModel.ts';
import { clusterDevices, importSizeIssue } from './importSize.ts';
import {
  cellActions,
  cellPath,
  isCompute,
  parseTorchRows,
  type TorchAction,
  type TorchCell,
  type TorchDialect,
} from './torchAction.ts';

export interface TorchImportOptions {
  dialect?: TorchDialect;
  /** The model to run the schedule on; by default one synthetic block per stage, F = BI = BW = 1 ms. */
  model?: Model;
  /** The cluster; by default an ideal cluster with one device per row. */
  cluster?: Cluster;
  name?: string;
  /** The compiler's op limit, checked against the schedule's size before anything is built. */
  maxOps?: number;
}

const SYNTHETIC_COSTS = { F: 1, BI: 1, BW: 1 };

export function importTorchCsv(text: string, options: TorchImportOptions = {}): DesignResult {
  const parsed = parseTorchRows(text, options.dialect ?? 'current');
  if (!parsed.ok) return parsed;
  // Communication and stage actions are not idle steps: they are left out, not made empty.
  const origin: number[][] = [];
  const rows = parsed.rows.map((row, r) => {
    origin.push([]);
    return row.filter((c, i) => {
      const keep = c === null || computeOnly(c) !== null;
      if (keep) origin[r]!.push(i);
      return keep;
    });
  });
  // Cells as the file numbers them (communication cells included).
  const at = (r: number, c: number) => cellPath(r, origin[r]![c] ?? parsed.rows[r]?.length ?? 0);
  const shape = checkSchedule(rows, at, options.maxOps);
  if ('errors' in shape) return { ok: false, errors: shape.errors };
  const { stages, microbatches, rankOf } = shape;

  const model: Model = options.model ?? { kind: 'synthetic', stages, costs: SYNTHETIC_COSTS };
  const tooLarge = importSizeIssue(
    {
      blocks: { count: modelBlockCount(model), path: 'model' },
      microbatches: { count: microbatches, path: 'model' },
      ...(options.cluster ? { devices: { count: clusterDevices(options.cluster), path: 'cluster' } } : {}),
    },
    options.maxOps,
  );
  if (tooLarge) return { ok: false, errors: [tooLarge] };
  let regions: number[];
  try {
    regions = stageValues(lowerModel(model));
  } catch (e) {
    if (e instanceof CompileError) return { ok: false, errors: e.issues };
    throw e;
  }
  if (regions.length === 0 || regions.length % stages !== 0)
    return {
      ok: false,
      errors: [
        {
          path: 'model',
          message: `the model has ${regions.length} PP regions, which do not divide into the schedule's ${stages} stages`,
        },
      ],
    };
  const perStage = regions.length / stages;
  const regionsOf = (s: number) => regions.slice(s * perStage, (s + 1) * perStage);
  const cluster: Cluster = options.cluster ?? { kind: 'ideal', devices: rows.length };
  let devices: number;
  try {
    devices = deviceCount(cluster);
  } catch (e) {
    if (e instanceof CompileError) return { ok: false, errors: e.issues };
    throw e;
  }
  if (devices < rows.length)
    return {
      ok: false,
      errors: [
        {
          path: 'cluster',
          message: `the schedule has ${rows.length} ranks but the cluster ${devices} devices`,
        },
      ],
    };

  const directives: Directive[] = [
    { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: microbatches },
  ];
  for (let s = 0; s < stages; s++)
    for (const pp of regionsOf(s))
      directives.push({ op: 'place', filter: { PP: pp }, devices: [rankOf[s]!] });
  const firstOrder = directives.length;
  const filtersOf = (a: TorchAction): Filter[] => {
    const rs = a.type === 'F' ? regionsOf(a.stage) : [...regionsOf(a.stage)].reverse();
    return rs.map((pp) => ({ PP: pp, MB: a.mb!, PASS: a.type as 'F' }));
  };
  for (const row of rows)
    directives.push({ op: 'order', filters: row.map((c) => cellActions(c).flatMap(filtersOf)) });

  const design: Design = {
    format: DESIGN_FORMAT,
    name:
      options.name ??
      `torch schedule: ${stages} stages on ${rows.length} ranks, ${microbatches} microbatches`,
    model,
    cluster,
    directives,
  };
  const compiled = compile(design, { keepSnapshots: false });
  if (!compiled.ok) return { ok: false, errors: compiled.errors.map((i) => toCell(i, firstOrder, at)) };
  return { ok: true, design };
}

/** The cell if it computes, null for communication (SEND/RECV) and stage actions (UNSHARD, …). */
function computeOnly(cell: TorchCell): TorchCell {
  if (cell === null || cell.kind === 'overlap') return cell;
  return isCompute(cell.type) ? cell : null;
}

/** A compile error at an order slot is reported at the row and cell it came from. */
function toCell(i: Issue, firstOrder: number, at: (r: number, c: number) => string): Issue {
  const m = /^directives\[(\d+)\]\.filters\[(\d+)\](.*)$/.exec(i.path);
  if (!m || Number(m[1]) < firstOrder) return i;
  return { path: at(Number(m[1]) - firstOrder, Number(m[2])), message: i.message };
}

type Shape = { stages: number; microbatches: number; rankOf: number[] } | { errors: Issue[] };

/**
 * Every stage on one rank; every microbatch forwarded once and run backward once per stage
 * (fused B, or I and W); W after its I. A file cut short shows as a missing backward or forward,
 * reported where the row ends.
 */
function checkSchedule(
  rows: TorchCell[][],
  cellAt: (r: number, c: number) => string,
  maxOps: number | undefined,
): Shape {
  const errors = new IssueList();
  // Stages by number, not an array: stage 9,999,999 alone must not make a sparse array that long.
  const rankOf = new Map<number, number>();
  const seen = new Map<string, string>();
  let stages = 0;
  let microbatches = 0;
  let stagesAt = '';
  let microbatchesAt = '';
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      for (const a of cellActions(cell)) {
        const at = cellAt(r, c);
        const owner = rankOf.get(a.stage);
        if (owner !== undefined && owner !== r) {
          errors.add(at, `stage ${a.stage} also runs on row ${owner + 1}: a stage lives on one rank`);
          continue;
        }
        rankOf.set(a.stage, r);
        if (a.stage + 1 > stages) [stages, stagesAt] = [a.stage + 1, at];
        if (a.mb! + 1 > microbatches) [microbatches, microbatchesAt] = [a.mb! + 1, at];
        const k = `${a.stage}:${a.type}:${a.mb}`;
        const before = seen.get(k);
        if (before) errors.add(at, `${describe(a)} already ran at ${before}`);
        seen.set(k, at);
        if (a.type === 'BW' && !seen.has(`${a.stage}:BI:${a.mb}`))
          errors.add(at, `${describe(a)} runs before its backward for inputs (I)`);
        // A W without its I is named above; an I or B is wrong here whether its forward comes
        // later in the row or never, and naming it beats a "row ends without" that blames the
        // later actions this one threw off (PyTorch's Schedule1F1B(2, 2) row `1F1,1B0,1F2,1B1`).
        if ((a.type === 'B' || a.type === 'BI') && !seen.has(`${a.stage}:F:${a.mb}`))
          // Past the listed issues only the count: searching the row for each was quadratic.
          errors.add(at, errors.count < errors.max ? backwardBeforeForward(rows, r, c, a, cellAt) : '');
      }
    });
  });
  if (errors.count > 0) return { errors: errors.issues() };
  if (stages === 0) return { errors: [{ path: '', message: 'the schedule has no compute action' }] };
  // Every stage and microbatch is checked below: a file naming stage or microbatch 9,999,999 is
  // refused by its size first, where the largest one is written.
  const tooLarge = importSizeIssue(
    {
      blocks: { count: stages, path: stagesAt },
      microbatches: { count: microbatches, path: microbatchesAt },
    },
    maxOps,
  );
  if (tooLarge) return { errors: [tooLarge] };
  for (let s = 0; s < stages; s++) {
    const r = rankOf.get(s);
    if (r === undefined) {
      errors.add('', `stage ${s} never runs (the file has stages up to ${stages - 1})`);
      continue;
    }
    const end = cellAt(r, rows[r]!.length);
    for (let m = 0; m < microbatches; m++) {
      const has = (t: string) => seen.has(`${s}:${t}:${m}`);
      const missing: string[] = [];
      if (!has('F')) missing.push('forward (F)');
      if (!has('B') && !(has('BI') && has('BW'))) {
        if (has('BI')) missing.push('backward for weights (W)');
        else if (has('BW')) missing.push('backward for inputs (I)');
        else missing.push('backward (B, or I and W)');
      }
      if (has('B') && (has('BI') || has('BW')))
        errors.add(end, `stage ${s} runs both a full backward and a split one for microbatch ${m}`);
      if (missing.length > 0)
        errors.add(
          end,
          `row ${r + 1} ends without the ${missing.join(' and ')} of stage ${s}, microbatch ${m} (a truncated file?)`,
        );
    }
  }
  if (errors.count > 0) return { errors: errors.issues() };
  return { stages, microbatches, rankOf: Array.from({ length: stages }, (_, s) => rankOf.get(s)!) };
}

/** A backward at row r, cell c whose forward has not run: where that forward is, if anywhere. */
function backwardBeforeForward(
  rows: TorchCell[][],
  r: number,
  c: number,
  a: TorchAction,
  cellAt: (r: number, c: number) => string,
): string {
  const row = rows[r]!;
  let later = -1;
  for (let j = c + 1; j < row.length && later < 0; j++)
    if (cellActions(row[j] ?? null).some((b) => b.stage === a.stage && b.type === 'F' && b.mb === a.mb))
      later = j;
  const where =
    later < 0 ? `which rank ${r} never runs` : `which rank ${r} runs later, at ${cellAt(r, later)}`;
  return `${describe(a)} runs on rank ${r} before its forward (F), ${where}`;
}

const NAMES: Record<string, string> = { F: 'F', BI: 'I', BW: 'W', B: 'B' };

function describe(a: TorchAction): string {
  return `stage ${a.stage} ${NAMES[a.type] ?? a.type} of microbatch ${a.mb}`;
}
