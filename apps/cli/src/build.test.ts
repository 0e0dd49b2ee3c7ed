/**
 * The built CLI (scripts/build.mjs) is what `stagecraft` runs once it is built: it answers exactly
 * as the sources do, its server compiles on workers from the build, and a build older than its
 * sources is recognised as such (the bin then runs the sources).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUILD_DIR, build, buildState, builtEntries } from '../../../scripts/build.mjs';
import { BIN, EXAMPLES, ROOT, type Run, stagecraftWithEnv } from '../test/run.ts';
import { smallTransformer } from '../test/smallTransformer.ts';

const EXAMPLE = join(EXAMPLES, 'interleaved-1f1b-p4-v2-m8.json');
const scratch = mkdtempSync(join(tmpdir(), 'stagecraft-build-'));

beforeAll(async () => {
  if (!buildState().fresh) await build();
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runBin(args: string[], fromSources: boolean): Promise<Run> {
  return stagecraftWithEnv({ STAGECRAFT_FROM_SOURCES: fromSources ? '1' : '' }, 0, ...args);
}

/** The one line of measured wall time in `simulate`'s text (`compiled in … ms, simulated in … ms`). */
function withoutTimings(run: Run): Run {
  return { ...run, stdout: run.stdout.replace(/^compiled in [\d.]+ ms, simulated in [\d.]+ ms$/m, '') };
}

describe('the built CLI answers as the sources do', () => {
  const commands: [string, string[]][] = [
    ['help', ['--help']],
    ['version', ['--version']],
    ['validate', ['validate', EXAMPLE]],
    ['the plan', ['export', EXAMPLE, '--format', 'plan']],
    ['a simulation with its text timeline', ['simulate', EXAMPLE, '--width', '80']],
    ['a missing file', ['validate', join(EXAMPLES, 'no-such-design.json')]],
    ['an unknown option', ['simulate', EXAMPLE, '--no-such-option']],
    ["serve's help (the server's own chunk)", ['serve', '--help']],
    ["plan's help (the planner's own chunk)", ['plan', '--help']],
  ];
  test.each(commands)('%s', async (_name, args) => {
    // Up to date, so the bin runs the build, not the sources again.
    expect(buildState()).toEqual({ fresh: true });
    const [built, sources] = await Promise.all([runBin(args, false), runBin(args, true)]);
    expect(withoutTimings(built)).toEqual(withoutTimings(sources));
    expect(built.stdout + built.stderr).not.toMatch(/^\s+at /m);
  });
});

test('the built planner simulates layouts on its built worker threads', async () => {
  expect(buildState()).toEqual({ fresh: true });
  const design = join(scratch, 'small-transformer.json');
  writeFileSync(design, JSON.stringify(smallTransformer(2)));
  const run = await runBin(['plan', design, '--global-batch', '4', '--workers', '1', '--json'], false);
  expect(run.stderr).toBe('');
  const r = JSON.parse(run.stdout);
  expect(r.stoppedEarly).toBe(false);
  expect(r.tried).toBeGreaterThan(0);
  expect(r.best.layout.dp * r.best.layout.pp * r.best.layout.tp).toBe(2);
}, 300_000);

test('the built server compiles a design on its built workers', async () => {
  expect(buildState()).toEqual({ fresh: true });
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--db', join(scratch, 'designs.sqlite')],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, STAGECRAFT_FROM_SOURCES: '' } },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}`)), 20_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /running at (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
    });
    const design = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    const res = await fetch(new URL('/api/compile', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ design }),
    });
    const body = (await res.json()) as { ok: boolean; ops: number };
    expect(res.status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.ops).toBeGreaterThan(0);
  } finally {
    child.kill('SIGTERM');
  }
}, 60_000);

