// The data sources that run on the servers of this process, each with its way to its database
// (backends.ts) and its health: pending until the first attempt ends, then ok or failed with the
// reason. The runtime engine says which data sources run where (`beginServer`/`want`/`endServer`
// as it builds a server's tree, `dropServer` when a server stops); what no server runs any more is
// closed. A healthy pool is tested every `testFrequencySeconds`, a failed one retried, on the
// engine's scheduler; connection attempts and statements are bounded by the descriptor's timeout.
import { RealScheduler, type Scheduler } from '../../core/clock.js';
import { type Log, SILENT_LOG } from '../../core/log.js';
import type { Sealed } from '../../config/secrets.js';
import { type Backend, InMemoryDatabase, PortCheck, PostgresPool } from './backends.js';
import { DatabaseFailure, reasonOf } from './reasons.js';
import { type DataSourceSettings, fingerprint } from './settings.js';
import { urlHost } from '../../core/host-name.js';

export type Health = 'pending' | 'ok' | 'failed';

export interface DataSourceHealth {
  health: Health;
  /** Why the database cannot be used (failed only). */
  reason?: string;
}

interface Entry {
  key: string;
  server: string;
  partition: string;
  name: string;
  settings: DataSourceSettings;
  print: string;
  /** The operator's state of the data source: Running, Suspended or Shutdown. */
  state: string;
  backend?: Backend;
  health: Health;
  reason?: string;
  checking?: Promise<void>;
  timer?: { cancel(): void };
  /** Grows whenever the backend is replaced: results of an older one are dropped. */
  generation: number;
  /** Failed attempts to reach the database since it last answered. */
  failures: number;
  /** The last failure came from an injected fault: once the fault goes, the database is tried again. */
  faulted?: boolean;
}

export interface DataSourceDeps {
  /** Opens a sealed password (in memory only, at the moment a connection is made). */
  openSecret: (sealed: Sealed) => string;
  scheduler: Scheduler;
  log: Log;
}

const keyOf = (server: string, partition: string, name: string) => `${server}/${partition}/${name}`;

/** The longest application name PostgreSQL keeps. */
const MAX_APPLICATION_NAME = 63;

export class DataSources {
  private readonly entries = new Map<string, Entry>();
  private deps: DataSourceDeps = { openSecret: () => '', scheduler: new RealScheduler(), log: SILENT_LOG };
  /** Nothing connects before the process serves (start) nor after it closed. */
  private live = false;
  private closed = false;
  /** Closing backends, awaited by closeAll. */
  private readonly closing = new Set<Promise<void>>();
  /** The server whose tree is being built, and the data sources it runs. */
  private building?: { server: string; seen: Set<string> };

  /**
   * `lostDatabase` says why a data source on a server has lost its database, while a fault injected
   * through the control interface says so: its attempts to reach the database then fail with that
   * reason, and its connections close.
   */
  constructor(private readonly lostDatabase: (dataSource: string, server: string) => string | undefined = () => undefined) {}

  /** Gives the pools what they need to open connections. */
  configure(deps: DataSourceDeps): void {
    this.deps = deps;
  }

  /** Opens the pools wanted so far, and from now on every pool as soon as it is wanted. */
  start(): void {
    if (this.closed || this.live) return;
    this.live = true;
    for (const e of this.entries.values()) if (e.state !== 'Shutdown') this.begin(e);
  }

  // ---- what runs where (called by the engine) ----

  beginServer(server: string): void {
    this.building = { server, seen: new Set() };
  }

  /** A data source runs on `server` with these settings and operator state. */
  want(server: string, partition: string, name: string, settings: DataSourceSettings, state: string): void {
    const key = keyOf(server, partition, name);
    if (this.building?.server === server) this.building.seen.add(key);
    const print = fingerprint(settings);
    const known = this.entries.get(key);
    if (known && known.print === print) {
      // Another server sharing the store may have moved it.
      if (known.state !== normalState(state)) this.setState(server, partition, name, state);
      return;
    }
    if (known) {
      // The descriptor changed (an activation): the pool is made again from it.
      known.settings = settings;
      known.print = print;
      this.stop(known);
      if (known.state !== 'Shutdown') this.begin(known);
      return;
    }
    const e: Entry = { key, server, partition, name, settings, print, state: normalState(state), health: 'pending', generation: 0, failures: 0 };
    this.entries.set(key, e);
    if (e.state !== 'Shutdown') this.begin(e);
  }

  /** The server's tree is built: what it no longer runs is closed. */
  endServer(server: string): void {
    const seen = this.building?.server === server ? this.building.seen : new Set<string>();
    this.building = undefined;
    for (const e of [...this.entries.values()]) if (e.server === server && !seen.has(e.key)) this.forget(e);
  }

  /** The server stopped: its data sources close. */
  dropServer(server: string): void {
    for (const e of [...this.entries.values()]) if (e.server === server) this.forget(e);
  }

