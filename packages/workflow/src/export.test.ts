/**
 * Each export format checked against what reads it back (a loaded plan simulates the same, Piper
 * and torch files import again) and against the reference files; what a format cannot express is
 * refused with the reason, never written wrong.
 */
import type { Design } from '@stagecraft/ir';
import {
  cellActions,
  compile,
  executedPlan,
  importPiper,
  importTorchCsv,
  loadPlan,
  parseTorchRows,
  type TorchAction,
  type TorchCell,
} from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';
import { describe, expect, test } from 'vitest';
import { TORCH_INTERLEAVED_ORDERS } from '../../../test/repoFiles.ts';
import { exampleDesigns, readFixture } from '../test/repoFiles.ts';
import { exportDesign } from './index.ts';

const examples = exampleDesigns();

function exported(design: Design, format: Parameters<typeof exportDesign>[1], options = {}) {
  const r = exportDesign(design, format, options);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

function planOf(design: Design) {
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

describe('plan export', () => {
  test.each(examples)('$file: export → load → simulate gives the same metrics', ({ design }) => {
    const r = exported(design, 'plan');
    expect(r.mediaType).toBe('application/json');
    expect(r.fileExtension).toBe('plan.json');
    const loaded = loadPlan(r.text);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const direct = simulate(planOf(design), { keepTimeline: false });
    const again = simulate(loaded.plan, { keepTimeline: false });
    expect(again).toEqual(direct);
  });

  test('a plan that does not hold together is refused on load with the instruction at fault', () => {
    const design = examples.find((e) => e.file === 'manual-order-p2-m4.json')!.design;
    const plan = JSON.parse(exported(design, 'plan').text);
    plan.devices[1].streams[0].instructions[0].waits = ['RECV.nowhere'];
    const r = loadPlan(JSON.stringify(plan));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]).toEqual({
      path: 'devices[1].streams[0].instructions[0].waits[0]',
      message: 'F.b1.mb0 waits for RECV.nowhere, which device 1 never runs',
    });
    expect(loadPlan('{"format": "stagecraft/plan@4"}')).toEqual({
      ok: false,
      errors: [
        {
          path: 'format',
          message:
            'not a Stagecraft plan (expected "stagecraft/plan@1" or "stagecraft/plan@2" or "stagecraft/plan@3")',
        },
      ],
    });
  });
});

/**
 * Where a design uses what Piper's six ops cannot say: Stagecraft's own rewrites (recompute,
 * offload), context parallelism, or a shard_tensor option beyond Piper's all-reduce form; −1 for none.
 */
const stagecraftOnly = (d: Design) =>
  d.directives.findIndex(
    (x) =>
      x.op === 'recompute' ||
      x.op === 'offload' ||
      x.op === 'shard_sequence' ||
      (x.op === 'shard_tensor' &&
        (x.sequence_parallel !== undefined ||
          x.scatter_gather_sends !== undefined ||
          x.comm_overlap !== undefined)),
  );

describe('piper export', () => {
  test.each(examples.filter((e) => stagecraftOnly(e.design) >= 0))(
    '$file: what Piper cannot say is refused at its directive, not dropped',
    ({ design }) => {
      const r = exportDesign(design, 'piper');
      if (r.ok) throw new Error('exported');
      const i = stagecraftOnly(design);
      const d = design.directives[i]!;
      expect(r.errors).toHaveLength(1);
      if (d.op === 'recompute' || d.op === 'offload')
        expect(r.errors[0]).toEqual({ path: `directives[${i}]`, message: `${d.op} has no Piper op` });
      else if (d.op === 'shard_sequence') expect(r.errors[0]!.path).toBe(`directives[${i}]`);
      else
        expect(r.errors[0]!.path).toMatch(
          new RegExp(`^directives\\[${i}\\]\\.(sequence_parallel|scatter_gather_sends|comm_overlap)$`),
        );
    },
  );

  test.each(examples.filter((e) => stagecraftOnly(e.design) < 0))(
    '$file: exports to Piper and re-imports to a design that compiles to the same plan',
    ({ design }) => {
      const r = exported(design, 'piper');
      const program = JSON.parse(r.text) as { op: string }[];
      for (const d of program)
        expect(['place', 'replicate', 'shard', 'shard_tensor', 'split', 'order']).toContain(d.op);
      const back = importPiper(r.text, { model: design.model, cluster: design.cluster, name: design.name });
      if (!back.ok) throw new Error(JSON.stringify(back.errors));
      // Stream knobs are not Piper ops: a design with them compiles to the same plan up to the knobs.
      // A directive over mesh axes is written as one Piper directive per mesh group and sub-group,
      // so the ops' provenance names other directive indices; what runs is the same.
      if (design.directives.some((d) => d.op === 'stream' || ('axis' in d && d.axis !== undefined)))
        expect(executedPlan(planOf(back.design))).toEqual(executedPlan(planOf(design)));
      else expect(planOf(back.design)).toEqual(planOf(design));
    },
  );

  test('a design written in Piper ops exports them unchanged', () => {
    const manual = examples.find((e) => e.file === 'manual-order-p2-m4.json')!.design;
    expect(JSON.parse(exported(manual, 'piper').text)).toEqual(manual.directives);
  });
});

