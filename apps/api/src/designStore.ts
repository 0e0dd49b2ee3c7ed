/**
 * Saved designs in an embedded SQLite file (better-sqlite3): one row per design and one per
 * version, every version kept. WAL with synchronous=FULL and one transaction per write, so a
 * version acknowledged to a client survives the process being killed at any moment, and the file
 * is never left half-written. The schema is versioned by `PRAGMA user_version`.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Design, parseDesign, parseDesignText } from '@stagecraft/ir';
import Database from 'better-sqlite3';

export const DESIGN_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

export interface DesignSummary {
  id: string;
  name: string;
  version: number;
  updatedAt: string;
  /** The example this design is the working copy of (its id), for a copy made by editing one. */
  example?: string;
}

export interface SavedDesign extends DesignSummary {
  design: Design;
}

export interface VersionSummary {
  version: number;
  savedAt: string;
  name: string;
}

export interface SavedVersion {
  id: string;
  version: number;
  savedAt: string;
  design: Design;
}

export type PutResult =
  | { ok: true; id: string; version: number; created: boolean }
  | { ok: false; latest: number | undefined }
  | { ok: false; quota: QuotaExceeded };

/** A save refused because the database's designs would pass its quota. */
export interface QuotaExceeded {
  quotaBytes: number;
  usedBytes: number;
  designBytes: number;
}

/**
 * Bytes of saved design versions a database holds before it refuses more: a save is at most a
 * 4 MiB body (Limits.bodyBytes), so a client looping on saves stops after about 128 of the
 * largest, and tens of thousands of typical designs (5 to 30 KB) fit.
 */
export const DEFAULT_QUOTA_BYTES = 512 * 1024 * 1024;

/** Schema steps: entry i brings a database at user_version i to i + 1. Append only. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE designs (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     latest INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     seq INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX designs_by_seq ON designs (seq DESC);
   CREATE TABLE versions (
     design_id TEXT NOT NULL REFERENCES designs (id) ON DELETE CASCADE,
     version INTEGER NOT NULL,
     name TEXT NOT NULL,
     saved_at TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (design_id, version)
   ) STRICT;`,
  // 2: the example a design is the working copy of, so the designer edits one copy per example
  // and finds it again after a reload. Existing designs are copies of none.
  `ALTER TABLE designs ADD COLUMN example TEXT;
   CREATE INDEX designs_by_example ON designs (example);`,
];

export interface StoreOptions {
  /** Design files to save into a database that was just created (the examples). */
  seedDir?: string;
  /** Clock, for tests. */
  now?: () => Date;
  /** Bytes of saved versions the database may hold (DEFAULT_QUOTA_BYTES). */
  quotaBytes?: number;
}

interface DesignRow {
  id: string;
  name: string;
  latest: number;
  updated_at: string;
  example: string | null;
}

export class DesignStore {
  private readonly db: Database.Database;
  private readonly now: () => Date;
  private readonly quotaBytes: number;
  /** Designs saved from `seedDir` when the database was created. */
  readonly seeded: string[] = [];

  private constructor(db: Database.Database, options: StoreOptions) {
    this.db = db;
    this.now = options.now ?? (() => new Date());
    this.quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA_BYTES;
  }

  /** Bytes of saved versions, counted once when the database opens and kept up to date by each save and delete. */
  private used = 0;

  /** Bytes of the saved versions of `id`, or of all designs. */
  private bodyBytes(id?: string): number {
    const sql = 'SELECT total(length(CAST(body AS BLOB))) AS n FROM versions';
    const row = (
      id === undefined ? this.db.prepare(sql).get() : this.db.prepare(`${sql} WHERE design_id = ?`).get(id)
    ) as {
      n: number;
    };
    return row.n;
  }

  usedBytes(): number {
    return this.used;
  }

  private overQuota(body: string): QuotaExceeded | undefined {
    const designBytes = Buffer.byteLength(body);
    const usedBytes = this.used;
    if (usedBytes + designBytes <= this.quotaBytes) return undefined;
    return { quotaBytes: this.quotaBytes, usedBytes, designBytes };
  }

