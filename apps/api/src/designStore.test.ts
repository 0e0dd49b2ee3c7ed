import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { EXAMPLES, oneFOneB } from '../test/harness.ts';
import { DesignStore } from './designStore.ts';

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DesignStore', () => {
  test('a new file is created with its directory, in WAL mode, at the current schema version', () => {
    const path = join(dir, 'nested', 'a.sqlite');
    const store = DesignStore.open(path);
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    db.close();
  });

  test('examples are seeded into a new database only, and everything survives a reopen', () => {
    const path = join(dir, 'b.sqlite');
    const first = DesignStore.open(path, { seedDir: EXAMPLES });
    expect(first.seeded).toContain('1f1b-p4-m8');
    first.delete('1f1b-p4-m8');
    first.put('mine', oneFOneB(2, 2, 'one'));
    first.put('mine', oneFOneB(2, 2, 'two'));
    first.close();
    const again = DesignStore.open(path, { seedDir: EXAMPLES });
    expect(again.seeded).toEqual([]);
    expect(again.has('1f1b-p4-m8')).toBe(false);
    expect(again.versions('mine')!.map((v) => v.name)).toEqual(['two', 'one']);
    expect(again.get('mine')!.design.name).toBe('two');
    expect(again.integrityCheck()).toBe('ok');
    again.close();
  });

  test('a database written by a newer schema is refused rather than changed', () => {
    const path = join(dir, 'c.sqlite');
    DesignStore.open(path).close();
    const db = new Database(path);
    db.pragma('user_version = 7');
    db.close();
    expect(() => DesignStore.open(path)).toThrow(
      /schema is version 7, newer than this Stagecraft reads \(2\)/,
    );
  });

  test("a database of schema 1 keeps every design and version, and its designs are no example's copy", () => {
    const path = join(dir, 'v1.sqlite');
    // The file as Stagecraft wrote it before working copies recorded their example.
    const db = new Database(path);
    db.exec(`CREATE TABLE designs (id TEXT PRIMARY KEY, name TEXT NOT NULL, latest INTEGER NOT NULL,
               created_at TEXT NOT NULL, updated_at TEXT NOT NULL, seq INTEGER NOT NULL) STRICT;
             CREATE INDEX designs_by_seq ON designs (seq DESC);
             CREATE TABLE versions (design_id TEXT NOT NULL REFERENCES designs (id) ON DELETE CASCADE,
               version INTEGER NOT NULL, name TEXT NOT NULL, saved_at TEXT NOT NULL, body TEXT NOT NULL,
               PRIMARY KEY (design_id, version)) STRICT;`);
    const body = JSON.stringify(oneFOneB(2, 2, 'old'));
    db.prepare("INSERT INTO designs VALUES ('old', 'old', 2, 'a', 'b', 1)").run();
    db.prepare("INSERT INTO versions VALUES ('old', 1, 'old', 'a', ?), ('old', 2, 'old', 'b', ?)").run(
      body,
      body,
    );
    db.pragma('user_version = 1');
    db.close();
    const store = DesignStore.open(path, { seedDir: EXAMPLES });
    expect(store.seeded).toEqual([]);
    expect(store.list()).toEqual([{ id: 'old', name: 'old', version: 2, updatedAt: 'b' }]);
    expect(store.versions('old')!.length).toBe(2);
    expect(store.put('copy', oneFOneB(2, 2, 'copy'), undefined, '1f1b-p4-m8')).toMatchObject({ ok: true });
    // The example stays the copy's from its first version on.
    store.put('copy', oneFOneB(2, 2, 'copy 2'));
    expect(store.list()[0]).toMatchObject({ id: 'copy', example: '1f1b-p4-m8', version: 2 });
    expect(store.get('copy')).toMatchObject({ example: '1f1b-p4-m8' });
    store.close();
  });

  test('a put against a stale base version writes nothing', () => {
    const store = DesignStore.open(':memory:');
    expect(store.put('x', oneFOneB(2, 2))).toMatchObject({ ok: true, version: 1, created: true });
    expect(store.put('x', oneFOneB(2, 2), 1)).toMatchObject({ ok: true, version: 2, created: false });
    expect(store.put('x', oneFOneB(2, 2, 'late'), 1)).toEqual({ ok: false, latest: 2 });
    expect(store.versions('x')!.length).toBe(2);
    store.close();
  });
});
