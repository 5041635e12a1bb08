import { type BeanRecord, type TreeSource } from '../tree/records.js';
import { upKey } from '../core/identity.js';

// Connection pools of resource adapters: connections are reserved by applications and released
// again; `reset` recreates the pool only while no connection is in use. Each connection has an id,
// so the pool's `connections` can be listed, tested and deleted.

interface Pool {
  initialCapacity: number;
  maxCapacity: number;
  /** Connections created and not reserved. */
  free: number[];
  /** Reserved connections: id -> when (epoch ms). */
  inUse: Map<number, number>;
  created: number;
  destroyed: number;
  matched: number;
  rejected: number;
  activeHigh: number;
  freeHigh: number;
}

export interface ConnectionInfo {
  id: number;
  inUse: boolean;
  reservedAt: number | null;
}

export class ConnectorPools {
  private readonly pools = new Map<string, Pool>();
  /** Suspended activity of each resource adapter (INBOUND 1, OUTBOUND 2, WORK 4). */
  private readonly suspended = new Map<string, number>();
  private nextId = 1;

  private key(server: string, name: string): string {
    return `${server}\0${name}`;
  }

  private fresh(count: number): number[] {
    return Array.from({ length: count }, () => this.nextId++);
  }

  /** Suspends (or resumes) kinds of activity of a resource adapter on a server. */
  setSuspended(server: string, adapter: string, mask: number, suspend: boolean): void {
    const key = this.key(server, adapter);
    const now = this.suspended.get(key) ?? 0;
    this.suspended.set(key, suspend ? now | mask : now & ~mask);
  }

  adapterLive(server: string, adapter: string): Record<string, unknown> {
    const mask = this.suspended.get(this.key(server, adapter)) ?? 0;
    return { suspendedState: mask, state: mask === 0 ? 'Activated' : 'Suspended' };
  }

  /** Creates the pool of a resource adapter on a server, with its initial connections. */
  ensure(server: string, name: string, initialCapacity = 1, maxCapacity = 10): void {
    const key = this.key(server, name);
    if (this.pools.has(key)) return;
    this.pools.set(key, {
      initialCapacity,
      maxCapacity,
      free: this.fresh(initialCapacity),
      inUse: new Map(),
      created: initialCapacity,
      destroyed: 0,
      matched: 0,
      rejected: 0,
      activeHigh: 0,
      freeHigh: initialCapacity,
    });
  }

  has(server: string, name: string): boolean {
    return this.pools.has(this.key(server, name));
  }

  /** The server stopped: its pools are gone. */
  dropServer(server: string): void {
    for (const key of [...this.pools.keys()]) if (key.startsWith(`${server}\0`)) this.pools.delete(key);
    for (const key of [...this.suspended.keys()]) if (key.startsWith(`${server}\0`)) this.suspended.delete(key);
    for (const key of [...this.failed]) if (key.startsWith(`${server}\0`)) this.failed.delete(key);
  }

  private pool(server: string, name: string): Pool {
    const p = this.pools.get(this.key(server, name));
    if (!p) throw new Error(`no connection pool ${name} on ${server}`);
    return p;
  }

  /** Reserves a connection; undefined when the pool is at its maximum capacity. */
  reserve(server: string, name: string, now = Date.now()): number | undefined {
    const p = this.pool(server, name);
    if (p.inUse.size >= p.maxCapacity) {
      p.rejected++;
      return undefined;
    }
    let id = p.free.pop();
    if (id !== undefined) p.matched++;
    else {
      id = this.nextId++;
      p.created++;
    }
    p.inUse.set(id, now);
    p.activeHigh = Math.max(p.activeHigh, p.inUse.size);
    return id;
  }

  release(server: string, name: string, id: number): void {
    const p = this.pools.get(this.key(server, name));
    if (!p || !p.inUse.delete(id)) return;
    p.free.push(id);
    p.freeHigh = Math.max(p.freeHigh, p.free.length);
  }

  /** Discards unused connections and recreates the pool; refuses (false) while any is in use. */
  reset(server: string, name: string): boolean {
    const p = this.pool(server, name);
    if (p.inUse.size > 0) return false;
    p.destroyed += p.free.length;
    p.free = this.fresh(p.initialCapacity);
    p.created += p.initialCapacity;
    return true;
  }

  /** Discards every connection, in use or not, and recreates the pool. */
  forceReset(server: string, name: string): void {
    const p = this.pool(server, name);
    p.destroyed += p.free.length + p.inUse.size;
    p.inUse.clear();
    p.free = this.fresh(p.initialCapacity);
    p.created += p.initialCapacity;
  }

  /** Connections whose last test failed, keyed `server, pool, id`. */
  private readonly failed = new Set<string>();

  private outboundSuspended(server: string, adapter: string): boolean {
    return ((this.suspended.get(this.key(server, adapter)) ?? 0) & 2) !== 0;
  }

