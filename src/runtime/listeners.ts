// The listeners of the managed servers this process runs: a server that runs has its ports open,
// one that stops, fails or is killed has them closed, and a running server whose ports moved is
// opened again on the new ones. The set follows the runtime's server states (every change, and
// every reload from a shared store). With a shared store exactly one process owns a server's
// listener, by a lease row in the store; when the owner's heartbeat lapses another takes it over.
// How a listener is opened (HTTP, the management interface) is the composition root's business.
import type { RuntimeEngine } from './engine.js';
import { REACHABLE } from './engine.js';
import { type ServerEndpoints, signatureOf } from './endpoints.js';
import type { Store } from '../store/store.js';
import type { Log } from '../core/log.js';

/** An open listener set of one server. */
export interface ListenerHandle {
  close(): Promise<void>;
}

/** Opens a server's listeners on its endpoints; rejects (naming the port) when one cannot bind. */
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

interface Entry {
  signature: string;
  /** The listener once open (undefined: failed or owned elsewhere). */
  opening: Promise<ListenerHandle>;
}

export class ServerListeners {
  private readonly entries = new Map<string, Entry>();
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
   * cannot be bound. A server whose lease another live process holds is left to that process.
   */
  async open(server: string): Promise<void> {
    // A process that stops leaves the server's ports to its next start.
    if (this.closed) return;
    const endpoints = this.engine.endpoints(server);
    const held = this.entries.get(server);
    if (held && held.signature === signatureOf(endpoints)) {
      await held.opening;
      return;
    }
    if (held) await this.shut(server);
    if (!(await this.lease(server))) return;
    await this.start(server, endpoints);
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
    // A server keeps its listener while it is reachable, and while it starts (the start opened it).
    for (const [name, entry] of [...this.entries]) {
      const state = states.get(name);
      const kept = state !== undefined && (REACHABLE.has(state) || state === 'STARTING');
      if (!kept || (REACHABLE.has(state) && entry.signature !== signatureOf(this.engine.endpoints(name)))) await this.shut(name);
    }
    const wanted = [...states].filter(([name, state]) => REACHABLE.has(state) && !this.entries.has(name)).map(([name]) => name);
    if (wanted.length === 0) return;
    const elsewhere = await this.heldElsewhere();
    const queue = wanted.filter((name) => !elsewhere.has(name));
    // A few at a time: a lease is a round trip to the store, a port a round trip to the system.
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined && !this.closed; name = queue.shift()) {
        if (this.entries.has(name) || !(await this.lease(name))) continue;
        try {
          await this.start(name, this.engine.endpoints(name));
        } catch (err) {
          // A running server that cannot listen (after a restart, a take-over) has failed.
          this.opts.log.warn({ server: name, err }, `server ${name} cannot listen: ${(err as Error).message}`);
          if (REACHABLE.has(this.engine.serverState(name))) this.engine.setServerState(name, 'FAILED');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, queue.length) }, worker));
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

  private async start(server: string, endpoints: ServerEndpoints): Promise<void> {
    const entry: Entry = { signature: signatureOf(endpoints), opening: this.opener(endpoints) };
    this.entries.set(server, entry);
    try {
      await entry.opening;
      const urls = endpoints.endpoints.map((e) => `${e.protocol}://${endpoints.host}:${e.port}`);
      this.opts.log.info({ server, urls }, `server ${server} listens on ${urls.join(', ') || 'no port (every port is disabled)'}`);
    } catch (err) {
      if (this.entries.get(server) === entry) this.entries.delete(server);
      await this.release(server);
      throw err;
    }
  }

  private async shut(server: string): Promise<void> {
    const entry = this.entries.get(server);
    if (!entry) return;
    this.entries.delete(server);
    const handle = await entry.opening.catch(() => undefined);
    if (!handle) return;
    await handle.close().catch((err: unknown) => this.opts.log.warn({ server, err }, `server ${server}: its listener did not close cleanly`));
    this.opts.log.info({ server }, `server ${server} no longer listens`);
    await this.release(server);
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
