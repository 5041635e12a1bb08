// The listeners of the managed servers this process runs: a server that runs has its ports open,
// one that stops, fails or is killed has them closed, and a running server whose ports changed
// (its SSL channel restarted, another port activated) closes the old ones and opens the new ones,
// the others staying open. The set follows the runtime's server states (every change, and
// every reload from a shared store). With a shared store exactly one process owns a server's
// listener, by a lease row in the store; when the owner's heartbeat lapses another takes it over.
// How a listener is opened (HTTP, the management interface) is the composition root's business.
import type { RuntimeEngine } from './engine.js';
import { REACHABLE } from './engine.js';
import type { Endpoint, ServerEndpoints } from './endpoints.js';
import type { Store } from '../store/store.js';
import type { Log } from '../core/log.js';

/** An open listener of one server. */
export interface ListenerHandle {
  /** With `drain`, the requests in progress are answered first (a shutdown); without, they drop (a crash). */
  close(drain?: boolean): Promise<void>;
}

/** Opens a server's listener on the endpoint `endpoints` holds; rejects (naming the port) when it cannot bind. */
export type ListenerOpener = (endpoints: ServerEndpoints) => Promise<ListenerHandle>;

export interface ListenerOptions {
  /**
   * Shared stores: the store holding the leases, this process's instance id, and since when a
   * process must have said it is alive (epoch ms, given now) to keep its leases.
   */
  leases?: { store: Store; instance: string; aliveSince: (now: number) => number };
  log: Log;
  /** How often a shared store's leases are looked at for take-overs (ms; default 5000). */
  leaseCheckMs?: number;
}

/** Listeners opened at the same time when many servers want one (a restart, a take-over). */
const OPENING_AT_ONCE = 8;

/** What tells one port's listener from another (its address, protocol and port). */
const keyOf = (endpoints: ServerEndpoints, e: Endpoint) => `${endpoints.bindAddress} ${e.protocol}:${e.port}`;