  /** Only these servers run: the data sources of any other close. */
  keepServers(servers: ReadonlySet<string>): void {
    for (const e of [...this.entries.values()]) if (!servers.has(e.server)) this.forget(e);
  }

  /** The operator moved the data source (suspend, resume, shutdown, start). */
  setState(server: string, partition: string, name: string, state: string): void {
    const e = this.entries.get(keyOf(server, partition, name));
    if (!e) return;
    const next = normalState(state);
    const was = e.state;
    e.state = next;
    if (next === 'Shutdown' && was !== 'Shutdown') this.stop(e);
    else if (next !== 'Shutdown' && was === 'Shutdown') this.begin(e);
    else if (next === 'Running' && was !== 'Running' && e.health === 'failed') void this.check(e);
  }

  // ---- what the runtime shows ----

  /** True when this process runs the data source's pool (always, once started). */
  has(server: string, partition: string, name: string): boolean {
    return this.live && this.entries.has(keyOf(server, partition, name));
  }

  /** True when the data source has a real pool, whose figures are the runtime's. */
  hasPool(server: string, partition: string, name: string): boolean {
    return this.entries.get(keyOf(server, partition, name))?.backend?.pooled === true;
  }

  health(server: string, partition: string, name: string): DataSourceHealth | undefined {
    const e = this.entries.get(keyOf(server, partition, name));
    if (!e || e.state === 'Shutdown' || !this.live) return undefined;
    const lost = this.lostDatabase(e.name, e.server);
    if (lost !== undefined) return { health: 'failed', reason: lost };
    if (e.faulted && !e.checking) void this.check(e);
    return e.health === 'failed' ? { health: 'failed', reason: e.reason ?? '' } : { health: e.health };
  }

  /** Data sources of a server that cannot reach their database, with the reasons. */
  failing(server: string): { partition: string; name: string; reason: string }[] {
    const out: { partition: string; name: string; reason: string }[] = [];
    for (const e of this.entries.values()) {
      if (e.server !== server || e.state === 'Shutdown') continue;
      const lost = this.lostDatabase(e.name, e.server);
      if (lost !== undefined || e.health === 'failed') out.push({ partition: e.partition, name: e.name, reason: lost ?? e.reason ?? '' });
    }
    return out;
  }

  /** Runtime figures: the product and driver, the user, and the pool's figures when there is one. */
  figures(server: string, partition: string, name: string): Record<string, unknown> | undefined {
    const e = this.entries.get(keyOf(server, partition, name));
    if (!e) return undefined;
    const address = e.settings.address;
    return {
      ...('product' in address && address.product !== undefined ? { databaseProductName: address.product } : {}),
      ...(e.settings.driverName ? { driverName: e.settings.driverName } : {}),
      properties: e.settings.user !== undefined ? { user: e.settings.user } : {},
      failuresToReconnectCount: e.failures,
      ...(e.backend?.figures() ?? {}),
    };
  }

  // ---- operations ----

  /** Tests the data source's database now: null when it answered, else the reason. */
  async testPool(server: string, partition: string, name: string): Promise<string | null> {
    const e = this.entries.get(keyOf(server, partition, name));
    if (!e) return `Data source '${name}' does not run on ${server}.`;
    await this.check(e, true);
    return e.health === 'failed' ? (e.reason ?? 'The test failed.') : null;
  }

  /** Closes every connection and makes the pool again; null when the database answered, else the reason. */
  async reset(server: string, partition: string, name: string): Promise<string | null> {
    const e = this.entries.get(keyOf(server, partition, name));
    if (!e) return null;
    this.stop(e);
    this.begin(e);
    await e.checking;
    return e.health === 'failed' ? (e.reason ?? null) : null;
  }

  async shrink(server: string, partition: string, name: string): Promise<number> {
    const e = this.entries.get(keyOf(server, partition, name));
    return e?.backend && e.health === 'ok' ? e.backend.shrink() : 0;
  }

  async clearStatementCache(server: string, partition: string, name: string): Promise<void> {
    const e = this.entries.get(keyOf(server, partition, name));
    if (e?.backend && e.health === 'ok') await e.backend.clearStatementCache().catch((err) => this.failed(e, e.generation, err));
  }

  resetStatistics(server: string, partition: string, name: string): void {
    this.entries.get(keyOf(server, partition, name))?.backend?.resetStatistics();
  }

  /** Closes every pool (the process stops); nothing connects afterwards. */
  async closeAll(): Promise<void> {
    this.closed = true;
    this.live = false;
    for (const e of [...this.entries.values()]) this.forget(e);
    await Promise.allSettled([...this.closing]);
  }

  // ---- inside ----

  private forget(e: Entry): void {
    this.stop(e);
    this.entries.delete(e.key);
  }

