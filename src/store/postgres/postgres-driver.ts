// PostgreSQL through pg: a pool for statements and transactions, and one dedicated connection
// listening for the notifications other servers send when they change the domain.
// pg is loaded when the first statement runs: a server on SQLite never loads it, and its modules
// are no part of a start's import phase.
//
// The database may go away at any moment (stopped, restarted, a connection ended by an
// administrator, the network): every connection has a listener for its errors, so none ends the
// process; a statement that fails for that reason raises the store-unavailable problem; the pool
// makes new connections as statements come; the listening connection is made again with a growing
// delay, and the store is told when it is back so that it catches up with what it missed.
import type pg from 'pg';
import { storeUnavailable } from '../../core/problems.js';
import { type SnapshotReader, type SqlClient, type SqlDriver, type TransactionMode, markCommitUncertain } from '../sql.js';

/** `?` placeholders to PostgreSQL's `$1, $2, ...`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Socket errors of a connection that cannot be made or was lost. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/**
 * SQLSTATEs of a database that is going away or not there yet: the connection exceptions (class
 * 08), an administrator's terminate or shutdown (57P01), a crash of another backend (57P02), a
 * database starting or stopping (57P03), and too many connections (53300).
 */
const GONE_STATES = /^(08...|57P01|57P02|57P03|53300)$/;
/**
 * What pg says of a connection it lost or could not make in time, or of a statement the database
 * did not answer within the client's own bound (the connection is then thrown away: its answer may
 * still come).
 */
const GONE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Client was closed|Connection ended|Query read timeout/i;
/**
 * SQLSTATEs of a statement the database gave up on: cancelled by the statement timeout (or an
 * administrator's cancel), 57014, or a lock it could not get, 55P03. Nothing of it was done and the
 * connection is still good.
 */
const CANCELLED_STATES = /^(57014|55P03)$/;

/** How long one statement may run on the store by default before it is cancelled (ms). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/**
 * How much longer than the statement timeout the client waits for an answer before it gives the
 * connection up: the database cancels a statement itself, but cannot when the network or the
 * database stopped answering at all.
 */
const CLIENT_GRACE_MS = 5000;

/** Whether an error means the database could not be reached or dropped the connection. */
export function connectionLost(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || GONE_STATES.test(code))) return true;
  return GONE_MESSAGES.test(err.message);
}

/** Whether the database cancelled a statement (its statement timeout, or a lock it could not get). */
export function statementCancelled(err: unknown): boolean {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && CANCELLED_STATES.test(code);
}

/**
 * The problem of a statement that failed because the database is out of reach or did not answer in
 * time (the error otherwise).
 */
function translated(err: unknown, during: string, timeoutMs: number): unknown {
  const why = (err as Error).message;
  if (statementCancelled(err) || /Query read timeout/i.test(why)) {
    return storeUnavailable(
      `The domain's store (PostgreSQL) did not answer within ${timeoutMs / 1000} s (${why}): it is busy, or a lock is held for long; ${during}. Retry in a moment.`,
    );
  }
  if (!connectionLost(err)) return err;
  return storeUnavailable(`The domain's store (PostgreSQL) cannot be reached (${why}); ${during}. Retry once it is back: the server reconnects by itself.`);
}

const NOTHING_CHANGED = 'nothing was changed';
/** A COMMIT whose answer was lost: the database may or may not have applied it. */
const COMMIT_UNKNOWN = 'the connection was lost while the change was being committed, so whether it took effect is known only once the store answers again';

function client(q: { query: pg.Pool['query'] }, during: string, timeoutMs: number): SqlClient {
  return {
    async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      try {
        const r = await q.query(numbered(sql), params);
        return r.rows as T[];
      } catch (err) {
        throw translated(err, during, timeoutMs);
      }
    },
    async run(sql: string, params: unknown[] = []) {
      try {
        const r = await q.query(numbered(sql), params);
        const first = r.rows?.[0] as { id?: unknown } | undefined;
        return { changes: r.rowCount ?? 0, lastId: first?.id !== undefined ? Number(first.id) : undefined };
      } catch (err) {
        throw translated(err, during, timeoutMs);
      }
    },
  };
}