export class ServerListeners {
  /** Per server, its listeners by port (each open, or opening). */
  private readonly entries = new Map<string, Map<string, Promise<ListenerHandle>>>();
  /** Per server, the closing of its former listeners (a shutdown answering its last requests). */
  private readonly closing = new Map<string, Promise<void>>();
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly engine: RuntimeEngine,
    private readonly opener: ListenerOpener,
    private readonly opts: ListenerOptions,
  ) {
    engine.watchServers(() => void this.reconcile());
    if (opts.leases) {
      this.timer = setInterval(() => void this.reconcile(), opts.leaseCheckMs ?? 5000);
      this.timer.unref();
    }
  }

  /** Servers whose listeners this process has open (or is opening). */
  listening(): string[] {
    return [...this.entries.keys()].sort();
  }

  /**
   * Opens a starting server's listeners (the start gate): rejects with the reason when a port
   * cannot be bound (and leaves none of its ports open). A server whose lease another live
   * process holds is left to that process.
   */
  async open(server: string): Promise<void> {
    // A process that stops leaves the server's ports to its next start.
    if (this.closed) return;
    if (!this.entries.has(server) && !(await this.lease(server))) return;
    await this.start(server);
  }

  /** Brings the open listeners in line with the servers' states; concurrent calls share one round. */
  reconcile(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.round();
        } while (this.again && !this.closed);
      } catch (err) {
        this.opts.log.warn({ err }, 'managed server listeners could not be brought up to date');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async round(): Promise<void> {
    const admin = this.engine.adminServerName;
    const states = new Map(this.engine.currentTopology.servers().filter((s) => s.name !== admin).map((s) => [s.name, this.engine.serverState(s.name)]));
    // A server keeps its listeners while it is reachable, and while it starts (the start opened them);
    // a reachable one follows its ports.
    for (const name of [...this.entries.keys()]) {
      const state = states.get(name);
      if (state !== undefined && REACHABLE.has(state)) await this.follow(name);
      // A server shut down answers the requests it has (the one that shut it down among them); a
      // failed, killed or removed one drops them.
      else if (state !== 'STARTING') await this.shut(name, state === 'SHUTDOWN');
    }
    const wanted = [...states].filter(([name, state]) => REACHABLE.has(state) && !this.entries.has(name)).map(([name]) => name);
    if (wanted.length === 0) return;
    const elsewhere = await this.heldElsewhere();
    const queue = wanted.filter((name) => !elsewhere.has(name));
    // A few at a time: a lease is a round trip to the store, a port a round trip to the system.
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined && !this.closed; name = queue.shift()) {
        if (this.entries.has(name) || !(await this.lease(name))) continue;
        await this.follow(name);
      }
    };
    await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, queue.length) }, worker));
  }

  /** Opens a running server's listeners as its ports are now; one that cannot open fails the server. */
  private async follow(name: string): Promise<void> {
    try {
      await this.start(name);
    } catch (err) {
      // A running server that cannot listen (after a restart, a take-over, a port change) has failed.
      this.opts.log.warn({ server: name, err }, `server ${name} cannot listen: ${(err as Error).message}`);
      if (REACHABLE.has(this.engine.serverState(name))) this.engine.setServerState(name, 'FAILED');
    }
  }

  /** Servers whose lease another live process holds (none without a shared store). */
  private async heldElsewhere(): Promise<Set<string>> {
    const leases = this.opts.leases;
    if (!leases) return new Set();
    const live = new Set(await leases.store.liveInstances(leases.aliveSince(Date.now())));
    const held = await leases.store.listenerLeases();
    return new Set(held.filter((l) => l.owner !== leases.instance && live.has(l.owner)).map((l) => l.server));
  }

  private async lease(server: string): Promise<boolean> {
    const leases = this.opts.leases;
    if (!leases) return true;
    const now = Date.now();
    return leases.store.takeListenerLease(server, leases.instance, leases.aliveSince(now), now);
  }

  /**
   * Brings a server's listeners in line with its endpoints: ports it no longer has close, new ones
   * open, the others stay. If a port cannot be opened, every port of the server closes.
   */
  private async start(server: string): Promise<void> {
    // A server started again right after its shutdown binds its ports once the old listeners let go.
    await this.closing.get(server);
    const endpoints = this.engine.endpoints(server);
    let listeners = this.entries.get(server);
    const fresh = !listeners;
    if (!listeners) {
      listeners = new Map();
      this.entries.set(server, listeners);
    }
    const wanted = new Map(endpoints.endpoints.map((e) => [keyOf(endpoints, e), e]));
    const changed = fresh || [...listeners.keys()].some((k) => !wanted.has(k)) || [...wanted.keys()].some((k) => !listeners.has(k));
    for (const [key, opening] of [...listeners]) {
      if (wanted.has(key)) continue;
      listeners.delete(key);
      await this.closeOne(server, opening);
    }
    try {
      for (const [key, endpoint] of wanted) {
        if (!listeners.has(key)) listeners.set(key, this.opener({ ...endpoints, endpoints: [endpoint] }));
        await listeners.get(key);
      }
    } catch (err) {
      await this.shut(server);
      throw err;
    }
    if (changed) {
      const urls = endpoints.endpoints.map((e) => `${e.protocol}://${endpoints.host}:${e.port}`);
      this.opts.log.info({ server, urls }, `server ${server} listens on ${urls.join(', ') || 'no port (every port is disabled)'}`);
    }
  }

  private async closeOne(server: string, opening: Promise<ListenerHandle>, drain = false): Promise<void> {
    const handle = await opening.catch(() => undefined);
    await handle?.close(drain).catch((err: unknown) => this.opts.log.warn({ server, err }, `server ${server}: a listener did not close cleanly`));
  }

  /** Closes every listener of a server (answering the requests in progress with `drain`) and gives its lease back. */
  private async shut(server: string, drain = false): Promise<void> {
    const listeners = this.entries.get(server);
    if (!listeners) return;
    this.entries.delete(server);
    const closed = Promise.all([...listeners.values()].map((opening) => this.closeOne(server, opening, drain))).then(() => undefined);
    this.closing.set(server, closed);
    await closed;
    if (this.closing.get(server) === closed) this.closing.delete(server);
    await this.release(server);
    this.opts.log.info({ server }, `server ${server} no longer listens`);
  }

  private async release(server: string): Promise<void> {
    const leases = this.opts.leases;
    if (leases) await leases.store.releaseListenerLease(server, leases.instance).catch(() => undefined);
  }

  /** Closes every listener and gives its lease back (the process stops). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    for (const name of [...this.entries.keys()]) await this.shut(name);
  }
}
