// The store over a SQL database (SQLite or PostgreSQL, through a small driver). Writes bump the
// version of the component they change in the same transaction and, on PostgreSQL, notify the
// other servers when the transaction commits.
import { BACKUP_TABLES, type BackupTable, PRIVATE_META, type StoreDump, TRANSIENT_TABLES, type TableRows, type TableStream } from './backup/tables.js';
import { IMAGED_TREES, WRITE_IMAGE_SQL, imageReader } from './images.js';
import { MIGRATIONS } from './migrations.js';
import { type SqlClient, type SqlDriver, commitUncertain } from './sql.js';
import { storeUnavailable } from '../core/problems.js';
import {
  type ActivationRecord,
  type ActivationWrite,
  type AuditIncrement,
  type AuditRecord,
  type AuditWrite,
  type BeanChanges,
  COMPONENTS,
  type DomainRows,
  type SnapshotInfo,
  type Component,
  type FailureCount,
  type LoginFailureKind,
  type LoginFailures,
  type Store,
  StoreConflict,
  type StoredBean,
  type PutBean,
  type StoredGroup,
  type StoredSession,
  type StoredTask,
  type StoredUser,
  type StoredWatchEvent,
  type WatchEventPage,
  type WatchEventWrite,
} from './store.js';

/** The columns a bean is read from, in the order `beans` takes them. */
const BEAN_COLUMNS = 'key, collection, name, ord, type, data';

interface AuditRow {
  id: number | string;
  at: number | string;
  username: string | null;
  address: string;
  action: string;
  bean: string;
  outcome: string;
  detail: string;
  count: number | string;
  last_at: number | string | null;
}

const AUDIT_COLUMNS = 'SELECT id, at, username, address, action, bean, outcome, detail, count, last_at FROM audit';

const NOTIFY_CHANNEL = 'appserver_changes';
/** Rows a backup reads at a time (a row may be large: a saved snapshot is a whole domain). */
const BACKUP_BATCH_ROWS = 256;
/** The notification payload of an append to the watch journal (the others name a component). */
const WATCH_PAYLOAD = 'watch';
/** Held by a transaction appending to the watch journal until it commits (PostgreSQL). */
const WATCH_LOCK = 7002;

export class SqlStore implements Store {
  private listeners: ((c: Component) => void)[] = [];
  private watchListeners: (() => void)[] = [];
  /** Set once `open` made sure the database is ours: nothing is written to it before. */
  private opened = false;

  constructor(
    private readonly db: SqlDriver,
    readonly shared: boolean,
    readonly description: string,
  ) {}

