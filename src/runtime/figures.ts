// The workload model of the running servers: every figure of a bean is computed when it is read,
// from the bean's names (the seed), the time its server has been running on the injectable clock,
// and the real requests the server's own listener served. Nothing runs between reads: no timer per
// bean or server, so a domain of many servers costs nothing until it is looked at.
import os from 'node:os';
import type { WorkloadFigures } from '../behaviour/workload-values.js';
import {
  NOTHING_SERVED,
  type Served,
  channel,
  dataSource,
  destination,
  ejbPool,
  ejbTransactions,
  jvm,
  muxerQueue,
  persistentStore,
  servlet,
  sessions,
  threadPool,
  threadStackDump,
  transactions,
  workManager,
} from './workload.js';
import { okHealth } from './health.js';

/** What others feed the model with. */
export interface WorkloadInputs {
  /** Requests the server's own listener answered (live listeners). */
  served?: (server: string) => Served;
  /**
   * The figures of a data source's real connection pool on a server, when it has one (live data
   * sources): they win over the model's.
   */
  dataSourcePool?: (server: string, partition: string, dataSource: string) => Record<string, unknown> | undefined;
}

/** What the model knows of a running server's configuration, set when its runtime tree is built. */
export interface ServerFacts {
  /** Maximum heap (MiB), from `-Xmx` in its start arguments, else the default. */
  heapMaxMiB: number;
  /** The channel real requests arrive on (its listener's protocol on its first address). */
  servedChannel: string;
  /** Pool sizes of its data sources, by `partition/dataSource`. */
  pools: Map<string, { initial: number; max: number }>;
}

/** The JVM a managed server reports (the processors and OS are this host's). */
const JAVA = { javaVersion: '1.8.0_402', javaVendor: 'OpenJDK', javaVMVendor: 'OpenJDK 64-Bit Server VM 25.402-b06' };

const OS = { name: os.type(), version: os.release() };

export const DEFAULT_HEAP_MIB = 512;

/** The execute queue every running server shows: its socket muxer's (the pool has none of its own). */
export const MUXER_QUEUE = 'appserver.socket.Muxer';

/** `-Xmx` of a server's start arguments, in MiB (undefined when absent or unreadable). */
export function heapFromArguments(args: unknown): number | undefined {
  if (typeof args !== 'string') return undefined;
  let found: number | undefined;
  for (const m of args.matchAll(/(?:^|\s)-Xmx(\d{1,9})([kKmMgG]?)(?=\s|$)/g)) {
    const n = Number(m[1]);
    const unit = m[2]!.toLowerCase();
    const mib = unit === 'g' ? n * 1024 : unit === 'm' ? n : unit === 'k' ? n / 1024 : n / (1024 * 1024);
    if (mib >= 1 && mib <= 16 * 1024 * 1024) found = Math.round(mib);
  }
  return found;
}

/**
 * When insertion was paused on JMS servers and destinations, so that a destination receives
 * nothing while paused (its server's pauses and its own count, overlapping ones once).
 */
export class PauseHistory {
  /** key -> [from, to] intervals (to: Infinity while paused), oldest first, at most 64. */
  private readonly spans = new Map<string, [number, number][]>();

  note(key: string, paused: boolean, at: number): void {
    const list = this.spans.get(key) ?? [];
    const open = list.length > 0 && list[list.length - 1]![1] === Infinity;
    if (paused && !open) list.push([at, Infinity]);
    else if (!paused && open) list[list.length - 1]![1] = at;
    if (list.length > 64) list.splice(0, list.length - 64);
    if (list.length > 0) this.spans.set(key, list);
  }

  known(key: string): boolean {
    return this.spans.has(key);
  }

  /** Milliseconds within [from, to] covered by the pauses of any of `keys`. */
  pausedMs(keys: readonly string[], from: number, to: number): number {
    const all = keys.flatMap((k) => this.spans.get(k) ?? []).map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const).filter(([a, b]) => b > a);
    all.sort((x, y) => x[0] - y[0]);
    let total = 0;
    let end = -Infinity;
    for (const [a, b] of all) {
      if (b <= end) continue;
      total += b - Math.max(a, end);
      end = b;
    }
    return total;
  }

  forget(prefix: string): void {
    for (const k of [...this.spans.keys()]) if (k.startsWith(prefix)) this.spans.delete(k);
  }
}

export class WorkloadModel implements WorkloadFigures {
  inputs: WorkloadInputs = {};
  readonly pauses = new PauseHistory();
  private readonly facts = new Map<string, ServerFacts>();

  constructor(
    private readonly now: () => number,
    /** When the server reached a running state (undefined: it does not run). */
    private readonly since: (server: string) => number | undefined,
    /** Subsystems of the server that are not healthy now (their health states). */
    private readonly unhealthy: (server: string) => Record<string, unknown>[] = () => [],
  ) {}

  setFacts(server: string, facts: ServerFacts): void {
    this.facts.set(server, facts);
  }

  dropServer(server: string): void {
    this.facts.delete(server);
  }

