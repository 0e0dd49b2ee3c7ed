/**
 * The real server is killed (SIGKILL) in the middle of a stream of saves, then restarted on the
 * same file: every version it acknowledged is there, intact, and the database passes
 * PRAGMA integrity_check.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { oneFOneB } from '../test/harness.ts';
import { REPO_ROOT } from './server.ts';

const BIN = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.mjs');
const dir = mkdtempSync(join(tmpdir(), 'stagecraft-crash-'));
const db = join(dir, 'designs.sqlite');
const running: ChildProcess[] = [];

afterAll(() => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `stagecraft serve` on a free port; resolves with its URL once it prints it. */
function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}`)), 15_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /running at (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}

interface Ack {
  id: string;
  version: number;
  name: string;
}

/** Saves versions of a few designs from several clients until stopped; returns what was acknowledged. */
async function saveStream(url: string, round: number, stop: { now: boolean }, acks: Ack[]): Promise<void> {
  const client = async (c: number) => {
    const id = `crash-${round}-${c % 3}`;
    for (let i = 0; !stop.now; i++) {
      const name = `round ${round} client ${c} save ${i}`;
      try {
        const res = await fetch(`${url}api/designs/${id}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ design: oneFOneB(4, 8, name) }),
        });
        if (res.status !== 200) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
        const body = (await res.json()) as { id: string; version: number };
        acks.push({ id: body.id, version: body.version, name });
      } catch (e) {
        if (stop.now) return; // the server was killed under this request: not acknowledged
        throw e;
      }
    }
  };
  await Promise.all([0, 1, 2, 3, 4, 5].map(client));
}

describe('a server killed in the middle of saves', () => {
  test('loses no acknowledged version and leaves a sound database', async () => {
    const acked: Ack[] = [];
    for (let round = 0; round < 2; round++) {
      const { child, url } = await serve();
      const stop = { now: false };
      const before = acked.length;
      const stream = saveStream(url, round, stop, acked);
      // Kill once a good number of saves went through, while the others are in flight.
      const deadline = Date.now() + 6_000;
      while (acked.length - before < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const exited = new Promise((r) => child.once('exit', r));
      stop.now = true;
      child.kill('SIGKILL');
      await exited;
      await stream;
    }
    expect(acked.length).toBeGreaterThan(20);

    const { child, url } = await serve();
    try {
      const byId = new Map<string, Ack[]>();
      for (const a of acked) byId.set(a.id, [...(byId.get(a.id) ?? []), a]);
      for (const [id, acks] of byId) {
        const res = await fetch(`${url}api/designs/${id}/versions`);
        expect(res.status).toBe(200);
        const versions = ((await res.json()) as { versions: { version: number; name: string }[] }).versions;
        const saved = new Map(versions.map((v) => [v.version, v.name]));
        for (const a of acks) expect(saved.get(a.version), `${id} v${a.version}`).toBe(a.name);
        // Versions count from 1 without gaps: nothing half-written in between.
        expect(versions.map((v) => v.version).sort((x, y) => x - y)).toEqual(versions.map((_, i) => i + 1));
        const latest = acks.reduce((m, a) => (a.version > m.version ? a : m));
        const one = (await (await fetch(`${url}api/designs/${id}/versions/${latest.version}`)).json()) as {
          design: { name: string };
        };
        expect(one.design.name).toBe(latest.name);
      }
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    const check = new Database(db, { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
  }, 40_000);
});