describe('torch-csv export', () => {
  test('the DualPipeV example exports compute_only exactly as torch’s dualpipev_4rank_10mb.csv', () => {
    const design = examples.find((e) => e.file === 'dualpipev-p4-m10.json')!.design;
    const r = exported(design, 'torch-csv');
    expect(r.mediaType).toBe('text/csv');
    expect(r.text).toBe(readFixture('torch/dualpipev_4rank_10mb.csv'));
  });

  test.each([
    ['dualpipev_4rank_10mb.csv', 'current'],
    ['zb1p_2rank_2stagep_compute.csv', 'legacy'],
  ] as const)('%s (%s dialect) imports and exports back byte for byte', (file, dialect) => {
    const text = readFixture(`torch/${file}`);
    const imported = importTorchCsv(text, { dialect });
    if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
    expect(exported(imported.design, 'torch-csv', { torchDialect: dialect }).text).toBe(text);
  });

  test.each(TORCH_INTERLEAVED_ORDERS)(
    'an interleaved 1F1B design on 4 ranks exports torch’s ScheduleInterleaved1F1B actions in order (%s)',
    (file, m, v) => {
      const example = examples.find((e) => e.file === 'interleaved-1f1b-p4-v2-m8.json')!.design;
      const design = {
        ...example,
        model: { ...example.model, stages: 4 * v },
        directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: v }],
      } as Design;
      // torch's empty cells are idle time steps; the plan leaves those to the simulated timing.
      const actions = (csv: string) =>
        csv
          .trim()
          .split('\n')
          .map((line) => line.split(',').filter((cell) => cell !== ''));
      expect(actions(exported(design, 'torch-csv').text)).toEqual(actions(readFixture(`torch/${file}`)));
    },
  );

  test('DualPipe’s two model copies are refused with the reason, not written as a wrong file', () => {
    const design = examples.find((e) => e.file === 'dualpipe-p4-m8.json')!.design;
    const r = exportDesign(design, 'torch-csv');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]!.path).toBe('directives[0]');
    expect(r.errors[0]!.message).toMatch(/two copies of the model/);
  });
});

/**
 * Runs compute_comms rows as `_PipelineScheduleRuntime` does: one list per rank, sends and
 * receives non-blocking, a compute waiting for the receive of its input (or the local stage before
 * it, torch's V-schedule case). Returns the ranks that could not finish, and checks that each pair
 * of ranks posts its receives in the order the other sends (NCCL matches point-to-point in order).
 */
function runTorchRows(rows: TorchCell[][]): { stuck: number[]; orderMismatch: string[] } {
  const rankOf = new Map<number, number>();
  rows.forEach((row, r) => {
    for (const c of row) for (const a of cellActions(c)) if (a.type === 'F') rankOf.set(a.stage, r);
  });
  const stages = rankOf.size;
  const done = new Set<string>();
  const sent = new Set<string>();
  const posted = new Set<string>();
  const pos = rows.map(() => 0);
  const key = (a: TorchAction) => `${a.stage}:${a.type}:${a.mb}`;
  const ready = (a: TorchAction, r: number): boolean => {
    const m = a.mb;
    if (a.type === 'F' && a.stage > 0) {
      if (rankOf.get(a.stage - 1) === r) return done.has(`${a.stage - 1}:F:${m}`);
      return posted.has(`${r}:${a.stage}:RECV_F:${m}`) && sent.has(`${a.stage - 1}:F:${m}`);
    }
    if ((a.type === 'B' || a.type === 'BI') && a.stage < stages - 1) {
      if (!done.has(`${a.stage}:F:${m}`)) return false;
      if (rankOf.get(a.stage + 1) === r)
        return done.has(`${a.stage + 1}:B:${m}`) || done.has(`${a.stage + 1}:BI:${m}`);
      return posted.has(`${r}:${a.stage}:RECV_B:${m}`) && sent.has(`${a.stage + 1}:B:${m}`);
    }
    if (a.type === 'BW') return done.has(`${a.stage}:BI:${m}`);
    return true;
  };
  const perform = (a: TorchAction, r: number) => {
    if (a.type === 'SEND_F') sent.add(`${a.stage}:F:${a.mb}`);
    else if (a.type === 'SEND_B') sent.add(`${a.stage}:B:${a.mb}`);
    else if (a.type === 'RECV_F' || a.type === 'RECV_B') posted.add(`${r}:${a.stage}:${a.type}:${a.mb}`);
    else done.add(key(a));
  };
  for (let progress = true; progress; ) {
    progress = false;
    rows.forEach((row, r) => {
      while (pos[r]! < row.length) {
        const c = row[pos[r]!]!;
        const as = cellActions(c);
        if (!as.every((a) => ready(a, r))) break;
        for (const a of as) perform(a, r);
        pos[r]! += 1;
        progress = true;
      }
    });
  }
  const orderMismatch: string[] = [];
  const channel = new Map<string, { sends: string[]; recvs: string[] }>();
  const ch = (from: number, to: number) => {
    const k = `${from}->${to}`;
    if (!channel.has(k)) channel.set(k, { sends: [], recvs: [] });
    return channel.get(k)!;
  };
  rows.forEach((row, r) => {
    for (const c of row)
      for (const a of cellActions(c)) {
        if (a.type === 'SEND_F') ch(r, rankOf.get(a.stage + 1)!).sends.push(`F${a.stage}.${a.mb}`);
        if (a.type === 'SEND_B') ch(r, rankOf.get(a.stage - 1)!).sends.push(`B${a.stage}.${a.mb}`);
        if (a.type === 'RECV_F') ch(rankOf.get(a.stage - 1)!, r).recvs.push(`F${a.stage - 1}.${a.mb}`);
        if (a.type === 'RECV_B') ch(rankOf.get(a.stage + 1)!, r).recvs.push(`B${a.stage + 1}.${a.mb}`);
      }
  });
  for (const [k, c] of channel) if (c.sends.join() !== c.recvs.join()) orderMismatch.push(k);
  return {
    stuck: rows.map((row, r) => (pos[r]! < row.length ? r : -1)).filter((r) => r >= 0),
    orderMismatch,
  };
}