  /** Milliseconds the server has been running, or undefined when it does not run. */
  elapsed(server: string): number | undefined {
    const since = this.since(server);
    return since === undefined ? undefined : Math.max(0, this.now() - since);
  }

  private served(server: string): Served {
    return this.inputs.served?.(server) ?? NOTHING_SERVED;
  }

  server(server: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const pool = threadPool(server, t, this.served(server));
    const worst = [pool.healthState === 'ok' ? undefined : this.poolHealth(server, pool.hoggingThreadCount), ...this.unhealthy(server)].filter((h) => h !== undefined);
    const facts = this.facts.get(server);
    return {
      openSocketsCurrentCount: channel(server, facts?.servedChannel ?? 'Default[http]', t, this.served(server)).connectionsCount,
      healthState: okHealth('ServerRuntime'),
      overallHealthState: worst[0] ?? okHealth(null),
    };
  }

  private poolHealth(server: string, hogging: number): Record<string, unknown> {
    return {
      state: 'warn',
      subsystemName: 'threadpool',
      partitionName: null,
      symptoms: [{ type: 'hogging-threads', severity: 'medium', instanceId: `ThreadPoolRuntime ${server}`, info: `${hogging} threads are hogging the self-tuning thread pool` }],
    };
  }

  jvm(server: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const pool = threadPool(server, t, this.served(server));
    const figures = {
      ...jvm(server, t, this.facts.get(server)?.heapMaxMiB ?? DEFAULT_HEAP_MIB),
      ...JAVA,
      OSName: OS.name,
      OSVersion: OS.version,
      processCpuLoad: Math.round(1000 * (0.02 + 0.2 * (1 - pool.executeThreadIdleCount / pool.executeThreadTotalCount))) / 1000,
    };
    // The dump is long: written only when a reader asks for it.
    Object.defineProperty(figures, 'threadStackDump', { enumerable: true, get: () => threadStackDump(server, pool) });
    return figures;
  }

  threadPool(server: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const pool = threadPool(server, t, this.served(server));
    return { ...pool, healthState: pool.healthState === 'ok' ? okHealth('threadpool') : this.poolHealth(server, pool.hoggingThreadCount), suspended: false };
  }

  executeQueue(server: string, name: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined || name !== MUXER_QUEUE) return undefined;
    return { ...muxerQueue(server, t, this.served(server)) };
  }

  channel(server: string, name: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    return { ...channel(server, name, t, name === this.facts.get(server)?.servedChannel ? this.served(server) : NOTHING_SERVED) };
  }

  webModule(server: string, app: string, component: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    return t === undefined ? undefined : { ...sessions(`${server}/${app}/${component}`, t) };
  }

  servlet(server: string, app: string, component: string, name: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    return t === undefined ? undefined : { ...servlet(`${server}/${app}/${component}`, name, t) };
  }

  ejb(server: string, app: string, component: string, name: string, part: 'transactions' | 'pool'): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const seed = `${server}/${app}/${component}/${name}`;
    return part === 'pool' ? { ...ejbPool(seed, t) } : { ...ejbTransactions(seed, t) };
  }

  workManager(server: string, app: string | undefined, name: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const figures = workManager(`${server}/${app ?? ''}/${name}`, t);
    // The server's default work manager runs the requests its listener served.
    if (app === undefined && name === 'default') figures.completedRequests += this.served(server).requests;
    return { ...figures, healthState: okHealth('workmanager') };
  }

  persistentStore(server: string, name: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    return t === undefined ? undefined : { ...persistentStore(server, name, t), healthState: okHealth(`PersistentStore.${name}`) };
  }

  transactions(server: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    return t === undefined ? undefined : { ...transactions(server, t), healthState: okHealth('JTA') };
  }

  /** A data source's connection figures: the real pool's where it has one, the model's for the rest. */
  dataSource(server: string, partition: string, name: string): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const sizes = this.facts.get(server)?.pools.get(`${partition}/${name}`) ?? { initial: 1, max: 15 };
    const modelled = dataSource(`${server}/${partition}`, name, t, sizes.initial, sizes.max);
    const real = this.inputs.dataSourcePool?.(server, partition, name);
    return {
      ...modelled,
      highestNumAvailable: modelled.currCapacityHighCount,
      highestNumUnavailable: modelled.activeConnectionsHighCount,
      waitingForConnectionTotal: 0,
      ...real,
    };
  }

  /**
   * A JMS destination's message figures; `keys` are the pause keys of insertion on it and on its
   * JMS server, `paused` whether insertion is paused now.
   */
  destination(server: string, jmsServer: string, name: string, keys: readonly string[], paused: boolean): Record<string, unknown> | undefined {
    const t = this.elapsed(server);
    if (t === undefined) return undefined;
    const now = this.now();
    const from = now - t;
    // Paused from the start (as configured) and never resumed: nothing was received.
    const recorded = keys.some((k) => this.pauses.known(k));
    const active = !recorded && paused ? 0 : t - this.pauses.pausedMs(keys, from, now);
    return { ...destination(`${server}/${jmsServer}`, name, Math.max(0, active), t) };
  }
}