  /** Tests the pool: it fails while the resource adapter's outbound activity is suspended. */
  test(server: string, name: string, adapter: string): boolean {
    this.pool(server, name);
    return !this.outboundSuspended(server, adapter);
  }

  /**
   * Tests one connection (false when it is gone, or while its adapter's outbound activity is
   * suspended); the outcome is what `hasError` reports until the next test.
   */
  testConnection(server: string, name: string, adapter: string, id: number): boolean {
    const p = this.pool(server, name);
    const ok = (p.free.includes(id) || p.inUse.has(id)) && !this.outboundSuspended(server, adapter);
    const key = `${this.key(server, name)}\0${id}`;
    if (ok) this.failed.delete(key);
    else this.failed.add(key);
    return ok;
  }

  /** True when the connection's last test failed. */
  hasError(server: string, name: string, id: number): boolean {
    return this.failed.has(`${this.key(server, name)}\0${id}`);
  }

  /** The pool's connections, free ones first. */
  connections(server: string, name: string): ConnectionInfo[] {
    const p = this.pools.get(this.key(server, name));
    if (!p) return [];
    return [...p.free.map((id) => ({ id, inUse: false, reservedAt: null })), ...[...p.inUse].map(([id, at]) => ({ id, inUse: true, reservedAt: at }))];
  }

  /** Destroys a connection nobody uses; false when it is in use (or gone). */
  deleteConnection(server: string, name: string, id: number): boolean {
    const p = this.pool(server, name);
    const i = p.free.indexOf(id);
    if (i < 0) return false;
    p.free.splice(i, 1);
    p.destroyed++;
    return true;
  }

  live(server: string, name: string, adapter: string): Record<string, unknown> | undefined {
    const p = this.pools.get(this.key(server, name));
    if (!p) return undefined;
    return {
      state: this.outboundSuspended(server, adapter) ? 'Suspended' : 'Running',
      initialCapacity: p.initialCapacity,
      maxCapacity: p.maxCapacity,
      capacityIncrement: 1,
      currentCapacity: p.free.length + p.inUse.size,
      activeConnectionsCurrentCount: p.inUse.size,
      activeConnectionsHighCount: p.activeHigh,
      freeConnectionsCurrentCount: p.free.length,
      freeConnectionsHighCount: p.freeHigh,
      connectionsCreatedTotalCount: p.created,
      connectionsDestroyedTotalCount: p.destroyed,
      connectionsMatchedTotalCount: p.matched,
      connectionsRejectedTotalCount: p.rejected,
      poolSizeHighWaterMark: Math.max(p.activeHigh + p.free.length, p.initialCapacity),
      numWaiters: 0,
      numWaitersCurrentCount: 0,
    };
  }
}

const POOL_TYPE = 'appserver.management.runtime.ConnectorConnectionPoolRuntimeMBean';
const CONNECTION_TYPE = 'appserver.management.runtime.ConnectorConnectionRuntimeMBean';

/** A server's runtime tree with the connections of its pools listed under each pool. */
export class WithConnections implements TreeSource {
  constructor(
    private readonly inner: TreeSource,
    private readonly pools: ConnectorPools,
    private readonly server: string,
    /** Told when a pool's connections are looked at (they move without a change being told). */
    private readonly looked?: () => void,
  ) {}

  /** The pool name of the pool bean owning a `connections` collection key. */
  private poolOf(collectionKey: string): string | undefined {
    if (!collectionKey.endsWith('/connections')) return undefined;
    const pool = this.inner.bean(upKey(collectionKey));
    if (pool?.type !== POOL_TYPE) return undefined;
    this.looked?.();
    return String(pool.values.poolName);
  }

  itemNames(collectionKey: string): readonly string[] {
    const pool = this.poolOf(collectionKey);
    if (pool === undefined) return this.inner.itemNames(collectionKey);
    return this.pools.connections(this.server, pool).map((c) => String(c.id));
  }

  bean(key: string): BeanRecord | undefined {
    const found = this.inner.bean(key);
    if (found) return found;
    const collection = upKey(key);
    const pool = this.poolOf(collection);
    if (pool === undefined) return undefined;
    const id = Number(key.slice(collection.length + 1));
    const c = this.pools.connections(this.server, pool).find((x) => x.id === id);
    if (!c) return undefined;
    return {
      type: CONNECTION_TYPE,
      values: {
        name: String(c.id),
        currentlyInUse: c.inUse,
        deletable: !c.inUse,
        reserveTime: c.reservedAt ?? 0,
        reserveDurationTime: c.reservedAt ? Date.now() - c.reservedAt : 0,
        activeHandlesCurrentCount: c.inUse ? 1 : 0,
        shared: false,
        inTransaction: false,
        EISProductName: 'Demo EIS',
        managedConnectionFactoryClassName: 'appserver.demo.DemoManagedConnectionFactory',
      },
    };
  }
}
