// How a data source reaches its database. PostgreSQL: a real pool of connections (`pg`), sized by
// the descriptor, tested with its test statement, its figures read from the pool itself. Other
// vendors (no client here): a check that the database's port accepts TCP connections. In-memory
// embedded databases: provided here, always reachable.
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { DatabaseAddress } from '../../core/jdbc-url.js';
import { acceptsConnections } from './reachability.js';
import { DatabaseFailure } from './reasons.js';
import { type DataSourceSettings, testStatement } from './settings.js';

export interface Backend {
  /** True when connections are really pooled (the runtime figures are the pool's). */
  readonly pooled: boolean;
  /** Makes the initial connections (at least one, to know the database answers). */
  open(): Promise<void>;
  /** Reserves a connection, runs the test statement on it and releases it. */
  test(): Promise<void>;
  /** Closes unused connections above the minimum capacity; how many were closed. */
  shrink(): Promise<number>;
  /** Drops the prepared statements of the unused connections. */
  clearStatementCache(): Promise<void>;
  /** Closes every connection; the backend is not used again. */
  close(): Promise<void>;
  /** Figures of a JDBC data source runtime. */
  figures(): Record<string, unknown>;
  resetStatistics(): void;
}

/**
 * A backend with no pool of its own: nothing to shrink, clear or close, and no pool figures (the
 * runtime's figures come from the workload model).
 */
abstract class UnpooledBackend implements Backend {
  readonly pooled = false;

  abstract open(): Promise<void>;

  abstract test(): Promise<void>;

  async shrink(): Promise<number> {
    return 0;
  }

  async clearStatementCache(): Promise<void> {}

  async close(): Promise<void> {}

  figures(): Record<string, unknown> {
    return {};
  }

  resetStatistics(): void {}
}

/** The TCP check of a database this server has no client for. */
export class PortCheck extends UnpooledBackend {
  constructor(
    private readonly address: DatabaseAddress,
    private readonly timeoutSeconds: number,
  ) {
    super();
  }

  open(): Promise<void> {
    return acceptsConnections(this.address.host, this.address.port, this.timeoutSeconds);
  }

  test(): Promise<void> {
    return this.open();
  }
}

/**
 * An in-memory embedded database: it would run inside the (simulated) server, so it is always
 * there while the data source runs; nothing is connected to and no statement is run.
 */
export class InMemoryDatabase extends UnpooledBackend {
  async open(): Promise<void> {}

  async test(): Promise<void> {}
}

/** A server version as the database states it, kept only when it looks like one. */
const VERSION = /^[0-9][0-9A-Za-z .()_~+-]{0,60}$/;

interface Counters {
  created: number;
  destroyed: number;
  reserveRequests: number;
  failedReserves: number;
  waitingTotal: number;
  waitingSuccess: number;
  waitingFailure: number;
  activeHigh: number;
  availableHigh: number;
  unavailableHigh: number;
  capacityHigh: number;
  waitingHigh: number;
  waitMsHigh: number;
  connectMsTotal: number;
  statementsCleared: number;
}

const zero = (): Counters => ({
  created: 0,
  destroyed: 0,
  reserveRequests: 0,
  failedReserves: 0,
  waitingTotal: 0,
  waitingSuccess: 0,
  waitingFailure: 0,
  activeHigh: 0,
  availableHigh: 0,
  unavailableHigh: 0,
  capacityHigh: 0,
  waitingHigh: 0,
  waitMsHigh: 0,
  connectMsTotal: 0,
  statementsCleared: 0,
});

export interface PostgresOptions {
  settings: DataSourceSettings;
  address: DatabaseAddress;
  /** The clear password, asked for at each new connection and kept by nothing here. */
  password: () => string;
  /** Shown by the database as the connection's application (pg_stat_activity). */
  applicationName: string;
  /** A connection nobody used failed (the database went away): the pool should be checked. */
  onBroken: () => void;
}

let driver: typeof pg | undefined;
/** pg, loaded by the first PostgreSQL data source: a start whose data sources need none does not load it. */
function pgDriver(): typeof pg {
  driver ??= createRequire(import.meta.url)('pg') as typeof pg;
  return driver;
}

/** A pool of real PostgreSQL connections. */
export class PostgresPool implements Backend {
  readonly pooled = true;
  private readonly pool: pg.Pool;
  private counters = zero();
  private serverVersion: string | null = null;
  private readonly statement: string;
  /** When each connection being made was asked for (for the connection delay). */
  private readonly started = new WeakMap<pg.Client, number>();

  constructor(private readonly o: PostgresOptions) {
    const s = o.settings;
    const user = s.user;
    if (user === undefined) throw new DatabaseFailure(`The data source names no user: give its driver the property 'user'.`);
    const ms = s.timeoutSeconds * 1000;
    this.statement = testStatement(s.testTableName);
    this.pool = new (pgDriver().Pool)({
      host: o.address.host,
      port: o.address.port,
      database: o.address.database ?? user,
      user,
      // A function, so the clear password exists only while a connection is being made.
      password: () => o.password(),
      application_name: o.applicationName,
      max: s.maxCapacity,
      min: s.minCapacity,
      idleTimeoutMillis: s.shrinkFrequencySeconds * 1000,
      connectionTimeoutMillis: ms,
      query_timeout: ms,
      statement_timeout: ms,
      keepAlive: true,
      allowExitOnIdle: true,
    });
    // Without a listener, a connection failing while unused would end the process.
    this.pool.on('error', () => o.onBroken());
    this.pool.on('connect', (client) => {
      // The pool listens for errors of idle connections only: one lost while reserved (its
      // database stopped, the connection ended by an administrator) would end the process. The
      // statement running on it fails, and says so, instead.
      client.on('error', () => undefined);
      this.counters.created++;
      this.highs();
    });
    this.pool.on('remove', () => {
      this.counters.destroyed++;
    });
    this.pool.on('acquire', () => this.highs());
    this.pool.on('release', () => this.highs());
  }

