// The workload model: what a running server would report if real work ran on it. Every figure is a
// pure function of a seed (the server, and the bean it belongs to), the time the server has been
// running, and the real requests it served, so figures move with the injectable clock and tests
// stay exact. Counters only grow: each is the integral of a rate that never drops below half its
// base. Gauges stay within their bounds: each is a smooth wave between them. A total that counts
// what a gauge holds (sessions opened, connections accepted) starts from the gauge's high-water
// mark, so it is never below the gauge; docs/compatibility.md lists the invariants.

/** A number in [0, 1) derived from the texts (FNV-1a, then a mixing step). */
export function unit(...parts: string[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      h ^= part.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x2f;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 0x1_0000_0000;
}

const TAU = 2 * Math.PI;

/** Gauges move in steps of this many milliseconds, as a server samples them. */
export const GAUGE_STEP_MS = 5000;

/** A text's hash, remembered: a figure's seed and names are hashed once, not at every read (bounded). */
function hashOf(text: string, memo: Map<string, number>): number {
  let h = memo.get(text);
  if (h === undefined) {
    h = Math.floor(unit(text) * 0x1_0000_0000);
    if (memo.size >= MAX_HASHES) memo.clear();
    memo.set(text, h);
  }
  return h;
}

const seeds = new Map<string, number>();
const names = new Map<string, number>();
const MAX_HASHES = 200_000;

/** A number in [0, 1) from two hashes and a salt (a murmur-style finaliser). */
function mixed(a: number, b: number, salt: number): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

/**
 * Period (ms) and phase of the waves of one figure: between 2 and 12 minutes, a whole number of
 * gauge steps (so a gauge repeats exactly), any phase.
 */
function wave(seed: string, name: string): void {
  const a = hashOf(seed, seeds);
  const b = hashOf(name, names);
  period = (24 + Math.floor(mixed(a, b, 1) * 121)) * GAUGE_STEP_MS;
  phase = mixed(a, b, 2) * TAU;
}

/** The last wave made (set by `wave`, read at once: no object per figure read). */
let period = 0;
let phase = 0;

/** A number in [0, 1) for a figure's constant (its rate, its cost), from its seed and name. */
export function pick(seed: string, name: string): number {
  return mixed(hashOf(seed, seeds), hashOf(name, names), 3);
}

/**
 * How many events a source of `perSecond` on average has produced after `elapsedMs`: the integral
 * of `perSecond × (1 + ½ sin(2πt/P + φ))`, so it never goes down and averages `perSecond`.
 */
export function counter(seed: string, name: string, perSecond: number, elapsedMs: number): number {
  if (elapsedMs <= 0 || perSecond <= 0) return 0;
  wave(seed, name);
  const t = elapsedMs;
  const integral = t + (0.5 * period * (Math.cos(phase) - Math.cos((TAU * t) / period + phase))) / TAU;
  return Math.floor((perSecond * integral) / 1000);
}

/** The wave of a gauge in [0, 1] at a step of its grid. */
function level(seed: string, name: string, step: number): number {
  wave(seed, name);
  // The gauge repeats each period: the step within it gives the same value, without rounding drift.
  const t = (step % (period / GAUGE_STEP_MS)) * GAUGE_STEP_MS;
  const g = 0.5 + 0.3 * Math.sin((TAU * t) / period + phase) + 0.2 * Math.sin((TAU * t * 4) / period + phase * 1.3);
  return Math.min(1, Math.max(0, g));
}

/** A value between `min` and `max` at `elapsedMs`: two waves of different periods added, sampled every step. */
export function gauge(seed: string, name: string, min: number, max: number, elapsedMs: number): number {
  return min + (max - min) * level(seed, name, Math.floor(Math.max(0, elapsedMs) / GAUGE_STEP_MS));
}

/**
 * The highest value `gauge` has had since the start. A gauge repeats after one period, so at most
 * that many steps are looked at; the result never goes down and is never below the gauge.
 */
export function gaugeHigh(seed: string, name: string, min: number, max: number, elapsedMs: number): number {
  wave(seed, name);
  const last = Math.floor(Math.max(0, elapsedMs) / GAUGE_STEP_MS);
  const full = period / GAUGE_STEP_MS - 1;
  let high: number;
  if (last >= full) {
    // After one period the high is the wave's highest: computed once per figure, then remembered.
    const key = `${hashOf(seed, seeds)},${hashOf(name, names)}`;
    high = highs.get(key) ?? highest(seed, name, full);
    if (!highs.has(key)) {
      if (highs.size >= MAX_HIGHS) highs.clear();
      highs.set(key, high);
    }
  } else {
    high = highest(seed, name, last);
  }
  return min + (max - min) * high;
}

/** Highs of figures whose gauge has run a whole period (bounded: cleared when full). */
const highs = new Map<string, number>();
const MAX_HIGHS = 100_000;

function highest(seed: string, name: string, steps: number): number {
  let high = 0;
  for (let i = 0; i <= steps; i++) high = Math.max(high, level(seed, name, i));
  return high;
}

/** Real work counted into the model: requests this server's own listener answered. */
export interface Served {
  requests: number;
  bytesReceived: number;
  bytesSent: number;
}

export const NOTHING_SERVED: Served = { requests: 0, bytesReceived: 0, bytesSent: 0 };

const MiB = 1024 * 1024;

export interface JvmFigures {
  heapSizeMax: number;
  heapSizeCurrent: number;
  heapFreeCurrent: number;
  heapFreePercent: number;
  uptime: number;
}

/** The JVM of a server: a heap that grows towards its maximum and is collected in waves. */
export function jvm(seed: string, elapsedMs: number, heapMaxMiB = 512): JvmFigures {
  const heapSizeMax = heapMaxMiB * MiB;
  // The heap is sized up over the first minutes, then stays.
  const grown = Math.min(1, elapsedMs / 300_000);
  const heapSizeCurrent = Math.round(heapSizeMax * (0.25 + 0.5 * grown));
  const used = Math.round(gauge(seed, 'heapUsed', 0.35, 0.85, elapsedMs) * heapSizeCurrent);
  const heapFreeCurrent = heapSizeCurrent - used;
  return {
    heapSizeMax,
    heapSizeCurrent,
    heapFreeCurrent,
    heapFreePercent: Math.round((100 * (heapSizeMax - used)) / heapSizeMax),
    uptime: Math.max(0, Math.round(elapsedMs)),
  };
}

export interface ThreadPoolFigures {
  executeThreadTotalCount: number;
  executeThreadIdleCount: number;
  hoggingThreadCount: number;
  standbyThreadCount: number;
  stuckThreadCount: number;
  pendingUserRequestCount: number;
  queueLength: number;
  completedRequestCount: number;
  throughput: number;
  /** `warn` while threads hog (the health token of this release). */
  healthState: 'ok' | 'warn';
}

/**
 * Threads that hold a request for too long: none most of the time, a few during rare bursts, and
 * none in a server's first minutes (a thread hogs by holding one request far longer than the
 * others do, which a server that just started has not had the time for): a new server starts healthy.
 */
function hogging(seed: string, elapsedMs: number): number {
  if (elapsedMs < NO_HOGGING_BEFORE_MS) return 0;
  const burst = gauge(seed, 'hogging', 0, 1, elapsedMs);
  return burst > 0.9 ? 1 + Math.floor((burst - 0.9) * 40) : 0;
}

/** How long a server runs before any of its threads can hog. */
const NO_HOGGING_BEFORE_MS = 5 * 60_000;

/** Threads a pool has busy beyond which it warns. */
export const HOGGING_WARNING = 3;

/** The self-tuning thread pool: requests completed, threads busy, idle, hogging. */
export function threadPool(seed: string, elapsedMs: number, served: Served = NOTHING_SERVED, perSecond = 20): ThreadPoolFigures {
  const total = 12 + Math.round(gauge(seed, 'threads', 0, 12, elapsedMs));
  const hog = hogging(seed, elapsedMs);
  const busy = Math.min(total, hog + Math.round(gauge(seed, 'busy', 0, 4, elapsedMs)));
  const completed = counter(seed, 'completed', perSecond, elapsedMs) + served.requests;
  const pending = Math.round(gauge(seed, 'pending', 0, 3, elapsedMs));
  return {
    executeThreadTotalCount: total,
    executeThreadIdleCount: total - busy,
    hoggingThreadCount: hog,
    standbyThreadCount: Math.round(gauge(seed, 'standby', 0, 6, elapsedMs)),
    stuckThreadCount: 0,
    pendingUserRequestCount: pending,
    queueLength: pending,
    completedRequestCount: completed,
    throughput: elapsedMs > 0 ? Math.round((completed * 1000 * 10) / elapsedMs) / 10 : 0,
    healthState: hog >= HOGGING_WARNING ? 'warn' : 'ok',
  };
}

export interface ExecuteQueueFigures {
  executeThreadTotalCount: number;
  executeThreadCurrentIdleCount: number;
  pendingRequestCurrentCount: number;
  pendingRequestOldestTime: number;
  servicedRequestTotalCount: number;
}

/** Socket reader threads of a server's muxer queue. */
export const MUXER_THREADS = 4;

/**
 * The socket muxer's queue, the one execute queue a server running the self-tuning pool shows: a
 * fixed set of reader threads that read every request off the sockets before the pool runs it.
 */
export function muxerQueue(seed: string, elapsedMs: number, served: Served = NOTHING_SERVED): ExecuteQueueFigures {
  const s = `${seed}/muxer`;
  const busy = Math.round(gauge(s, 'busy', 0, 2, elapsedMs));
  return {
    executeThreadTotalCount: MUXER_THREADS,
    executeThreadCurrentIdleCount: MUXER_THREADS - busy,
    // Readers hand each request on at once: nothing waits in this queue.
    pendingRequestCurrentCount: 0,
    pendingRequestOldestTime: 0,
    servicedRequestTotalCount: counter(s, 'reads', 20, elapsedMs) + served.requests,
  };
}

export interface ChannelFigures {
  acceptCount: number;
  connectionsCount: number;
  messagesReceivedCount: number;
  messagesSentCount: number;
  bytesReceivedCount: number;
  bytesSentCount: number;
}

/** A network channel (one per protocol and network access point). */
export function channel(seed: string, name: string, elapsedMs: number, served: Served = NOTHING_SERVED): ChannelFigures {
  const s = `${seed}/${name}`;
  const messages = counter(s, 'messages', 15, elapsedMs) + served.requests;
  return {
    // Every connection open now was accepted: the accepts start from the connections' high.
    acceptCount: Math.round(gaugeHigh(s, 'connections', 1, 20, elapsedMs)) + counter(s, 'accepts', 0.5, elapsedMs) + (served.requests > 0 ? 1 : 0),
    connectionsCount: Math.round(gauge(s, 'connections', 1, 20, elapsedMs)),
    messagesReceivedCount: messages,
    messagesSentCount: messages,
    bytesReceivedCount: counter(s, 'bytesIn', 15 * 600, elapsedMs) + served.bytesReceived,
    bytesSentCount: counter(s, 'bytesOut', 15 * 2400, elapsedMs) + served.bytesSent,
  };
}

export interface ServletFigures {
  invocationTotalCount: number;
  executionTimeTotal: number;
  executionTimeAverage: number;
  executionTimeHigh: number;
  executionTimeLow: number;
  reloadTotalCount: number;
}

/** One servlet of a web module: invocations and how long they took (ms). */
export function servlet(seed: string, name: string, elapsedMs: number): ServletFigures {
  const s = `${seed}/${name}`;
  const invocations = counter(s, 'invocations', 0.5 + pick(s, 'rate') * 4, elapsedMs);
  const average = 2 + Math.round(pick(s, 'cost') * 40);
  return {
    invocationTotalCount: invocations,
    executionTimeTotal: invocations * average,
    executionTimeAverage: invocations > 0 ? average : 0,
    executionTimeHigh: invocations > 0 ? average * 4 + Math.round(pick(s, 'high') * 200) : 0,
    executionTimeLow: invocations > 0 ? 1 : 0,
    reloadTotalCount: 0,
  };
}

export interface SessionFigures {
  openSessionsCurrentCount: number;
  openSessionsHighCount: number;
  sessionsOpenedTotalCount: number;
}

/** HTTP sessions of a web module. */
export function sessions(seed: string, elapsedMs: number): SessionFigures {
  return {
    openSessionsCurrentCount: Math.round(gauge(seed, 'sessions', 0, 40, elapsedMs)),
    openSessionsHighCount: Math.round(gaugeHigh(seed, 'sessions', 0, 40, elapsedMs)),
    // Every session open now was opened since the start, and at least the most open at once were.
    sessionsOpenedTotalCount: Math.round(gaugeHigh(seed, 'sessions', 0, 40, elapsedMs)) + counter(seed, 'sessionsOpened', 0.3, elapsedMs),
  };
}

export interface WorkManagerFigures {
  completedRequests: number;
  pendingRequests: number;
  completedDaemonRequests: number;
  pendingDaemonRequests: number;
  stuckThreadCount: number;
}

export function workManager(seed: string, elapsedMs: number): WorkManagerFigures {
  return {
    completedRequests: counter(seed, 'completed', 2, elapsedMs),
    pendingRequests: Math.round(gauge(seed, 'pending', 0, 2, elapsedMs)),
    completedDaemonRequests: counter(seed, 'daemon', 0.02, elapsedMs),
    pendingDaemonRequests: 0,
    stuckThreadCount: 0,
  };
}

export interface DestinationFigures {
  messagesReceivedCount: number;
  messagesCurrentCount: number;
  messagesHighCount: number;
  messagesPendingCount: number;
  bytesReceivedCount: number;
  bytesCurrentCount: number;
  bytesHighCount: number;
  bytesPendingCount: number;
  consumersCurrentCount: number;
  consumersHighCount: number;
  consumersTotalCount: number;
}

/**
 * A JMS destination. `activeMs` is the time messages could arrive (insertion not paused): the
 * received counter stands still while insertion is paused.
 */
export function destination(seed: string, name: string, activeMs: number, elapsedMs: number): DestinationFigures {
  const s = `${seed}/${name}`;
  const received = counter(s, 'received', 1 + pick(s, 'rate') * 5, activeMs);
  // Messages held now were received since the start (none while insertion was paused throughout).
  const current = Math.min(received, Math.round(gauge(s, 'backlog', 0, 50, elapsedMs)));
  const size = 512 + Math.round(pick(s, 'size') * 2048);
  const consumers = Math.round(gauge(s, 'consumers', 1, 4, elapsedMs));
  return {
    messagesReceivedCount: received,
    messagesCurrentCount: current,
    messagesHighCount: Math.round(gaugeHigh(s, 'backlog', 0, 50, elapsedMs)),
    messagesPendingCount: Math.min(current, Math.round(gauge(s, 'pending', 0, 5, elapsedMs))),
    bytesReceivedCount: received * size,
    bytesCurrentCount: current * size,
    bytesHighCount: Math.round(gaugeHigh(s, 'backlog', 0, 50, elapsedMs)) * size,
    bytesPendingCount: 0,
    consumersCurrentCount: consumers,
    consumersHighCount: Math.round(gaugeHigh(s, 'consumers', 1, 4, elapsedMs)),
    consumersTotalCount: Math.round(gaugeHigh(s, 'consumers', 1, 4, elapsedMs)) + counter(s, 'consumersTotal', 0.01, elapsedMs),
  };
}

export interface StoreFigures {
  objectCount: number;
  createCount: number;
  readCount: number;
  updateCount: number;
  deleteCount: number;
  physicalWriteCount: number;
}

/** Records a store keeps however much is deleted (the services' own bookkeeping). */
const STORE_FLOOR = 5;

/**
 * A persistent store: records written and read by the messaging and transaction services. It
 * opens with the records it held when the server stopped (`initialObjects`); a record is deleted
 * only after it was there, so the objects held are always the initial ones plus those created
 * minus those deleted, and deletes never exceed creates plus the initial count.
 */
export function persistentStore(seed: string, name: string, elapsedMs: number): StoreFigures {
  const s = `${seed}/${name}`;
  const initial = initialObjects(seed, name);
  const created = counter(s, 'create', 3, elapsedMs);
  // Deletes follow their own rate but never take the store below its floor: the smaller of two
  // counts that only grow, so it only grows too.
  const deleted = Math.max(0, Math.min(counter(s, 'delete', 3, elapsedMs), initial + created - STORE_FLOOR));
  const writes = created + deleted;
  return {
    objectCount: initial + created - deleted,
    createCount: created,
    readCount: counter(s, 'read', 1, elapsedMs),
    updateCount: counter(s, 'update', 0.5, elapsedMs),
    deleteCount: deleted,
    // Creates and deletes are batched into fewer physical writes.
    physicalWriteCount: Math.floor(writes * (0.4 + 0.3 * pick(s, 'batching'))),
  };
}

/** The records a store holds when its server starts (between 10 and 200). */
export function initialObjects(seed: string, name: string): number {
  return 10 + Math.round(pick(`${seed}/${name}`, 'initialObjects') * 190);
}

export interface DataSourceFigures {
  activeConnectionsCurrentCount: number;
  activeConnectionsHighCount: number;
  activeConnectionsAverageCount: number;
  currCapacity: number;
  currCapacityHighCount: number;
  numAvailable: number;
  numUnavailable: number;
  connectionsTotalCount: number;
  reserveRequestCount: number;
  failedReserveRequestCount: number;
  waitingForConnectionCurrentCount: number;
  leakedConnectionCount: number;
}

/** A JDBC data source's pool: connections in use within its capacity. */
export function dataSource(seed: string, name: string, elapsedMs: number, initialCapacity: number, maxCapacity: number): DataSourceFigures {
  const s = `${seed}/${name}`;
  const max = Math.max(1, maxCapacity);
  const initial = Math.min(max, Math.max(0, initialCapacity));
  const capacity = Math.max(initial, Math.round(gauge(s, 'capacity', initial, max, elapsedMs)));
  const active = Math.min(capacity, Math.round(gauge(s, 'active', 0, max, elapsedMs)));
  return {
    activeConnectionsCurrentCount: active,
    activeConnectionsHighCount: Math.min(max, Math.round(gaugeHigh(s, 'active', 0, max, elapsedMs))),
    activeConnectionsAverageCount: Math.round(max / 2),
    currCapacity: capacity,
    currCapacityHighCount: Math.max(capacity, Math.round(gaugeHigh(s, 'capacity', initial, max, elapsedMs))),
    numAvailable: capacity - active,
    numUnavailable: active,
    // Every connection in the pool now was opened: the total starts from the capacity's high.
    connectionsTotalCount: Math.max(initial, Math.round(gaugeHigh(s, 'capacity', initial, max, elapsedMs))) + counter(s, 'opened', 0.01, elapsedMs),
    reserveRequestCount: counter(s, 'reserve', 5, elapsedMs),
    failedReserveRequestCount: 0,
    waitingForConnectionCurrentCount: 0,
    leakedConnectionCount: 0,
  };
}

export interface TransactionFigures {
  transactionTotalCount: number;
  transactionCommittedTotalCount: number;
  transactionRolledBackTotalCount: number;
  transactionRolledBackAppTotalCount: number;
  transactionRolledBackTimeoutTotalCount: number;
  transactionAbandonedTotalCount: number;
  transactionHeuristicsTotalCount: number;
  activeTransactionsTotalCount: number;
  secondsActiveTotalCount: number;
}

/** The transaction service: most transactions commit, a few roll back. */
export function transactions(seed: string, elapsedMs: number): TransactionFigures {
  const committed = counter(seed, 'committed', 4, elapsedMs);
  const app = counter(seed, 'rolledBackApp', 0.05, elapsedMs);
  const timeout = counter(seed, 'rolledBackTimeout', 0.005, elapsedMs);
  return {
    transactionTotalCount: committed + app + timeout,
    transactionCommittedTotalCount: committed,
    transactionRolledBackTotalCount: app + timeout,
    transactionRolledBackAppTotalCount: app,
    transactionRolledBackTimeoutTotalCount: timeout,
    transactionAbandonedTotalCount: 0,
    transactionHeuristicsTotalCount: 0,
    activeTransactionsTotalCount: Math.round(gauge(seed, 'active', 0, 6, elapsedMs)),
    secondsActiveTotalCount: Math.floor((committed + app + timeout) * 0.02),
  };
}

/** A thread dump of the pool's threads and the server's own, as a server prints it. */
export function threadStackDump(server: string, pool: ThreadPoolFigures): string {
  const lines: string[] = [];
  const busy = pool.executeThreadTotalCount - pool.executeThreadIdleCount;
  const tid = (i: number) => `0x${(0x7f3a00001000 + i * 0x1000 + Math.floor(pick(server, 'tid') * 0x100000) * 0x10000).toString(16)}`;
  const thread = (name: string, i: number, daemon: boolean, state: string, frames: string[]) => {
    lines.push(`"${name}" #${i + 20}${daemon ? ' daemon' : ''} prio=5 os_prio=0 tid=${tid(i)} nid=0x${(1200 + i).toString(16)} ${state === 'RUNNABLE' ? 'runnable' : 'waiting on condition'}`);
    lines.push(`   java.lang.Thread.State: ${state}`);
    for (const f of frames) lines.push(`\tat ${f}`);
    lines.push('');
  };
  for (let i = 0; i < pool.executeThreadTotalCount; i++) {
    const hogging = i < pool.hoggingThreadCount;
    const active = i < busy;
    const label = hogging ? '[HOGGING]' : active ? '[ACTIVE]' : i < busy + pool.standbyThreadCount ? '[STANDBY]' : '';
    const name = `${label}${label ? ' ' : ''}ExecuteThread: '${i}' for queue: 'appserver.kernel.Default (self-tuning)'`;
    if (active) {
      thread(name, i, true, 'RUNNABLE', [
        'java.net.SocketInputStream.socketRead0(Native Method)',
        'java.net.SocketInputStream.read(SocketInputStream.java:171)',
        'appserver.servlet.internal.ServletStubImpl.execute(ServletStubImpl.java:286)',
        'appserver.servlet.internal.WebAppServletContext.execute(WebAppServletContext.java:2019)',
        'appserver.work.ExecuteThread.execute(ExecuteThread.java:420)',
        'appserver.work.ExecuteThread.run(ExecuteThread.java:360)',
      ]);
    } else {
      thread(name, i, true, 'WAITING (on object monitor)', [
        'java.lang.Object.wait(Native Method)',
        'java.lang.Object.wait(Object.java:502)',
        'appserver.work.ExecuteThread.waitForRequest(ExecuteThread.java:303)',
        'appserver.work.ExecuteThread.run(ExecuteThread.java:352)',
      ]);
    }
  }
  const n = pool.executeThreadTotalCount;
  thread('Timer-0', n, true, 'TIMED_WAITING (on object monitor)', ['java.lang.Object.wait(Native Method)', 'java.util.TimerThread.mainLoop(Timer.java:552)', 'java.util.TimerThread.run(Timer.java:505)']);
  thread('appserver.GCMonitor', n + 1, true, 'WAITING (on object monitor)', ['java.lang.Object.wait(Native Method)', 'java.lang.ref.ReferenceQueue.remove(ReferenceQueue.java:144)', 'appserver.platform.GCMonitorThread.run(GCMonitorThread.java:49)']);
  thread(`DynamicListenThread[Default] (server ${server})`, n + 2, true, 'RUNNABLE', ['java.net.PlainSocketImpl.socketAccept(Native Method)', 'java.net.ServerSocket.accept(ServerSocket.java:513)', 'appserver.server.channels.DynamicListenThread$SocketAccepter.accept(DynamicListenThread.java:535)']);
  thread('main', n + 3, false, 'WAITING (on object monitor)', ['java.lang.Object.wait(Native Method)', 'appserver.t3.srvr.T3Srvr.waitForDeath(T3Srvr.java:1087)', 'appserver.Server.main(Server.java:71)']);
  return lines.join('\n');
}

export interface EjbTransactionFigures {
  transactionsCommittedTotalCount: number;
  transactionsRolledBackTotalCount: number;
  transactionsTimedOutTotalCount: number;
}

/** The transactions an EJB took part in. */
export function ejbTransactions(seed: string, elapsedMs: number): EjbTransactionFigures {
  return {
    transactionsCommittedTotalCount: counter(seed, 'committed', 0.2 + pick(seed, 'rate') * 2, elapsedMs),
    transactionsRolledBackTotalCount: counter(seed, 'rolledBack', 0.005, elapsedMs),
    transactionsTimedOutTotalCount: counter(seed, 'timedOut', 0.0005, elapsedMs),
  };
}

export interface EjbPoolFigures {
  accessTotalCount: number;
  beansInUseCurrentCount: number;
  pooledBeansCurrentCount: number;
  missTotalCount: number;
  destroyedTotalCount: number;
  timeoutTotalCount: number;
  waiterCurrentCount: number;
}

/** The pool of an EJB's instances: instances in use within those pooled. */
export function ejbPool(seed: string, elapsedMs: number): EjbPoolFigures {
  const pooled = 1 + Math.round(gauge(seed, 'pooled', 0, 15, elapsedMs));
  const accesses = counter(seed, 'access', 0.5 + pick(seed, 'rate') * 3, elapsedMs);
  return {
    accessTotalCount: accesses,
    // A bean in use now was accessed: never more in use than accesses so far.
    beansInUseCurrentCount: Math.min(pooled, accesses, Math.round(gauge(seed, 'inUse', 0, 5, elapsedMs))),
    pooledBeansCurrentCount: pooled,
    missTotalCount: counter(seed, 'miss', 0.01, elapsedMs),
    destroyedTotalCount: counter(seed, 'destroyed', 0.002, elapsedMs),
    timeoutTotalCount: 0,
    waiterCurrentCount: 0,
  };
}
