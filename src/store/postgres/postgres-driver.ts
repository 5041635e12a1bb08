// PostgreSQL through pg: a pool for statements and transactions, and one dedicated connection
// listening for the notifications other servers send when they change the domain.
import pg from 'pg';
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
  private readonly pool: pg.Pool;
  private readonly direct: SqlClient;
  private listener?: pg.Client;

  constructor(private readonly url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
    // A broken idle connection must not take the server down; the next query reconnects.
    this.pool.on('error', () => undefined);
    this.direct = client(this.pool);
  }

  all<T>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.direct.all<T>(sql, params);
  }

  run(sql: string, params?: unknown[]) {
    return this.direct.run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    const conn = await this.pool.connect();
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
    this.listener = new pg.Client({ connectionString: this.url });
    this.listener.on('error', () => undefined);
    await this.listener.connect();
    this.listener.on('notification', (msg) => {
      if (msg.channel === channel) fn(msg.payload ?? '');
    });
    await this.listener.query(`LISTEN ${channel}`);
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