  private highs(): void {
    const c = this.counters;
    const total = this.pool.totalCount;
    const idle = this.pool.idleCount;
    c.activeHigh = Math.max(c.activeHigh, total - idle);
    c.unavailableHigh = Math.max(c.unavailableHigh, total - idle);
    c.availableHigh = Math.max(c.availableHigh, idle);
    c.capacityHigh = Math.max(c.capacityHigh, total);
    c.waitingHigh = Math.max(c.waitingHigh, this.pool.waitingCount);
  }

  /** One connection, waiting at most the timeout; counted as the product counts reservations. */
  private async reserve(): Promise<pg.PoolClient> {
    const c = this.counters;
    c.reserveRequests++;
    const mustWait = this.pool.idleCount === 0 && this.pool.totalCount >= this.o.settings.maxCapacity;
    const mustConnect = this.pool.idleCount === 0 && !mustWait;
    if (mustWait) c.waitingTotal++;
    const asked = Date.now();
    const pending = this.pool.connect();
    this.highs();
    try {
      const client = await pending;
      const waited = Date.now() - asked;
      if (mustWait) {
        c.waitingSuccess++;
        c.waitMsHigh = Math.max(c.waitMsHigh, waited);
      }
      if (mustConnect) c.connectMsTotal += waited;
      return client;
    } catch (err) {
      c.failedReserves++;
      if (mustWait) c.waitingFailure++;
      throw err;
    }
  }

  async open(): Promise<void> {
    const wanted = Math.max(1, this.o.settings.initialCapacity - this.pool.totalCount);
    const got: pg.PoolClient[] = [];
    const results = await Promise.allSettled(Array.from({ length: wanted }, () => this.reserve()));
    for (const r of results) if (r.status === 'fulfilled') got.push(r.value);
    try {
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (this.serverVersion === null && got[0]) {
        const v = await got[0].query('SHOW server_version');
        const text = String(v.rows[0]?.server_version ?? '');
        this.serverVersion = VERSION.test(text) ? text : '';
      }
    } finally {
      // With an initial capacity of 0, the connection that proved the database answers is closed.
      const keep = Math.max(0, this.o.settings.initialCapacity);
      got.forEach((client, i) => client.release(i >= keep ? true : undefined));
    }
  }

  async test(): Promise<void> {
    const client = await this.reserve();
    let broken: Error | undefined;
    try {
      await client.query(this.statement);
    } catch (err) {
      // A statement the database refused leaves the connection usable; a lost one does not.
      const code = (err as { code?: unknown }).code;
      if (!(typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08'))) broken = err as Error;
      throw err;
    } finally {
      client.release(broken ?? undefined);
    }
  }

  async shrink(): Promise<number> {
    const keep = Math.max(this.o.settings.minCapacity, this.pool.totalCount - this.pool.idleCount);
    let closed = 0;
    // Only unused connections are taken (the pool hands those out first), never new ones made.
    while (this.pool.totalCount > keep && this.pool.idleCount > 0) {
      const client = await this.pool.connect();
      client.release(true);
      closed++;
    }
    return closed;
  }

  async clearStatementCache(): Promise<void> {
    const idle: pg.PoolClient[] = [];
    try {
      const unused = this.pool.idleCount;
      // Only unused connections are taken: while some are idle, the pool makes no new one.
      for (let i = 0; i < unused && this.pool.idleCount > 0; i++) idle.push(await this.pool.connect());
      for (const client of idle) {
        await client.query('DEALLOCATE ALL');
        this.counters.statementsCleared++;
      }
    } finally {
      for (const client of idle) client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  resetStatistics(): void {
    this.counters = { ...zero(), created: this.counters.created, destroyed: this.counters.destroyed };
    this.highs();
  }

  figures(): Record<string, unknown> {
    const c = this.counters;
    const total = this.pool.totalCount;
    const idle = this.pool.idleCount;
    const made = Math.max(1, c.created);
    return {
      activeConnectionsCurrentCount: total - idle,
      activeConnectionsHighCount: c.activeHigh,
      connectionsTotalCount: c.created,
      currCapacity: total,
      currCapacityHighCount: c.capacityHigh,
      numAvailable: idle,
      highestNumAvailable: c.availableHigh,
      numUnavailable: total - idle,
      highestNumUnavailable: c.unavailableHigh,
      reserveRequestCount: c.reserveRequests,
      failedReserveRequestCount: c.failedReserves,
      waitingForConnectionCurrentCount: this.pool.waitingCount,
      waitingForConnectionHighCount: c.waitingHigh,
      waitingForConnectionTotal: c.waitingTotal,
      waitingForConnectionSuccessTotal: c.waitingSuccess,
      waitingForConnectionFailureTotal: c.waitingFailure,
      waitSecondsHighCount: Math.round(c.waitMsHigh / 1000),
      connectionDelayTime: Math.round(c.connectMsTotal / made),
      leakedConnectionCount: 0,
      prepStmtCacheDeleteCount: c.statementsCleared,
      databaseProductVersion: this.serverVersion,
    };
  }
}
