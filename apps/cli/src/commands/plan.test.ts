import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDesign } from '@stagecraft/ir';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { describe, expect, it } from 'vitest';
import { bufferIo } from '../io.ts';
import { parsePlanArgs, plan, progressBar } from './plan.ts';

const example = (name: string) => new URL(`../../../../examples/${name}`, import.meta.url).pathname;

describe('stagecraft plan arguments', () => {
  it('names the option at fault', () => {
    expect(parsePlanArgs([])).toEqual({ ok: false, error: 'plan: missing the design file' });
    expect(parsePlanArgs(['d.json', '--budget', 'soon'])).toEqual({
      ok: false,
      error: '--budget: expected a number from 0 to 86400, got "soon"',
    });
    expect(parsePlanArgs(['d.json', '--global-batch', '2.5'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^--global-batch: expected an integer/),
    });
    expect(parsePlanArgs(['d.json', '--max-memory', '40', '--times-1f1b', '2'])).toEqual({
      ok: false,
      error: '--max-memory and --times-1f1b both set the limit: give one',
    });
    expect(parsePlanArgs(['d.json', '--frobnicate'])).toEqual({
      ok: false,
      error: 'unknown option --frobnicate',
    });
  });

  it('reads the limit, batch, budget and output', () => {
    expect(
      parsePlanArgs([
        'd.json',
        '--max-memory',
        '40',
        '--global-batch',
        '64',
        '--budget',
        '5',
        '-o',
        'b.json',
      ]),
    ).toEqual({
      ok: true,
      args: {
        design: 'd.json',
        maxMemoryGiB: 40,
        globalBatch: 64,
        budgetS: 5,
        seed: 1,
        json: false,
        output: 'b.json',
      },
    });
  });
});

describe('stagecraft plan', () => {
  it('finds ZB-H1 within 1F1B’s stash on p=4, m=8 and writes a design that simulates to its step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-plan-'));
    const out = join(dir, 'best.json');
    const io = bufferIo();
    const status = await plan(
      [example('1f1b-p4-m8.json'), '--times-1f1b', '1', '--budget', '1', '--json', '-o', out],
      io,
      false,
    );
    expect(io.stderr).toBe('');
    expect(status).toBe(0);
    const r = JSON.parse(io.stdout);
    expect(r.stepMs).toBe(27);
    expect(r.baselines.find((b: { source: string }) => b.source === '1f1b').stepMs).toBe(33);
    const written = parseDesign(JSON.parse(readFileSync(out, 'utf8')));
    if (!written.ok) throw new Error(JSON.stringify(written.errors));
    const run = runDesign(written.design);
    if (!run.ok) throw new Error(JSON.stringify(run.errors));
    const sim = simulateRun(run, false).result;
    expect(sim.ok && sim.sim.makespanMs).toBe(27);
  });

  it('says when no layout fits, as an error line naming the limit', async () => {
    const io = bufferIo();
    const status = await plan(
      [example('llama3-70b-tp8-pp4-dp2.json'), '--max-memory', '1', '--workers', '0'],
      io,
      false,
    );
    expect(status).toBe(1);
    expect(io.stderr).toMatch(
      /^error: .*maxMemoryBytes: no layout of the [\d,]+ tried fits in 1\.0 GiB per GPU\n$/,
    );
  });

  it('refuses a design it cannot read, without a stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-plan-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format": "stagecraft/design@3", "model": 3}');
    const io = bufferIo();
    expect(await plan([bad], io, false)).toBe(1);
    expect(io.stderr).toMatch(/^error: .*cluster: required field missing/m);
    expect(io.stderr).not.toMatch(/at .*\.ts:\d+/);
  });

  it('draws progress as a bar of the budget spent', () => {
    expect(progressBar({ tried: 3, pruned: 10, frontSize: 2, elapsedMs: 5_000, timeLeftMs: 15_000 }, 8)).toBe(
      '[##------] 3 simulated, 10 pruned, front 2, 15 s left',
    );
  });
});
