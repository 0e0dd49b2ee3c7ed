import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, stagecraft, tempFile, tempPath } from '../../test/run.ts';

const MEASURED = join(ROOT, 'test/fixtures/measured');
const design = join(MEASURED, 'p2-m2.json');
const legacy = [join(MEASURED, 'rank0.json'), join(MEASURED, 'rank1.json')];

const stages = (costs: { F: number; BI: number; BW: number }[], p2pLatencyMs = 0) => ({
  format: 'stagecraft/design@2',
  name: 'three stages',
  model: { kind: 'synthetic', blocks: costs.map((c, i) => ({ name: `stage ${i}`, tags: { PP: i }, ...c })) },
  cluster: { kind: 'ideal', devices: costs.length, p2pLatencyMs },
  directives: [{ op: 'schedule', builder: 'zb-h1', microbatches: 6 }],
});

describe('stagecraft calibrate', () => {
  it("fits a design to torch 1.13's per-rank profiler traces and writes the calibrated design", async () => {
    const out = tempPath('calibrated.json');
    const r = await stagecraft('calibrate', design, '--trace', ...legacy, '-o', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('as designed');
    expect(r.stdout).toContain(`wrote the calibrated design to ${out}`);
    const calibrated = JSON.parse(readFileSync(out, 'utf8'));
    expect(calibrated.model.kind).toBe('synthetic');
    expect(calibrated.description).toContain('Calibrated from rank0.json, rank1.json (legacy-profiler');
    const sim = await stagecraft('simulate', out, '--json');
    expect(sim.code).toBe(0);
  });

  it('recovers the costs of a step measured from another design, and replays it exactly', async () => {
    const truth = tempFile(
      stages(
        [
          { F: 2, BI: 1.5, BW: 1 },
          { F: 3, BI: 2, BW: 0.5 },
          { F: 1.5, BI: 1, BW: 1.25 },
        ],
        0.25,
      ),
    );
    const trace = tempPath('measured-trace.json');
    expect((await stagecraft('export', truth, '--format', 'chrome-trace', '-o', trace)).code).toBe(0);
    const guess = tempFile(stages([1, 1, 1].map(() => ({ F: 1, BI: 1, BW: 1 }))));
    const r = await stagecraft('calibrate', guess, trace, '--json');
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.before.stepErrorPct).toBeLessThan(-20);
    expect(Math.abs(report.after.stepErrorPct)).toBeLessThan(1e-6);
    expect(report.fits.blocks.map((b: { F: { ms: number } }) => b.F.ms)).toEqual([2, 3, 1.5]);
    expect(report.fits.p2p).toMatchObject({ latencyUs: 250, separable: false });
    expect(report.unmatched).toEqual([]);
  });

  it('names the file and the reason when a trace cannot be read', async () => {
    const unnamed = tempPath('trace.json');
    copyFileSync(legacy[0]!, unnamed);
    const r = await stagecraft('calibrate', design, '--trace', unnamed);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error: ${unnamed}: torch 1.13's profiler trace does not record its rank: name the file by it (rank3.json, trace_rank3.json) or give --rank`,
    );
    expect((await stagecraft('calibrate', design, '--trace', unnamed, '--rank', '0')).code).toBe(0);
    const bad = tempFile([{ name: 'F.b0.mb0', ph: 'X', ts: 'soon', dur: 1 }], 'rank0.json');
    expect((await stagecraft('calibrate', design, bad)).stderr.trim()).toBe(
      `error: ${bad}: [0].ts: expected a number (event "F.b0.mb0")`,
    );
  });

  it('takes a table of measured stage costs instead of a trace, naming a bad row as the CSV shows it', async () => {
    const csv = tempFile('stage,F,BI,BW\n0,0.2,0.01,0.01\n1,0.04,0.01,0.01\n', 'stages.csv');
    const out = tempPath('from-table.json');
    const r = await stagecraft('calibrate', design, '--trace', csv, '-o', out);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain("2 of 2 blocks take the table's stage costs");
    const blocks = JSON.parse(readFileSync(out, 'utf8')).model.blocks;
    expect(blocks.map((b: { F: number }) => b.F)).toEqual([0.2, 0.04]);
    const far = tempFile('stage,F\n0,1\n3,1\n', 'far.csv');
    expect((await stagecraft('calibrate', design, far)).stderr.trim()).toBe(
      `error: ${far}: row 3, column "stage": the design has no pipeline stage 3 (no block is tagged PP=3)`,
    );
    expect((await stagecraft('calibrate', design, csv, legacy[0]!)).stderr.trim()).toBe(
      `error: ${csv}: a table of stage costs calibrates alone: give it without traces`,
    );
  });

  it('compares a design with a measured step of its plan, ranking the divergent instructions', async () => {
    const r = await stagecraft('compare', design, '--measured', ...legacy, '--json');
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.match).toEqual({ matched: 10, unmatched: [], missing: 8 });
    expect(report.replay.predictedStepMs).toBe(9);
    expect(report.replay.divergences.length).toBe(10);
    const text = await stagecraft('compare', design, '--measured', ...legacy);
    expect(text.stdout).toContain('most divergent (start and duration, predicted → measured):');
    const table = tempFile('stage,F\n0,1\n', 'one.csv');
    expect((await stagecraft('compare', design, '--measured', table)).stderr.trim()).toBe(
      `error: ${table}: a table of stage costs is not a measured step: compare a trace`,
    );
  });

  it('refuses a call without traces, and --rank for several files', async () => {
    const none = await stagecraft('calibrate', design);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('error: calibrate: missing the trace files (--trace <file> …)');
    const two = await stagecraft('calibrate', design, '--rank', '1', ...legacy);
    expect(two.stderr).toContain('error: --rank: names the rank of one trace file; give one file');
  });
});