  /** Opens (creating it and its directory when missing) the database at `path`, or `:memory:`. */
  static open(path: string, options: StoreOptions = {}): DesignStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const store = new DesignStore(db, options);
    const created = store.migrate();
    store.used = store.bodyBytes();
    if (created && options.seedDir) store.seed(options.seedDir);
    return store;
  }

  /** Brings the schema up to date; true when the database was empty. */
  private migrate(): boolean {
    const from = this.db.pragma('user_version', { simple: true }) as number;
    if (from > MIGRATIONS.length) {
      throw new Error(
        `the database schema is version ${from}, newer than this Stagecraft reads (${MIGRATIONS.length})`,
      );
    }
    for (let v = from; v < MIGRATIONS.length; v++) {
      this.db
        .transaction(() => {
          this.db.exec(MIGRATIONS[v]!);
          this.db.pragma(`user_version = ${v + 1}`);
        })
        .immediate();
    }
    return from === 0;
  }

  private seed(dir: string): void {
    let files: string[];
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort();
    } catch {
      return;
    }
    for (const file of files) {
      const id = basename(file, '.json');
      if (!DESIGN_ID.test(id)) continue;
      const parsed = parseDesignText(readFileSync(join(dir, file), 'utf8'));
      if (!parsed.ok) continue;
      this.put(id, parsed.design);
      this.seeded.push(id);
    }
  }

  close(): void {
    this.db.close();
  }

  /** `PRAGMA integrity_check`: "ok" for a sound file. */
  integrityCheck(): string {
    return this.db.pragma('integrity_check', { simple: true }) as string;
  }

  list(): DesignSummary[] {
    const rows = this.db
      .prepare('SELECT id, name, latest, updated_at, example FROM designs ORDER BY seq DESC')
      .all() as DesignRow[];
    return rows.map(summary);
  }

  has(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM designs WHERE id = ?').get(id) !== undefined;
  }

  get(id: string): SavedDesign | undefined {
    const row = this.db
      .prepare('SELECT id, name, latest, updated_at, example FROM designs WHERE id = ?')
      .get(id) as DesignRow | undefined;
    if (!row) return undefined;
    const v = this.version(id, row.latest);
    return v ? { ...summary(row), design: v.design } : undefined;
  }

  /** A new design at version 1, or undefined when the id is taken. */
  create(id: string, design: Design): { id: string; version: number } | { quota: QuotaExceeded } | undefined {
    return this.db
      .transaction(() => {
        if (this.has(id)) return undefined;
        const body = JSON.stringify(design);
        const quota = this.overQuota(body);
        return quota ? { quota } : this.write(id, design, undefined, body);
      })
      .immediate();
  }

  /**
   * Saves a new version (creating the design when the id is new). With `baseVersion`, only when
   * it is the latest version: otherwise someone else saved in between and nothing is written.
   * `example`: the example a new design is the working copy of (kept from its first version on).
   */
  put(id: string, design: Design, baseVersion?: number, example?: string): PutResult {
    return this.db
      .transaction((): PutResult => {
        const row = this.db.prepare('SELECT latest FROM designs WHERE id = ?').get(id) as
          | { latest: number }
          | undefined;
        if (baseVersion !== undefined && row?.latest !== baseVersion)
          return { ok: false, latest: row?.latest };
        const body = JSON.stringify(design);
        const quota = this.overQuota(body);
        if (quota) return { ok: false, quota };
        const saved = this.write(id, design, row?.latest, body, example);
        return { ok: true, ...saved, created: row === undefined };
      })
      .immediate();
  }

  private write(
    id: string,
    design: Design,
    latest: number | undefined,
    body: string,
    example?: string,
  ): { id: string; version: number } {
    const at = this.now().toISOString();
    const version = (latest ?? 0) + 1;
    const seq =
      ((this.db.prepare('SELECT max(seq) AS s FROM designs').get() as { s: number | null }).s ?? 0) + 1;
    if (latest === undefined) {
      this.db
        .prepare(
          'INSERT INTO designs (id, name, latest, created_at, updated_at, seq, example) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(id, design.name, version, at, at, seq, example ?? null);
    } else {
      this.db
        .prepare('UPDATE designs SET name = ?, latest = ?, updated_at = ?, seq = ? WHERE id = ?')
        .run(design.name, version, at, seq, id);
    }
    this.db
      .prepare('INSERT INTO versions (design_id, version, name, saved_at, body) VALUES (?, ?, ?, ?, ?)')
      .run(id, version, design.name, at, body);
    this.used += Buffer.byteLength(body);
    return { id, version };
  }

  /** Deletes a design and all its versions; false when there was none. */
  delete(id: string): boolean {
    const freed = this.bodyBytes(id);
    const deleted = this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM versions WHERE design_id = ?').run(id);
        return this.db.prepare('DELETE FROM designs WHERE id = ?').run(id).changes > 0;
      })
      .immediate();
    if (deleted) this.used -= freed;
    return deleted;
  }

  versions(id: string): VersionSummary[] | undefined {
    if (!this.has(id)) return undefined;
    const rows = this.db
      .prepare('SELECT version, saved_at, name FROM versions WHERE design_id = ? ORDER BY version DESC')
      .all(id) as { version: number; saved_at: string; name: string }[];
    return rows.map((r) => ({ version: r.version, savedAt: r.saved_at, name: r.name }));
  }

  version(id: string, version: number): SavedVersion | undefined {
    const row = this.db
      .prepare('SELECT version, saved_at, body FROM versions WHERE design_id = ? AND version = ?')
      .get(id, version) as { version: number; saved_at: string; body: string } | undefined;
    if (!row) return undefined;
    return { id, version: row.version, savedAt: row.saved_at, design: loadDesign(row.body) };
  }
}

function summary(r: DesignRow): DesignSummary {
  return {
    id: r.id,
    name: r.name,
    version: r.latest,
    updatedAt: r.updated_at,
    ...(r.example !== null ? { example: r.example } : {}),
  };
}

/** A stored design, migrated to the current format when it was saved by an older version. */
function loadDesign(body: string): Design {
  const raw = JSON.parse(body) as unknown;
  const parsed = parseDesign(raw);
  return parsed.ok ? parsed.design : (raw as Design);
}
