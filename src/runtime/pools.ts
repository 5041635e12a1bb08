// Connection pools of resource adapters: connections are reserved by applications and released
// again; `reset` recreates the pool only while no connection is in use.

interface Pool {
  initialCapacity: number;
  maxCapacity: number;
  /** Connections created and not reserved. */
  free: number;
  /** Reserved connections, by id. */
  inUse: Set<number>;
  created: number;
  destroyed: number;
  matched: number;
  rejected: number;
  activeHigh: number;
  freeHigh: number;
}

export class ConnectorPools {
  private readonly pools = new Map<string, Pool>();
  /** Suspended activity of each resource adapter (INBOUND 1, OUTBOUND 2, WORK 4). */
  private readonly suspended = new Map<string, number>();
  private nextId = 1;

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

  private key(server: string, name: string): string {
    return `${server}\0${name}`;
  }

  /** Creates the pool of a resource adapter on a server, with its initial connections. */
  ensure(server: string, name: string, initialCapacity = 1, maxCapacity = 10): void {
    const key = this.key(server, name);
    if (this.pools.has(key)) return;
    this.pools.set(key, {
      initialCapacity,
      maxCapacity,
      free: initialCapacity,
      inUse: new Set(),
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
  }

  private pool(server: string, name: string): Pool {
    const p = this.pools.get(this.key(server, name));
    if (!p) throw new Error(`no connection pool ${name} on ${server}`);
    return p;
  }

  /** Reserves a connection; undefined when the pool is at its maximum capacity. */
  reserve(server: string, name: string): number | undefined {
    const p = this.pool(server, name);
    if (p.inUse.size >= p.maxCapacity) {
      p.rejected++;
      return undefined;
    }
    if (p.free > 0) {
      p.free--;
      p.matched++;
    } else {
      p.created++;
    }
    const id = this.nextId++;
    p.inUse.add(id);
    p.activeHigh = Math.max(p.activeHigh, p.inUse.size);
    return id;
  }

  release(server: string, name: string, id: number): void {
    const p = this.pools.get(this.key(server, name));
    if (!p || !p.inUse.delete(id)) return;
    p.free++;
    p.freeHigh = Math.max(p.freeHigh, p.free);
  }

  /** Discards unused connections and recreates the pool; refuses (false) while any is in use. */
  reset(server: string, name: string): boolean {
    const p = this.pool(server, name);
    if (p.inUse.size > 0) return false;
    p.destroyed += p.free;
    p.free = p.initialCapacity;
    p.created += p.initialCapacity;
    return true;
  }

  /** Discards every connection, in use or not, and recreates the pool. */
  forceReset(server: string, name: string): void {
    const p = this.pool(server, name);
    p.destroyed += p.free + p.inUse.size;
    p.inUse.clear();
    p.free = p.initialCapacity;
    p.created += p.initialCapacity;
  }

  /** Every free connection answers its test here. */
  test(server: string, name: string): boolean {
    this.pool(server, name);
    return true;
  }

  live(server: string, name: string, adapter: string): Record<string, unknown> | undefined {
    const p = this.pools.get(this.key(server, name));
    if (!p) return undefined;
    const outboundSuspended = ((this.suspended.get(this.key(server, adapter)) ?? 0) & 2) !== 0;
    return {
      state: outboundSuspended ? 'Suspended' : 'Running',
      initialCapacity: p.initialCapacity,
      maxCapacity: p.maxCapacity,
      capacityIncrement: 1,
      currentCapacity: p.free + p.inUse.size,
      activeConnectionsCurrentCount: p.inUse.size,
      activeConnectionsHighCount: p.activeHigh,
      freeConnectionsCurrentCount: p.free,
      freeConnectionsHighCount: p.freeHigh,
      connectionsCreatedTotalCount: p.created,
      connectionsDestroyedTotalCount: p.destroyed,
      connectionsMatchedTotalCount: p.matched,
      connectionsRejectedTotalCount: p.rejected,
      poolSizeHighWaterMark: Math.max(p.activeHigh + p.free, p.initialCapacity),
      numWaiters: 0,
      numWaitersCurrentCount: 0,
    };
  }
}