/** First and longest delay between tries to make the listening connection again (ms). */
const RELISTEN_FIRST_MS = 250;
const RELISTEN_MAX_MS = 5000;

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly notifySql = "SELECT pg_notify('appserver_changes', ?)";
  private pooled?: Promise<pg.Pool>;
  private listener?: pg.Client;
  private relisten?: NodeJS.Timeout;
  private closed = false;

  /**
   * `statementTimeoutMs`: how long one statement may run before the database cancels it (and the
   * request that needed it answers 503); 0 for no bound.
   */
  constructor(
    private readonly url: string,
    private readonly statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  ) {}

  private client(q: { query: pg.Pool['query'] }, during = NOTHING_CHANGED): SqlClient {
    return client(q, during, this.statementTimeoutMs);
  }

  private translated(err: unknown, during = NOTHING_CHANGED): unknown {
    return translated(err, during, this.statementTimeoutMs);
  }

  /** The pool, made at the first statement. */
  private pool(): Promise<pg.Pool> {
    this.pooled ??= import('pg').then(({ default: driver }) => {
      // The database cancels a statement that runs past the timeout (a lock held by someone else,
      // a database too busy), and the client gives up a little later if even that answer does not
      // come: no request waits on the store for ever.
      const bound = this.statementTimeoutMs > 0 ? { statement_timeout: this.statementTimeoutMs, query_timeout: this.statementTimeoutMs + CLIENT_GRACE_MS } : {};
      const pool = new driver.Pool({ connectionString: this.url, max: 8, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000, keepAlive: true, ...bound });
      // A broken idle connection must not take the server down; the next statement makes a new one.
      pool.on('error', () => undefined);
      // Nor one lost between two owners: the pool drops its own listener when it hands a connection
      // out, and the database's notice that it ended the connection can arrive in the same read as
      // the answer that freed it, before the new owner has added its listener.
      pool.on('connect', (c) => c.on('error', () => undefined));
      return pool;
    });
    return this.pooled;
  }

  async all<T>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.client(await this.pool()).all<T>(sql, params);
  }

  async run(sql: string, params?: unknown[]) {
    return this.client(await this.pool()).run(sql, params);
  }

  async rows(sql: string, params: unknown[] = []): Promise<unknown[][]> {
    const pool = await this.pool();
    try {
      return (await pool.query({ text: numbered(sql), values: params, rowMode: 'array' })).rows as unknown[][];
    } catch (err) {
      throw this.translated(err);
    }
  }

  /**
   * A connection of the pool for one owner. The pool listens for errors of idle connections only;
   * one checked out and lost between two statements (its backend terminated) would otherwise end
   * the process, so its loss is noted in `lost`. `giveBack` returns it to the pool, or throws it
   * away when it was lost.
   */
  private async checkout(): Promise<{ conn: pg.PoolClient; lost: unknown; giveBack: () => void }> {
    let conn: pg.PoolClient;
    try {
      conn = await (await this.pool()).connect();
    } catch (err) {
      throw this.translated(err);
    }
    const onError = (err: unknown) => (held.lost ??= err);
    const held = {
      conn,
      lost: undefined as unknown,
      giveBack: () => {
        conn.removeListener('error', onError);
        conn.release(held.lost === undefined ? undefined : true);
      },
    };
    conn.on('error', onError);
    return held;
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>, mode: TransactionMode = 'write'): Promise<T> {
    const held = await this.checkout();
    const { conn } = held;
    try {
      // A snapshot sees the database as it was at its first statement, whatever commits meanwhile.
      await this.client(conn).run(mode === 'snapshot' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const result = await fn(this.client(conn));
      try {
        await conn.query('COMMIT');
      } catch (err) {
        if (!connectionLost(err)) throw this.translated(err);
        held.lost ??= err;
        throw markCommitUncertain(this.translated(err, COMMIT_UNKNOWN) as object);
      }
      return result;
    } catch (err) {
      if (held.lost === undefined && connectionLost(err)) held.lost = err;
      if (held.lost === undefined) await conn.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      held.giveBack();
    }
  }

  /**
   * A connection of the pool kept for the read, in a read-only repeatable-read transaction; large
   * results are read through a cursor, a batch at a time.
   */
  async snapshot(): Promise<SnapshotReader> {
    const held = await this.checkout();
    const q = this.client(held.conn);
    let open = true;
    const close = async () => {
      if (!open) return;
      open = false;
      if (held.lost === undefined) await held.conn.query('ROLLBACK').catch((err: unknown) => (held.lost = err));
      held.giveBack();
    };
    try {
      await q.run('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      if (connectionLost(err)) held.lost ??= err;
      await close();
      throw err;
    }
    let cursors = 0;
    return {
      all: <T>(sql: string, params?: unknown[]) => q.all<T>(sql, params),
      async *batches<T>(sql: string, size: number): AsyncGenerator<T[]> {
        const cursor = `snapshot_rows_${++cursors}`;
        await q.run(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql}`);
        try {
          for (;;) {
            const rows = await q.all<T>(`FETCH ${Math.max(1, Math.floor(size))} FROM ${cursor}`);
            if (rows.length > 0) yield rows;
            if (rows.length < size) return;
          }
        } finally {
          if (open && held.lost === undefined) await q.run(`CLOSE ${cursor}`).catch(() => undefined);
        }
      },
      close,
    };
  }

  /**
   * Listens on `channel`. When the listening connection is lost, it is made again (after 0.25 s,
   * then twice as long each failed try, at most 5 s) and `restored` is called once it listens:
   * notifications sent meanwhile were missed.
   */
  async listen(channel: string, fn: (payload: string) => void, restored?: () => void): Promise<void> {
    const { default: driver } = await import('pg');
    const connect = async (): Promise<void> => {
      const c = new driver.Client({ connectionString: this.url, keepAlive: true });
      let failed = false;
      let listening = false;
      const lostConnection = () => {
        // A connection that never listened fails its `connect` below instead.
        if (failed || !listening) return;
        failed = true;
        c.removeAllListeners('notification');
        void c.end().catch(() => undefined);
        if (this.listener === c) this.listener = undefined;
        if (!this.closed) this.scheduleRelisten(connect, restored, RELISTEN_FIRST_MS);
      };
      // Both: 'error' for a connection ended by the database, 'end' for one closed under it.
      c.on('error', lostConnection);
      c.on('end', lostConnection);
      c.on('notification', (msg) => {
        if (msg.channel === channel) fn(msg.payload ?? '');
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${channel}`);
      } catch (err) {
        failed = true;
        void c.end().catch(() => undefined);
        throw this.translated(err);
      }
      if (this.closed) {
        await c.end().catch(() => undefined);
        return;
      }
      listening = true;
      this.listener = c;
    };
    await connect();
  }

  private scheduleRelisten(connect: () => Promise<void>, restored: (() => void) | undefined, delay: number): void {
    if (this.relisten || this.closed) return;
    this.relisten = setTimeout(() => {
      this.relisten = undefined;
      connect().then(
        () => restored?.(),
        () => this.scheduleRelisten(connect, restored, Math.min(delay * 2, RELISTEN_MAX_MS)),
      );
    }, delay);
    this.relisten.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.relisten) clearTimeout(this.relisten);
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      listener.removeAllListeners('end');
      await listener.end().catch(() => undefined);
    }
    // A pool never made has nothing to end.
    if (this.pooled) await (await this.pooled).end();
  }
}