  async open(): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Servers starting together on one database take turns migrating it.
      if (this.db.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(7001)');
      await this.refuseForeign(tx);
      await tx.run('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const row = (await tx.all<{ version: number }>('SELECT version FROM schema_version'))[0];
      let version = Number(row?.version ?? 0);
      for (const m of MIGRATIONS) {
        if (m.version <= version) continue;
        for (const sql of m.sql(this.db.dialect)) await tx.run(sql);
        version = m.version;
      }
      await tx.run('DELETE FROM schema_version');
      await tx.run('INSERT INTO schema_version (version) VALUES (?)', [version]);
      for (const c of COMPONENTS) await tx.run('INSERT INTO versions (component, version) VALUES (?, 0) ON CONFLICT (component) DO NOTHING', [c]);
      await tx.run("INSERT INTO meta (key, value) VALUES ('configVersion', '0') ON CONFLICT (key) DO NOTHING");
    });
    this.opened = true;
    if (this.shared && this.db.listen) {
      await this.db.listen(NOTIFY_CHANNEL, (payload) => {
        if (payload === WATCH_PAYLOAD) {
          for (const l of this.watchListeners) l();
          return;
        }
        for (const l of this.listeners) l(payload as Component);
      }, () => {
        // Listening again after the connection was lost: whatever was told meanwhile was missed,
        // so every part is checked again.
        for (const c of COMPONENTS) for (const l of this.listeners) l(c);
        for (const l of this.watchListeners) l();
      });
    }
  }

  /** Throws when the database holds tables but no schema of ours: another application's data is never written to. */
  private async refuseForeign(tx: SqlClient): Promise<void> {
    const sql =
      this.db.dialect === 'postgres'
        ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
        : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name";
    const tables = (await tx.all<{ name: string }>(sql)).map((r) => r.name);
    if (tables.length === 0 || tables.includes('schema_version')) return;
    const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, ... (${tables.length} tables)` : '');
    throw new Error(
      `${this.description} holds tables of something else (${shown}), not a domain store. The server did not start and wrote nothing there: give it an empty database of its own.`,
    );
  }

  async holdsDomain(): Promise<boolean> {
    const rows = await this.db.all<{ one: number }>('SELECT 1 AS one FROM beans UNION ALL SELECT 1 AS one FROM users LIMIT 1');
    return rows.length > 0;
  }

  async close(): Promise<void> {
    if (this.opened && this.usesImages) {
      // An image saves the next start its rows; without one (a full disk, a read-only file) the
      // next start reads rows, so a failure here is no failure of the stop.
      for (const tree of IMAGED_TREES) await this.writeImage(tree).catch(() => undefined);
    }
    await this.db.close();
  }

  /** Writes the tree's image unless it has one (a start that changed nothing keeps it: no 60,000 rows joined again). */
  private async writeImage(tree: string): Promise<void> {
    if ((await this.db.all('SELECT 1 AS one FROM images WHERE tree = ?', [tree])).length > 0) return;
    await this.db.run(WRITE_IMAGE_SQL, [tree]);
  }

  /** Only SQLite keeps images: its triggers drop them, and only one server writes its file. */
  private get usesImages(): boolean {
    return this.db.dialect === 'sqlite';
  }

  /** What puts the tree's beans from its image, when it has a sound one (one that is not is dropped). */
  private async imageOf(tree: string): Promise<((put: PutBean) => void) | undefined> {
    if (!this.usesImages) return undefined;
    let row: { data: string } | undefined;
    try {
      row = (await this.db.all<{ data: string }>('SELECT data FROM images WHERE tree = ?', [tree]))[0];
    } catch {
      // Longer than a JavaScript string can be (about 500 MB), for one: the rows are read instead.
      row = { data: '' };
    }
    if (row === undefined) return undefined;
    const reader = imageReader(row.data);
    if (reader === undefined) await this.db.run('DELETE FROM images WHERE tree = ?', [tree]);
    return reader;
  }

  onChange(fn: (component: Component) => void): void {
    this.listeners.push(fn);
  }

  /** Bumps a component's version inside a write and tells the other servers at commit. */
  private async bump(tx: SqlClient, ...components: Component[]): Promise<void> {
    for (const c of components) {
      await tx.run('UPDATE versions SET version = version + 1 WHERE component = ?', [c]);
      if (this.db.notifySql) await tx.all(this.db.notifySql, [c]);
    }
  }

  private write<T>(components: Component[], fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      const result = await fn(tx);
      await this.bump(tx, ...components);
      return result;
    });
  }

  async versions(): Promise<Record<Component, number>> {
    const rows = await this.db.all<{ component: Component; version: number | string }>('SELECT component, version FROM versions');
    const out = {} as Record<Component, number>;
    for (const r of rows) out[r.component] = Number(r.version);
    return out;
  }

  // ---- meta ----

  async getMeta(key: string): Promise<string | undefined> {
    return (await this.db.all<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]))[0]?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  async initMeta(key: string, value: string): Promise<string> {
    await this.db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, value]);
    return (await this.getMeta(key))!;
  }

  async replaceMeta(set: Record<string, string>, remove: string[]): Promise<void> {
    const sqlite = this.db.dialect === 'sqlite';
    // SQLite overwrites deleted content with zeros only when asked to.
    const before = sqlite ? (await this.db.all<{ secure_delete: number }>('PRAGMA secure_delete'))[0]?.secure_delete ?? 0 : 0;
    if (sqlite) await this.db.all('PRAGMA secure_delete = 1');
    try {
      await this.db.transaction(async (tx) => {
        for (const [key, value] of Object.entries(set)) {
          await tx.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
        }
        for (const key of remove) await tx.run('DELETE FROM meta WHERE key = ?', [key]);
      });
    } finally {
      if (sqlite) await this.db.all(`PRAGMA secure_delete = ${Number(before)}`);
    }
    if (remove.length === 0) return;
    if (!sqlite) {
      // A deleted row stays in PostgreSQL's table files until they are rewritten: the table is
      // copied into new files without it, and the old files removed.
      await this.db.run('VACUUM FULL meta');
      return;
    }
    // Earlier copies of the removed values go too: the database is rewritten without its free
    // pages, and the write-ahead log emptied.
    await this.db.run('VACUUM');
    await this.db.all('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  // ---- bean trees ----

  /** Beans from rows of `BEAN_COLUMNS`, read as lists of columns. */
  private beans(rows: unknown[][]): StoredBean[] {
    const out = new Array<StoredBean>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const [key, collection, name, ord, type, data] = rows[i] as [string, string | null, string | null, number | string, string, string];
      out[i] = { key, collection, name, ord: Number(ord), type, values: JSON.parse(data) };
    }
    return out;
  }

  async readTree(tree: string, put: PutBean): Promise<void> {
    const image = await this.imageOf(tree);
    if (image !== undefined) return image(put);
    const rows = await this.db.rows(`SELECT ${BEAN_COLUMNS} FROM beans WHERE tree = ? ORDER BY ord`, [tree]);
    for (const [key, collection, name, ord, type, data] of rows as [string, string | null, string | null, number | string, string, string][]) {
      put(key, collection, name, Number(ord), type, JSON.parse(data) as Record<string, unknown>);
    }
  }

  async loadSubtrees(tree: string, keys: string[]): Promise<StoredBean[]> {
    const out: StoredBean[] = [];
    for (const key of keys) {
      // '/' + 1 is '0': the range covers every key below this one.
      const rows = await this.db.rows(`SELECT ${BEAN_COLUMNS} FROM beans WHERE tree = ? AND (key = ? OR (key >= ? AND key < ?)) ORDER BY ord`, [tree, key, `${key}/`, `${key}0`]);
      out.push(...this.beans(rows));
    }
    return out;
  }

  private async applyTree(tx: SqlClient, tree: string, changes: BeanChanges): Promise<void> {
    for (const key of changes.remove) {
      await tx.run('DELETE FROM beans WHERE tree = ? AND (key = ? OR (key >= ? AND key < ?))', [tree, key, `${key}/`, `${key}0`]);
    }
    for (const b of changes.put) {
      await tx.run(
        `INSERT INTO beans (tree, key, collection, name, ord, type, data) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tree, key) DO UPDATE SET collection = excluded.collection, name = excluded.name, ord = excluded.ord,
         type = excluded.type, data = excluded.data`,
        [tree, b.key, b.collection, b.name, b.ord, b.type, JSON.stringify(b.values)],
      );
    }
  }

  async writeTree(tree: string, changes: BeanChanges): Promise<void> {
    await this.write(['config'], (tx) => this.applyTree(tx, tree, changes));
  }

  // ---- users and groups ----

  async users(): Promise<StoredUser[]> {
    return this.db.all<StoredUser>('SELECT name, hash, description FROM users ORDER BY name');
  }

  async insertUser(user: StoredUser): Promise<void> {
    await this.write(['security'], async (tx) => {
      const r = await tx.run('INSERT INTO users (name, hash, description) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [user.name, user.hash, user.description]);
      if (r.changes === 0) throw new StoreConflict(`user ${user.name} exists`);
    });
  }

  async putUser(user: StoredUser): Promise<void> {
    await this.write(['security'], (tx) =>
      tx.run('INSERT INTO users (name, hash, description) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, description = excluded.description', [
        user.name,
        user.hash,
        user.description,
      ]),
    );
  }

  async deleteUser(name: string): Promise<void> {
    await this.write(['security'], async (tx) => {
      await tx.run('DELETE FROM group_members WHERE member = ?', [name]);
      await tx.run('DELETE FROM users WHERE name = ?', [name]);
    });
  }

  async groups(): Promise<StoredGroup[]> {
    const groups = await this.db.all<Omit<StoredGroup, 'members'>>('SELECT name, description FROM groups ORDER BY name');
    const members = await this.db.all<{ grp: string; member: string }>('SELECT grp, member FROM group_members ORDER BY member');
    return groups.map((g) => ({ ...g, members: members.filter((m) => m.grp === g.name).map((m) => m.member) }));
  }

  async insertGroup(group: StoredGroup): Promise<void> {
    await this.write(['security'], async (tx) => {
      const r = await tx.run('INSERT INTO groups (name, description) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [group.name, group.description]);
      if (r.changes === 0) throw new StoreConflict(`group ${group.name} exists`);
      for (const m of group.members) await tx.run('INSERT INTO group_members (grp, member) VALUES (?, ?) ON CONFLICT DO NOTHING', [group.name, m]);
    });
  }

  async putGroup(group: StoredGroup): Promise<void> {
    await this.write(['security'], (tx) =>
      tx.run('INSERT INTO groups (name, description) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET description = excluded.description', [group.name, group.description]),
    );
  }

  async addGroupMember(group: string, member: string): Promise<void> {
    await this.write(['security'], (tx) => tx.run('INSERT INTO group_members (grp, member) VALUES (?, ?) ON CONFLICT DO NOTHING', [group, member]));
  }

  async removeGroupMember(group: string, member: string): Promise<void> {
    await this.write(['security'], (tx) => tx.run('DELETE FROM group_members WHERE grp = ? AND member = ?', [group, member]));
  }

  async deleteGroup(name: string): Promise<void> {
    await this.write(['security'], async (tx) => {
      await tx.run('DELETE FROM group_members WHERE grp = ? OR member = ?', [name, name]);
      await tx.run('DELETE FROM groups WHERE name = ?', [name]);
    });
  }

  // ---- edit sessions and activations ----

  async sessions(): Promise<StoredSession[]> {
    const rows = await this.db.all<{ name: string; info: string; changes: string; rev: number | string }>('SELECT name, info, changes, rev FROM sessions ORDER BY name');
    return rows.map((r) => ({ name: r.name, info: JSON.parse(r.info), changes: JSON.parse(r.changes), rev: Number(r.rev) }));
  }

  private async writeSession(tx: SqlClient, session: StoredSession, expectedRev: number | undefined): Promise<number> {
    const info = JSON.stringify(session.info);
    const changes = JSON.stringify(session.changes);
    if (expectedRev === undefined) {
      const rows = await tx.all<{ rev: number | string }>(
        `INSERT INTO sessions (name, info, changes, rev) VALUES (?, ?, ?, 1)
         ON CONFLICT (name) DO UPDATE SET info = excluded.info, changes = excluded.changes, rev = sessions.rev + 1 RETURNING rev`,
        [session.name, info, changes],
      );
      return Number(rows[0]!.rev);
    }
    if (expectedRev === 0) {
      const r = await tx.run('INSERT INTO sessions (name, info, changes, rev) VALUES (?, ?, ?, 1) ON CONFLICT (name) DO NOTHING', [session.name, info, changes]);
      if (r.changes === 0) throw new StoreConflict(`edit session ${session.name} was created elsewhere`);
      return 1;
    }
    const r = await tx.run('UPDATE sessions SET info = ?, changes = ?, rev = rev + 1 WHERE name = ? AND rev = ?', [info, changes, session.name, expectedRev]);
    if (r.changes === 0) throw new StoreConflict(`edit session ${session.name} changed elsewhere`);
    return expectedRev + 1;
  }

  async putSession(session: StoredSession, expectedRev?: number): Promise<number> {
    return this.write(['sessions'], (tx) => this.writeSession(tx, session, expectedRev));
  }

  async deleteSession(name: string): Promise<void> {
    await this.write(['sessions'], (tx) => tx.run('DELETE FROM sessions WHERE name = ?', [name]));
  }

  async activate(write: ActivationWrite, expectedVersion: number, sessionRev?: number): Promise<{ id: number; sessionRev: number }> {
    try {
      return await this.applyActivation(write, expectedVersion, sessionRev);
    } catch (err) {
      if (!commitUncertain(err)) throw err;
      return this.committedActivation(write);
    }
  }

  /**
   * After the connection was lost during an activation's COMMIT: the activation's record is looked
   * for, so the caller learns whether it took effect. Found, the activation stands; absent, nothing
   * was changed; when the store does not answer, that is said too.
   */
  private async committedActivation(write: ActivationWrite): Promise<{ id: number; sessionRev: number }> {
    let rows: { id: number | string; data: string }[];
    let rev: number | undefined;
    try {
      rows = await this.db.all<{ id: number | string; data: string }>('SELECT id, data FROM activations WHERE version = ?', [write.record.version]);
      rev = Number((await this.db.all<{ rev: number | string }>('SELECT rev FROM sessions WHERE name = ?', [write.session.name]))[0]?.rev ?? 0);
    } catch {
      throw storeUnavailable(
        `The connection to the domain's store was lost while activation ${write.record.version} was being committed, and the store does not answer yet: whether it took effect shows in the activation records once the store is back (the server reconnects by itself).`,
      );
    }
    const mine = this.records(rows).find((r) => r.editSession === write.record.editSession && r.user === write.record.user && r.startTime === write.record.startTime);
    if (!mine) {
      throw storeUnavailable(`The connection to the domain's store was lost while the activation was being committed; it did not take effect (nothing was changed). Retry the activation.`);
    }
    return { id: mine.id, sessionRev: rev };
  }

  private applyActivation(write: ActivationWrite, expectedVersion: number, sessionRev?: number): Promise<{ id: number; sessionRev: number }> {
    return this.write(['config', 'sessions'], async (tx) => {
      // The configuration must still be the one the activation was computed against.
      const moved = await tx.run(
        "UPDATE meta SET value = ? WHERE key = 'configVersion' AND value = ?",
        [String(write.record.version), String(expectedVersion)],
      );
      if (moved.changes === 0) throw new StoreConflict('the configuration was activated elsewhere');
      await this.applyTree(tx, 'config', write.config);
      const rev = await this.writeSession(tx, write.session, sessionRev);
      const insert = this.db.dialect === 'postgres' ? 'INSERT INTO activations (version, data) VALUES (?, ?) RETURNING id' : 'INSERT INTO activations (version, data) VALUES (?, ?)';
      const r = await tx.run(insert, [write.record.version, JSON.stringify(write.record)]);
      return { id: r.lastId ?? 0, sessionRev: rev };
    });
  }

  private records(rows: { id: number | string; data: string }[]): ActivationRecord[] {
    return rows.map((r) => ({ ...(JSON.parse(r.data) as Omit<ActivationRecord, 'id'>), id: Number(r.id) }));
  }

  async activations(limit: number): Promise<ActivationRecord[]> {
    return this.records(await this.db.all('SELECT id, data FROM activations ORDER BY id DESC LIMIT ?', [limit]));
  }

  async activationsSince(version: number): Promise<ActivationRecord[]> {
    return this.records(await this.db.all('SELECT id, data FROM activations WHERE version > ? ORDER BY version', [version]));
  }

  // ---- runtime state and tasks ----

  async runtimeEntries(): Promise<Record<string, unknown>> {
    const rows = await this.db.all<{ key: string; data: string }>('SELECT key, data FROM runtime');
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.data)]));
  }

  async writeRuntimeEntries(put: Record<string, unknown>, remove: string[]): Promise<void> {
    await this.write(['runtime'], async (tx) => {
      for (const key of remove) await tx.run('DELETE FROM runtime WHERE key = ?', [key]);
      for (const [key, value] of Object.entries(put)) {
        await tx.run('INSERT INTO runtime (key, data) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data', [key, JSON.stringify(value)]);
      }
    });
  }

  async tasks(): Promise<StoredTask[]> {
    const rows = await this.db.all<{ key: string; collection: string; ord: number | string; type: string; data: string }>('SELECT key, collection, ord, type, data FROM tasks ORDER BY ord');
    return rows.map((r) => ({ key: r.key, collection: r.collection, ord: Number(r.ord), type: r.type, values: JSON.parse(r.data) }));
  }

  async putTasks(tasks: StoredTask[]): Promise<void> {
    await this.write(['tasks'], async (tx) => {
      for (const t of tasks) {
        await tx.run(
          'INSERT INTO tasks (key, collection, ord, type, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data',
          [t.key, t.collection, t.ord, t.type, JSON.stringify(t.values)],
        );
      }
    });
  }

  async deleteTasks(keys: string[]): Promise<void> {
    await this.write(['tasks'], async (tx) => {
      for (const key of keys) await tx.run('DELETE FROM tasks WHERE key = ? OR (key >= ? AND key < ?)', [key, `${key}/`, `${key}0`]);
    });
  }

  // ---- the audit trail ----

  async appendAudit(records: AuditWrite[], increments: AuditIncrement[] = []): Promise<number[]> {
    const insert = 'INSERT INTO audit (at, username, address, action, bean, outcome, detail, count, last_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
    const sql = this.db.dialect === 'postgres' ? `${insert} RETURNING id` : insert;
    return this.db.transaction(async (tx) => {
      for (const i of increments) {
        await tx.run('UPDATE audit SET count = count + ?, last_at = CASE WHEN last_at IS NULL OR last_at < ? THEN ? ELSE last_at END WHERE id = ?', [i.count, i.lastTime, i.lastTime, i.id]);
      }
      const ids: number[] = [];
      for (const r of records) {
        const values = [r.time, r.user, r.address, r.action, r.bean, r.outcome, r.detail, r.count ?? 1, r.lastTime ?? r.time];
        ids.push((await tx.run(sql, values)).lastId ?? 0);
      }
      return ids;
    });
  }

  async pruneAudit(before: number, limit: number): Promise<number> {
    // One bounded batch (the index on last_at finds them). Rows a restore put back have no last
    // time (backups carry neither it nor the count): their first time counts.
    const victims = 'SELECT id FROM audit WHERE last_at < ? OR (last_at IS NULL AND at < ?) LIMIT ?';
    return this.db.transaction(async (tx) => (await tx.run(`DELETE FROM audit WHERE id IN (${victims})`, [before, before, limit])).changes);
  }

  private auditRows(rows: AuditRow[]): AuditRecord[] {
    return rows.map((r) => ({
      id: Number(r.id),
      time: Number(r.at),
      user: r.username,
      address: r.address,
      action: r.action,
      bean: r.bean,
      outcome: r.outcome,
      detail: r.detail,
      count: Number(r.count),
      lastTime: Number(r.last_at ?? r.at),
    }));
  }

  async auditRecords(limit: number, before?: number): Promise<AuditRecord[]> {
    const rows =
      before === undefined
        ? await this.db.all<AuditRow>(`${AUDIT_COLUMNS} ORDER BY id DESC LIMIT ?`, [limit])
        : await this.db.all<AuditRow>(`${AUDIT_COLUMNS} WHERE id < ? ORDER BY id DESC LIMIT ?`, [before, limit]);
    return this.auditRows(rows);
  }

  async auditRecord(id: number): Promise<AuditRecord | undefined> {
    return this.auditRows(await this.db.all<AuditRow>(`${AUDIT_COLUMNS} WHERE id = ?`, [id]))[0];
  }

  // ---- failed logins and lockouts ----

  async countLoginFailure(entries: FailureCount[], now: number, resetMs: number): Promise<LoginFailures[]> {
    const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    // Read and written under the row's lock (SQLite: one writer at a time), so that servers sharing
    // the store never lose each other's failures.
    return this.db.transaction(async (tx) => {
      const out: LoginFailures[] = [];
      let began = false;
      for (const e of entries) {
        await tx.run('INSERT INTO login_failures (kind, key, failures, last_at, locked_until) VALUES (?, ?, 0, ?, 0) ON CONFLICT (kind, key) DO NOTHING', [e.kind, e.key, now]);
        const row = (await tx.all<{ failures: number | string; last_at: number | string; locked_until: number | string }>(
          `SELECT failures, last_at, locked_until FROM login_failures WHERE kind = ? AND key = ?${lock}`,
          [e.kind, e.key],
        ))[0]!;
        const was = { count: Number(row.failures), last: Number(row.last_at), lockedUntil: Number(row.locked_until) };
        const fresh = was.count === 0 || Math.max(was.last, was.lockedUntil) < now - resetMs;
        const count = fresh ? 1 : was.count + 1;
        const wait = e.wait(count);
        const lockedUntil = Math.max(was.lockedUntil > now ? was.lockedUntil : 0, wait > 0 ? now + wait : 0);
        if (lockedUntil > 0 && !(was.lockedUntil > now)) began = true;
        await tx.run('UPDATE login_failures SET failures = ?, last_at = ?, locked_until = ? WHERE kind = ? AND key = ?', [count, now, lockedUntil, e.kind, e.key]);
        out.push({ count, last: now, lockedUntil });
      }
      // Other servers reload the back-offs when one begins.
      if (began) await this.bump(tx, 'lockouts');
      return out;
    });
  }

  async loginFailures(kind: LoginFailureKind, key: string): Promise<LoginFailures | undefined> {
    const row = (await this.db.all<{ failures: number | string; last_at: number | string; locked_until: number | string }>(
      'SELECT failures, last_at, locked_until FROM login_failures WHERE kind = ? AND key = ?',
      [kind, key],
    ))[0];
    return row ? { count: Number(row.failures), last: Number(row.last_at), lockedUntil: Number(row.locked_until) } : undefined;
  }

  async clearLoginFailures(kind: LoginFailureKind, key: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const row = (await tx.all<{ locked_until: number | string }>('SELECT locked_until FROM login_failures WHERE kind = ? AND key = ?', [kind, key]))[0];
      if (!row) return false;
      await tx.run('DELETE FROM login_failures WHERE kind = ? AND key = ?', [kind, key]);
      if (Number(row.locked_until) > 0) await this.bump(tx, 'lockouts');
      return true;
    });
  }

  async clearAllLoginFailures(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const n = Number((await tx.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM login_failures'))[0]?.n ?? 0);
      await tx.run('DELETE FROM login_failures');
      if (n > 0) await this.bump(tx, 'lockouts');
      return n;
    });
  }

  async lockouts(now: number): Promise<{ kind: LoginFailureKind; key: string; until: number; count: number; last: number }[]> {
    const rows = await this.db.all<{ kind: LoginFailureKind; key: string; locked_until: number | string; failures: number | string; last_at: number | string }>(
      'SELECT kind, key, locked_until, failures, last_at FROM login_failures WHERE locked_until > ?',
      [now],
    );
    return rows.map((r) => ({ kind: r.kind, key: r.key, until: Number(r.locked_until), count: Number(r.failures), last: Number(r.last_at) }));
  }

  async countFailingUsers(since: number, now: number): Promise<number> {
    const rows = await this.db.all<{ n: number | string }>("SELECT COUNT(*) AS n FROM login_failures WHERE kind = 'user' AND (last_at >= ? OR locked_until > ?)", [since, now]);
    return Number(rows[0]?.n ?? 0);
  }

  async purgeLoginFailures(since: number, now: number): Promise<void> {
    await this.db.run('DELETE FROM login_failures WHERE last_at < ? AND locked_until <= ?', [since, now]);
  }

  // ---- the watch journal ----

  async appendWatchEvents(events: WatchEventWrite[]): Promise<number[]> {
    if (events.length === 0) return [];
    const postgres = this.db.dialect === 'postgres';
    const insert = 'INSERT INTO watch_events (at, kind, data) VALUES (?, ?, ?)';
    return this.db.transaction(async (tx) => {
      // Ids are taken under a lock held until commit, so they are committed in the order they are
      // taken: a reader past an id never sees a smaller one appear later. (SQLite writes one
      // transaction at a time anyway.)
      if (postgres) await tx.all('SELECT pg_advisory_xact_lock(?)', [WATCH_LOCK]);
      const ids: number[] = [];
      for (const e of events) ids.push((await tx.run(postgres ? `${insert} RETURNING id` : insert, [e.time, e.kind, JSON.stringify(e.data)])).lastId ?? 0);
      if (this.db.notifySql) await tx.all(this.db.notifySql, [WATCH_PAYLOAD]);
      return ids;
    });
  }

  async watchEventsAfter(afterId: number, limit: number): Promise<WatchEventPage> {
    const rows = await this.db.all<{ id: number | string; at: number | string; kind: string; data: string }>(
      'SELECT id, at, kind, data FROM watch_events WHERE id > ? ORDER BY id LIMIT ?',
      [afterId, limit],
    );
    // Read after the events: a trim that removed some of them before they were read shows here.
    const trimmed = await this.getMeta('watchTrimmedThrough');
    const events: StoredWatchEvent[] = rows.map((r) => ({ id: Number(r.id), time: Number(r.at), kind: r.kind, data: JSON.parse(r.data) as Record<string, unknown> }));
    return { events, trimmedThrough: Number(trimmed ?? 0) };
  }

  async latestWatchEvent(): Promise<number> {
    const rows = await this.db.all<{ id: number | string | null }>('SELECT MAX(id) AS id FROM watch_events');
    const latest = Number(rows[0]?.id ?? 0);
    return Math.max(latest, Number((await this.getMeta('watchTrimmedThrough')) ?? 0));
  }

  async trimWatchEvents(throughId: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      // The mark first: a reader that finds events missing then also finds the mark moved.
      await tx.run(
        `INSERT INTO meta (key, value) VALUES ('watchTrimmedThrough', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
         WHERE CAST(meta.value AS BIGINT) < CAST(excluded.value AS BIGINT)`,
        [String(throughId)],
      );
      await tx.run('DELETE FROM watch_events WHERE id <= ?', [throughId]);
    });
  }

  onWatchEvents(fn: () => void): void {
    this.watchListeners.push(fn);
  }

  // ---- backup and restore ----

  async backupTables(): Promise<StoreDump> {
    const read = await this.db.snapshot();
    let schema: number;
    let meta: unknown[][];
    let configVersion = 0;
    try {
      schema = Number((await read.all<{ version: number | string }>('SELECT version FROM schema_version'))[0]?.version ?? 0);
      const rows = await read.all<{ key: string; value: string }>('SELECT key, value FROM meta ORDER BY key');
      meta = rows.filter((r) => !PRIVATE_META.has(r.key)).map((r) => [r.key, r.value]);
      configVersion = Number(rows.find((r) => r.key === 'configVersion')?.value ?? 0);
    } catch (err) {
      await read.close();
      throw err;
    }
    async function* rowsOf(t: BackupTable): AsyncGenerator<unknown[][]> {
      const order = t.columns.slice(0, t.name === 'beans' ? 2 : 1).join(', ');
      for await (const batch of read.batches<Record<string, unknown>>(`SELECT ${t.columns.join(', ')} FROM ${t.name} ORDER BY ${order}`, BACKUP_BATCH_ROWS)) {
        // PostgreSQL answers BIGINT columns as text: every store writes them as numbers.
        yield batch.map((r) => t.columns.map((c) => (t.integers.includes(c) && r[c] !== null ? Number(r[c]) : r[c])));
      }
    }
    async function* tables(): AsyncGenerator<TableStream> {
      for (const t of BACKUP_TABLES) {
        if (t.name === 'meta') {
          yield { table: t.name, columns: t.columns, count: meta.length, batches: (async function* () {
            yield meta;
          })() };
          continue;
        }
        const count = Number((await read.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${t.name}`))[0]?.n ?? 0);
        yield { table: t.name, columns: t.columns, count, batches: rowsOf(t) };
      }
    }
    return { schema, dialect: this.db.dialect, configVersion, tables: tables(), close: () => read.close() };
  }

  async restoreTables(source: AsyncIterable<TableRows>): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const t of BACKUP_TABLES) await tx.run(`DELETE FROM ${t.name}`);
      for (const name of TRANSIENT_TABLES) await tx.run(`DELETE FROM ${name}`);
      for await (const part of source) {
        const known = BACKUP_TABLES.find((t) => t.name === part.table);
        // The reader checked names already; this keeps any other caller from naming SQL.
        if (!known || part.columns.some((c) => !known.columns.includes(c))) throw new Error(`table ${part.table} cannot be restored with columns ${part.columns.join(', ')}`);
        await this.insertMany(tx, `INSERT INTO ${known.name} (${part.columns.join(', ')})`, part.rows);
      }
      // Audit records from a backup written before they were counted: one request each, the last at their time.
      await tx.run('UPDATE audit SET last_at = at WHERE last_at IS NULL');
      if (this.db.dialect === 'postgres') {
        for (const t of BACKUP_TABLES) {
          if (!t.autoId) continue;
          await tx.all(`SELECT setval(pg_get_serial_sequence('${t.name}', '${t.autoId}'), COALESCE((SELECT MAX(${t.autoId}) FROM ${t.name}), 0) + 1, false)`);
        }
      }
      // Servers that start on it (or still run on it) reload everything.
      await this.bump(tx, ...COMPONENTS);
    });
  }

  // ---- instances ----

  async heartbeat(instance: string, now: number): Promise<void> {
    await this.db.run('INSERT INTO instances (id, seen) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen = excluded.seen', [instance, now]);
    await this.db.run('DELETE FROM instances WHERE seen < ?', [now - 24 * 3600_000]);
  }

  async liveInstances(since: number): Promise<string[]> {
    return (await this.db.all<{ id: string }>('SELECT id FROM instances WHERE seen >= ?', [since])).map((r) => r.id);
  }

  async takeListenerLease(server: string, owner: string, liveSince: number, now: number): Promise<boolean> {
    // One statement: two servers taking over the lease of a dead one cannot both win.
    const r = await this.db.run(
      `INSERT INTO listener_leases (server, owner, since) VALUES (?, ?, ?)
       ON CONFLICT (server) DO UPDATE SET owner = excluded.owner, since = excluded.since
       WHERE listener_leases.owner = excluded.owner OR listener_leases.owner NOT IN (SELECT id FROM instances WHERE seen >= ?)`,
      [server, owner, now, liveSince],
    );
    return r.changes > 0;
  }

  async releaseListenerLease(server: string, owner: string): Promise<void> {
    await this.db.run('DELETE FROM listener_leases WHERE server = ? AND owner = ?', [server, owner]);
  }

  async listenerLeases(): Promise<{ server: string; owner: string }[]> {
    return this.db.all<{ server: string; owner: string }>('SELECT server, owner FROM listener_leases ORDER BY server');
  }

  // ---- documents ----

  async getDocument<T>(key: string): Promise<{ value: T; rev: number } | undefined> {
    const row = (await this.db.all<{ data: string; rev: number | string }>('SELECT data, rev FROM documents WHERE key = ?', [key]))[0];
    return row ? { value: JSON.parse(row.data) as T, rev: Number(row.rev) } : undefined;
  }

  async putDocument(key: string, value: unknown, expectedRev: number): Promise<number> {
    return this.write(['lifecycle'], async (tx) => {
      const data = JSON.stringify(value);
      const r =
        expectedRev === 0
          ? await tx.run('INSERT INTO documents (key, data, rev) VALUES (?, ?, 1) ON CONFLICT (key) DO NOTHING', [key, data])
          : await tx.run('UPDATE documents SET data = ?, rev = rev + 1 WHERE key = ? AND rev = ?', [data, key, expectedRev]);
      if (r.changes === 0) throw new StoreConflict(`document ${key} changed elsewhere`);
      return expectedRev + 1;
    });
  }

  // ---- the whole domain, and snapshots of it ----

  async domainRows(): Promise<DomainRows> {
    return this.db.transaction(async (tx) => {
      const version = (await tx.all<{ value: string }>("SELECT value FROM meta WHERE key = 'configVersion'"))[0]?.value;
      const beans = await tx.all<{ key: string; collection: string | null; name: string | null; ord: number | string; type: string; data: string }>(
        `SELECT ${BEAN_COLUMNS} FROM beans WHERE tree = 'config' ORDER BY ord, key`,
      );
      const sessions = await tx.all<{ name: string; info: string; changes: string }>('SELECT name, info, changes FROM sessions ORDER BY name');
      const runtime = await tx.all<{ key: string; data: string }>('SELECT key, data FROM runtime ORDER BY key');
      const tasks = await tx.all<{ key: string; collection: string; ord: number | string; type: string; data: string }>('SELECT key, collection, ord, type, data FROM tasks ORDER BY ord, key');
      const documents = await tx.all<{ key: string; data: string }>('SELECT key, data FROM documents ORDER BY key');
      return {
        configVersion: Number(version ?? 0),
        beans: beans.map((b) => [b.key, b.collection, b.name, Number(b.ord), b.type, b.data]),
        sessions: sessions.map((r) => [r.name, r.info, r.changes]),
        runtime: runtime.map((r) => [r.key, r.data]),
        tasks: tasks.map((t) => [t.key, t.collection, Number(t.ord), t.type, t.data]),
        documents: documents.map((d) => [d.key, d.data]),
      };
    });
  }

  /** Inserts rows many at a time: one statement per batch, not per row (restores must be quick). */
  private async insertMany(tx: SqlClient, head: string, rows: unknown[][], extra = ''): Promise<void> {
    if (rows.length === 0) return;
    const width = rows[0]!.length;
    const batch = Math.max(1, Math.floor(900 / width));
    for (let i = 0; i < rows.length; i += batch) {
      const part = rows.slice(i, i + batch);
      const values = part.map(() => `(${new Array(width).fill('?').join(', ')}${extra})`).join(', ');
      await tx.run(`${head} VALUES ${values}`, part.flat());
    }
  }

  async replaceDomainRows(rows: DomainRows, configVersion: number): Promise<void> {
    await this.write(['config', 'sessions', 'runtime', 'tasks', 'lifecycle'], async (tx) => {
      // Revisions only grow, so a compare-and-set of another server never takes a restored row for its own.
      const rev = async (table: string) => Number((await tx.all<{ m: number | string | null }>(`SELECT MAX(rev) AS m FROM ${table}`))[0]?.m ?? 0) + 1;
      const sessionRev = await rev('sessions');
      const documentRev = await rev('documents');
      await tx.run("DELETE FROM beans WHERE tree = 'config'");
      for (const table of ['sessions', 'runtime', 'tasks', 'documents']) await tx.run(`DELETE FROM ${table}`);
      await this.insertMany(tx, 'INSERT INTO beans (tree, key, collection, name, ord, type, data)', rows.beans.map((b) => ['config', ...b]));
      await this.insertMany(tx, 'INSERT INTO sessions (name, info, changes, rev)', rows.sessions.map((r) => [...r, sessionRev]));
      await this.insertMany(tx, 'INSERT INTO runtime (key, data)', rows.runtime);
      await this.insertMany(tx, 'INSERT INTO tasks (key, collection, ord, type, data)', rows.tasks);
      await this.insertMany(tx, 'INSERT INTO documents (key, data, rev)', rows.documents.map((d) => [...d, documentRev]));
      await tx.run("INSERT INTO meta (key, value) VALUES ('configVersion', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(configVersion)]);
    });
  }

  async putSnapshot(name: string, created: number, data: string): Promise<void> {
    await this.db.run(
      'INSERT INTO snapshots (name, created, bytes, data) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET created = excluded.created, bytes = excluded.bytes, data = excluded.data',
      [name, created, Buffer.byteLength(data), data],
    );
  }

  async snapshot(name: string): Promise<(SnapshotInfo & { data: string }) | undefined> {
    const row = (await this.db.all<{ name: string; created: number | string; bytes: number | string; data: string }>('SELECT name, created, bytes, data FROM snapshots WHERE name = ?', [name]))[0];
    return row ? { name: row.name, created: Number(row.created), bytes: Number(row.bytes), data: row.data } : undefined;
  }

  async snapshots(): Promise<SnapshotInfo[]> {
    const rows = await this.db.all<{ name: string; created: number | string; bytes: number | string }>('SELECT name, created, bytes FROM snapshots ORDER BY name');
    return rows.map((r) => ({ name: r.name, created: Number(r.created), bytes: Number(r.bytes) }));
  }

  async deleteSnapshot(name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM snapshots WHERE name = ?', [name])).changes > 0;
  }
}
