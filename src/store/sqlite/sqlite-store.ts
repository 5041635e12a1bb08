// SQLite implementation of the store (better-sqlite3): one file in the data directory, WAL journal,
// every write in a transaction so a crash leaves either the old or the new state.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type {
  ActivationRecord,
  ActivationWrite,
  BeanChanges,
  Store,
  StoredBean,
  StoredGroup,
  StoredSession,
  StoredUser,
} from '../store.js';
import { MIGRATIONS } from './migrations.js';

interface BeanRow {
  key: string;
  collection: string | null;
  name: string | null;
  ord: number;
  type: string;
  data: string;
}

export class SqliteStore implements Store {
  private db!: Database.Database;

  constructor(private readonly file: string) {}

  /** The store of a data directory. */
  static inDir(dataDir: string): SqliteStore {
    mkdirSync(dataDir, { recursive: true });
    return new SqliteStore(join(dataDir, 'domain.db'));
  }

  async open(): Promise<void> {
    this.db = new Database(this.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const row = this.db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
    let version = row?.version ?? 0;
    const migrate = this.db.transaction(() => {
      for (const m of MIGRATIONS) {
        if (m.version <= version) continue;
        this.db.exec(m.sql);
        version = m.version;
      }
      this.db.prepare('DELETE FROM schema_version').run();
      this.db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version);
    });
    migrate();
  }

  async close(): Promise<void> {
    this.db?.close();
  }

  async getMeta(key: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  async loadTree(tree: string): Promise<StoredBean[]> {
    const rows = this.db
      .prepare('SELECT key, collection, name, ord, type, data FROM beans WHERE tree = ? ORDER BY collection, ord')
      .all(tree) as BeanRow[];
    return rows.map((r) => ({ key: r.key, collection: r.collection, name: r.name, ord: r.ord, type: r.type, values: JSON.parse(r.data) }));
  }

  async writeTree(tree: string, changes: BeanChanges): Promise<void> {
    this.db.transaction(() => this.applyTree(tree, changes))();
  }

  private applyTree(tree: string, changes: BeanChanges): void {
    const del = this.db.prepare('DELETE FROM beans WHERE tree = ? AND (key = ? OR (key >= ? AND key < ?))');
    const put = this.db.prepare(
      `INSERT INTO beans (tree, key, collection, name, ord, type, data) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(tree, key) DO UPDATE SET collection = excluded.collection, name = excluded.name, ord = excluded.ord,
       type = excluded.type, data = excluded.data`,
    );
    // '/' + 1 is '0': the range covers every key below the removed one.
    for (const key of changes.remove) del.run(tree, key, `${key}/`, `${key}0`);
    for (const b of changes.put) put.run(tree, b.key, b.collection, b.name, b.ord, b.type, JSON.stringify(b.values));
  }

  async sessions(): Promise<StoredSession[]> {
    const rows = this.db.prepare('SELECT name, info, changes FROM sessions ORDER BY name').all() as { name: string; info: string; changes: string }[];
    return rows.map((r) => ({ name: r.name, info: JSON.parse(r.info), changes: JSON.parse(r.changes) }));
  }

  async putSession(session: StoredSession): Promise<void> {
    this.writeSession(session);
  }

  private writeSession(session: StoredSession): void {
    this.db
      .prepare('INSERT INTO sessions (name, info, changes) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET info = excluded.info, changes = excluded.changes')
      .run(session.name, JSON.stringify(session.info), JSON.stringify(session.changes));
  }

  async deleteSession(name: string): Promise<void> {
    this.db.prepare('DELETE FROM sessions WHERE name = ?').run(name);
  }

  async activate(write: ActivationWrite): Promise<number> {
    let id = 0;
    this.db.transaction(() => {
      this.applyTree('config', write.config);
      this.writeSession(write.session);
      const result = this.db.prepare('INSERT INTO activations (version, data) VALUES (?, ?)').run(write.record.version, JSON.stringify(write.record));
      id = Number(result.lastInsertRowid);
      this.db
        .prepare("INSERT INTO meta (key, value) VALUES ('configVersion', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        .run(String(write.record.version));
    })();
    return id;
  }

  async activations(limit: number): Promise<ActivationRecord[]> {
    const rows = this.db.prepare('SELECT id, data FROM activations ORDER BY id DESC LIMIT ?').all(limit) as { id: number; data: string }[];
    return rows.map((r) => ({ ...(JSON.parse(r.data) as Omit<ActivationRecord, 'id'>), id: r.id }));
  }

  async users(): Promise<StoredUser[]> {
    return this.db.prepare('SELECT name, hash, description FROM users ORDER BY name').all() as StoredUser[];
  }

  async putUser(user: StoredUser): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO users (name, hash, description) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET hash = excluded.hash, description = excluded.description`,
      )
      .run(user.name, user.hash, user.description);
  }

  async deleteUser(name: string): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM group_members WHERE member = ?').run(name);
      this.db.prepare('DELETE FROM users WHERE name = ?').run(name);
    })();
  }

  async groups(): Promise<StoredGroup[]> {
    const groups = this.db.prepare('SELECT name, description FROM groups ORDER BY name').all() as Omit<StoredGroup, 'members'>[];
    const members = this.db.prepare('SELECT grp, member FROM group_members ORDER BY member').all() as { grp: string; member: string }[];
    return groups.map((g) => ({ ...g, members: members.filter((m) => m.grp === g.name).map((m) => m.member) }));
  }

  async putGroup(group: StoredGroup): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO groups (name, description) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET description = excluded.description')
        .run(group.name, group.description);
      this.db.prepare('DELETE FROM group_members WHERE grp = ?').run(group.name);
      const add = this.db.prepare('INSERT INTO group_members (grp, member) VALUES (?, ?)');
      for (const m of group.members) add.run(group.name, m);
    })();
  }

  async deleteGroup(name: string): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM group_members WHERE grp = ? OR member = ?').run(name, name);
      this.db.prepare('DELETE FROM groups WHERE name = ?').run(name);
    })();
  }

  async getState<T>(key: string): Promise<T | undefined> {
    const row = this.db.prepare('SELECT data FROM state WHERE key = ?').get(key) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as T) : undefined;
  }

  async setState(key: string, value: unknown): Promise<void> {
    this.db
      .prepare('INSERT INTO state (key, data) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET data = excluded.data')
      .run(key, JSON.stringify(value));
  }
}