/** Examples torch can run: every pure pipeline. The others must be refused with a reason. */
const pipelines = examples.filter((e) => exportDesign(e.design, 'torch-csv').ok);

test('every example torch cannot run is refused with the reason', () => {
  const refused = examples.filter((e) => !pipelines.includes(e));
  expect(refused.map((e) => e.file)).toContain('dualpipe-p4-m8.json');
  for (const { design } of refused) {
    const r = exportDesign(design, 'torch-csv');
    if (r.ok) throw new Error('exported');
    expect(r.errors[0]!.message).toMatch(/^torch|DualPipe|expert|tensor|all-to-all|no torch/);
  }
});

describe('torch-csv compute_comms', () => {
  test.each(pipelines)(
    '$file: the rows run to the end on torch’s runtime, receives in send order',
    ({ design }) => {
      const comms = exported(design, 'torch-csv', { torchFormat: 'compute_comms' }).text;
      const parsed = parseTorchRows(comms, 'current');
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      const rows = parsed.rows;
      for (const row of rows) expect(row).not.toContain(null);
      expect(runTorchRows(rows)).toEqual({ stuck: [], orderMismatch: [] });
      // Its compute actions are the compute_only rows; each stage reduces its gradients once.
      const computeOnly = parseTorchRows(exported(design, 'torch-csv').text, 'current');
      if (!computeOnly.ok) throw new Error('compute_only does not parse');
      const isCompute = (a: TorchAction) => ['F', 'B', 'BI', 'BW'].includes(a.type);
      const project = (rs: TorchCell[][]) =>
        rs.map((row) => row.filter((c) => c !== null && cellActions(c).every(isCompute)));
      expect(project(rows)).toEqual(project(computeOnly.rows));
      const reduces = rows.flat().filter((c) => c?.kind === 'action' && c.type === 'REDUCE_GRAD');
      expect(reduces).toHaveLength(
        new Set(rows.flat().flatMap((c) => cellActions(c).map((a) => a.stage))).size,
      );
    },
  );

  test('a compute_comms file imports to the same schedule as its compute_only twin', () => {
    const design = examples.find((e) => e.file === 'zbv-p4-m8.json')!.design;
    const comms = exported(design, 'torch-csv', { torchFormat: 'compute_comms' }).text;
    const back = importTorchCsv(comms, { model: design.model, cluster: design.cluster });
    if (!back.ok) throw new Error(JSON.stringify(back.errors));
    expect(exported(back.design, 'torch-csv').text).toBe(exported(design, 'torch-csv').text);
    expect(simulate(planOf(back.design)).ok).toBe(true);
  });

  test('1F1B rank 0 sends each forward right after computing it', () => {
    const design = examples.find((e) => e.file === '1f1b-p4-m8.json')!.design;
    const first = exported(design, 'torch-csv', { torchFormat: 'compute_comms' }).text.split('\n')[0]!;
    expect(first.startsWith('0F0,0SEND_F0,0F1,0SEND_F1,0F2,0SEND_F2,0F3,0SEND_F3,')).toBe(true);
    expect(first.endsWith(',0B7,0REDUCE_GRAD')).toBe(true);
  });
});
