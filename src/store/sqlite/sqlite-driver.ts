// SQLite through better-sqlite3: one file, WAL journal, full sync. Statements are synchronous, so a
// queue keeps other statements out of a transaction that awaits between its own.
import Database from 'better-sqlite3';
import { Mutex } from '../../config/mutex.js';
import type { SqlClient, SqlDriver } from '../sql.js';

export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly queue = new Mutex();
  private readonly direct: SqlClient;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    const db = this.db;
    this.direct = {
      async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
        return db.prepare(sql).all(...params) as T[];
      },
      async run(sql: string, params: unknown[] = []) {
        const r = db.prepare(sql).run(...params);
        return { changes: r.changes, lastId: Number(r.lastInsertRowid) };
      },
    };
  }

  all<T>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.queue.run(() => this.direct.all<T>(sql, params));
  }

  run(sql: string, params?: unknown[]) {
    return this.queue.run(() => this.direct.run(sql, params));
  }

  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        this.db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    await this.queue.run(() => this.db.close());
  }
}