describe('a build is run only while it is up to date with its sources', () => {
  /** A copy of the build to spoil, so the real one stays usable by the other tests. */
  function copyOfBuild(name: string): string {
    const dir = join(scratch, name);
    cpSync(BUILD_DIR, dir, { recursive: true });
    return dir;
  }

  test('a fresh build is up to date', () => {
    expect(buildState(copyOfBuild('fresh'))).toEqual({ fresh: true });
  });

  /** The copy's manifest, with `change` applied to it. */
  function editManifest(dir: string, change: (m: { inputs: Record<string, [number, number]> }) => void) {
    const manifest = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
    change(manifest);
    writeFileSync(join(dir, 'inputs.json'), JSON.stringify(manifest));
  }

  test('a source edited since the build is stale, naming that source', () => {
    const dir = copyOfBuild('edited');
    editManifest(dir, (m) => {
      const stamp = m.inputs['packages/ir/src/index.ts']!;
      m.inputs['packages/ir/src/index.ts'] = [stamp[0] - 1000, stamp[1]];
    });
    expect(buildState(dir)).toEqual({
      fresh: false,
      reason: 'packages/ir/src/index.ts changed since the last build',
    });
  });

  test('a source put back with an older time or another size is stale too', () => {
    // As a restored backup or `cp -p` leaves it: older than the build, yet not what it was made from.
    const older = copyOfBuild('restored');
    editManifest(older, (m) => {
      const stamp = m.inputs['apps/cli/src/main.ts']!;
      m.inputs['apps/cli/src/main.ts'] = [stamp[0] + 1000, stamp[1]];
    });
    expect(buildState(older)).toMatchObject({
      fresh: false,
      reason: 'apps/cli/src/main.ts changed since the last build',
    });
    const resized = copyOfBuild('resized');
    editManifest(resized, (m) => {
      const stamp = m.inputs['apps/cli/src/main.ts']!;
      m.inputs['apps/cli/src/main.ts'] = [stamp[0], stamp[1] + 1];
    });
    expect(buildState(resized)).toMatchObject({
      fresh: false,
      reason: 'apps/cli/src/main.ts changed since the last build',
    });
  });

  test("a workspace package's package.json is an input (its exports and sideEffects shape the bundle)", () => {
    const { inputs } = JSON.parse(readFileSync(join(BUILD_DIR, 'inputs.json'), 'utf8'));
    expect(Object.keys(inputs)).toEqual(
      expect.arrayContaining(['packages/ir/package.json', 'apps/api/package.json', 'scripts/build.mjs']),
    );
  });

  test('a build made from a file that is gone (moved or deleted) is stale', () => {
    const dir = copyOfBuild('moved');
    editManifest(dir, (m) => {
      m.inputs = { 'packages/ir/src/moved-away.ts': [0, 0] };
    });
    expect(buildState(dir)).toEqual({
      fresh: false,
      reason: 'packages/ir/src/moved-away.ts is gone since the last build',
    });
  });

  test('a build without one of its entries or chunks, or with an unreadable list of inputs, is incomplete', () => {
    const noWorker = copyOfBuild('no-worker');
    unlinkSync(builtEntries(noWorker).worker);
    expect(buildState(noWorker)).toMatchObject({
      fresh: false,
      reason: expect.stringMatching(/is incomplete$/),
    });
    const noChunk = copyOfBuild('no-chunk');
    const chunk = readdirSync(noChunk).find((f) => f.startsWith('chunk-') && f.endsWith('.mjs'));
    unlinkSync(join(noChunk, chunk!));
    expect(buildState(noChunk)).toMatchObject({
      fresh: false,
      reason: expect.stringMatching(/is incomplete$/),
    });
    const listedByPath = copyOfBuild('old-list');
    editManifest(listedByPath, (m) => {
      (m as { inputs: unknown }).inputs = Object.keys(m.inputs);
    });
    expect(buildState(listedByPath)).toMatchObject({
      fresh: false,
      reason: expect.stringMatching(/is incomplete$/),
    });
    const garbled = copyOfBuild('garbled');
    writeFileSync(join(garbled, 'inputs.json'), '{ not json');
    expect(buildState(garbled)).toMatchObject({
      fresh: false,
      reason: expect.stringMatching(/is incomplete$/),
    });
  });

  test("a new build keeps the previous build's files for commands still loading them, no older ones", async () => {
    const dir = copyOfBuild('rebuilt');
    // As left by a build before the last one, and by the last one.
    writeFileSync(join(dir, 'chunk-OLDER.mjs'), '');
    writeFileSync(join(dir, 'chunk-LAST.mjs'), '');
    const last = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
    writeFileSync(join(dir, 'inputs.json'), JSON.stringify({ ...last, outputs: ['chunk-LAST.mjs'] }));
    await build(dir);
    const files = readdirSync(dir);
    expect(files).toContain('chunk-LAST.mjs');
    expect(files).not.toContain('chunk-OLDER.mjs');
    expect(buildState(dir)).toEqual({ fresh: true });
    // Nor is the directory it was staged in left beside it.
    expect(readdirSync(scratch).filter((f) => f.startsWith('rebuilt.'))).toEqual([]);
  }, 120_000);

  test('no build at all is missing', () => {
    expect(buildState(join(scratch, 'never-built'))).toEqual({
      fresh: false,
      reason: `${join(scratch, 'never-built')} is missing`,
    });
  });
});
