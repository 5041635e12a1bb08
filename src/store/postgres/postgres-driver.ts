// PostgreSQL through pg: a pool for statements and transactions, and one dedicated connection
// listening for the notifications other servers send when they change the domain.
// pg is loaded when the first statement runs: a server on SQLite never loads it, and its modules
// are no part of a start's import phase.
import type pg from 'pg';
import type { SqlClient, SqlDriver } from '../sql.js';

/** `?` placeholders to PostgreSQL's `$1, $2, ...`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function client(q: { query: pg.Pool['query'] }): SqlClient {
  return {
    async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      const r = await q.query(numbered(sql), params);
      return r.rows as T[];
    },
    async run(sql: string, params: unknown[] = []) {
      const r = await q.query(numbered(sql), params);
      const first = r.rows?.[0] as { id?: unknown } | undefined;
      return { changes: r.rowCount ?? 0, lastId: first?.id !== undefined ? Number(first.id) : undefined };
    },
  };
}

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly notifySql = "SELECT pg_notify('appserver_changes', ?)";
  private pooled?: Promise<pg.Pool>;
  private listener?: pg.Client;

  constructor(private readonly url: string) {}

  /** The pool, made at the first statement. */
  private pool(): Promise<pg.Pool> {
    this.pooled ??= import('pg').then(({ default: driver }) => {
      const pool = new driver.Pool({ connectionString: this.url, max: 8, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
      // A broken idle connection must not take the server down; the next query reconnects.
      pool.on('error', () => undefined);
      return pool;
    });
    return this.pooled;
  }

  async all<T>(sql: string, params?: unknown[]): Promise<T[]> {
    return client(await this.pool()).all<T>(sql, params);
  }

  async run(sql: string, params?: unknown[]) {
    return client(await this.pool()).run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    const conn = await (await this.pool()).connect();
    try {
      await conn.query('BEGIN');
      const result = await fn(client(conn));
      await conn.query('COMMIT');
      return result;
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      conn.release();
    }
  }

  async listen(channel: string, fn: (payload: string) => void): Promise<void> {
    const { default: driver } = await import('pg');
    this.listener = new driver.Client({ connectionString: this.url });
    this.listener.on('error', () => undefined);
    await this.listener.connect();
    this.listener.on('notification', (msg) => {
      if (msg.channel === channel) fn(msg.payload ?? '');
    });
    await this.listener.query(`LISTEN ${channel}`);
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
    // A pool never made has nothing to end.
    if (this.pooled) await (await this.pooled).end();
  }
}