  /** Makes the backend and opens it (when the process is live). */
  private begin(e: Entry): void {
    e.health = 'pending';
    e.reason = undefined;
    if (!this.live) return;
    e.generation++;
    try {
      e.backend = this.make(e);
    } catch (err) {
      e.backend = undefined;
      this.failed(e, e.generation, err);
      return;
    }
    void this.check(e);
  }

  /** Closes the backend's connections and puts a new, unopened one in its place (same generation). */
  private replaceBackend(e: Entry): void {
    const old = e.backend;
    if (!old?.pooled) return;
    e.backend = this.make(e);
    this.close(old);
  }

  private close(backend: Backend): void {
    const closing = backend.close().catch(() => undefined);
    this.closing.add(closing);
    void closing.finally(() => this.closing.delete(closing));
  }

  /** The way to the entry's database its URL gives; throws the reason when there is none. */
  private make(e: Entry): Backend {
    const address = e.settings.address;
    if ('problem' in address) throw new DatabaseFailure(`Data source '${e.name}' cannot reach a database: ${address.problem}.`);
    if (address.embedded) return new InMemoryDatabase();
    if (address.vendor !== 'postgresql') return new PortCheck(address, e.settings.timeoutSeconds);
    return new PostgresPool({
      settings: e.settings,
      address,
      password: () => this.password(e),
      applicationName: `appserver ${e.server} ${e.name}`.slice(0, MAX_APPLICATION_NAME),
      onBroken: () => void this.check(e),
    });
  }

  /** Cancels the entry's timer and closes its backend. */
  private stop(e: Entry): void {
    e.timer?.cancel();
    e.timer = undefined;
    e.generation++;
    e.checking = undefined;
    const backend = e.backend;
    e.backend = undefined;
    if (backend) this.close(backend);
  }

  private password(e: Entry): string {
    const p = e.settings.password;
    if (p === undefined) return '';
    return typeof p === 'string' ? p : this.deps.openSecret(p);
  }

  private where(e: Entry): string {
    const a = e.settings.address;
    if ('embedded' in a) return 'its in-memory database';
    return 'host' in a ? `${urlHost(a.host)}:${a.port}` : 'its URL';
  }

  /**
   * Opens the backend (when it never answered) or tests it. One attempt at a time: a caller arriving
   * during one waits for it, unless `fresh` asks for an attempt that starts after the call.
   */
  private check(e: Entry, fresh = false): Promise<void> {
    if (e.checking && !fresh) return e.checking;
    const before = e.checking ?? Promise.resolve();
    const generation = e.generation;
    const run = async () => {
      await before;
      if (e.generation !== generation) return;
      const lost = this.lostDatabase(e.name, e.server);
      e.faulted = lost !== undefined;
      try {
        if (lost !== undefined) {
          // The database is gone: so are the connections to it.
          this.replaceBackend(e);
          throw new DatabaseFailure(lost);
        }
        if (!e.backend) throw new DatabaseFailure(e.reason ?? `Data source '${e.name}' has no way to its database.`);
        // A pool that never answered makes its connections first; a test (testPool, or the
        // periodic one of a healthy pool) runs the test statement.
        const healthy = e.health === 'ok';
        if (!healthy) await e.backend.open();
        if (healthy || fresh) await e.backend.test();
        // An answer from a backend replaced meanwhile says nothing of the current one.
        if (e.generation !== generation) return;
        if (e.health === 'failed') this.deps.log.info({ server: e.server, dataSource: e.name }, `data source ${e.name} on ${e.server} reaches its database again`);
        e.health = 'ok';
        e.reason = undefined;
        e.failures = 0;
      } catch (err) {
        this.failed(e, generation, err);
      }
    };
    const attempt = run().finally(() => {
      if (e.checking !== attempt || e.generation !== generation) return;
      e.checking = undefined;
      this.schedule(e);
    });
    e.checking = attempt;
    return attempt;
  }

  private failed(e: Entry, generation: number, err: unknown): void {
    if (e.generation !== generation) return;
    const reason = reasonOf(err, this.where(e), e.settings.timeoutSeconds);
    if (e.health !== 'failed' || e.reason !== reason) this.deps.log.warn({ server: e.server, dataSource: e.name, reason }, `data source ${e.name} on ${e.server} cannot use its database`);
    e.health = 'failed';
    e.reason = reason;
    e.failures++;
  }

  /** The next test of a healthy pool, or the next attempt of a failed one. */
  private schedule(e: Entry): void {
    e.timer?.cancel();
    e.timer = undefined;
    if (!this.live || e.state === 'Shutdown' || !this.entries.has(e.key)) return;
    const s = e.settings;
    const seconds = e.health === 'failed' && s.retrySeconds > 0 ? s.retrySeconds : s.testFrequencySeconds;
    if (seconds <= 0) return;
    e.timer = this.deps.scheduler.after(seconds * 1000, () => {
      e.timer = undefined;
      void this.check(e);
    });
  }
}

function normalState(state: string): string {
  return state === 'Shutdown' || state === 'Suspended' ? state : 'Running';
}
