// The durable part of the runtime: what state each server, partition, resource group, application
// and data source is in (or was last asked to be in). Everything else of the runtime trees is
// derived from it and the configuration.

export type ServerState =
  | 'SHUTDOWN' | 'STARTING' | 'STANDBY' | 'ADMIN' | 'RESUMING' | 'RUNNING' | 'SUSPENDING'
  | 'FORCE_SUSPENDING' | 'SHUTTING_DOWN' | 'FORCE_SHUTTING_DOWN' | 'FAILED' | 'UNKNOWN';

/** A partition's state as the wire shows it: SHUTDOWN carries its detail in `subState`. */
export interface PartitionState {
  state: string;
  subState: string | null;
}

// Every table here is keyed by names clients choose (a server may be called `__proto__` or
// `constructor`), so each is a Map or a Set, never a plain object.
export interface RuntimeState {
  /** Lifecycle state of each configured server. */
  servers: Map<string, ServerState>;
  /** Desired state of each partition ('SHUTDOWN'/'HALTED' until started). */
  partitions: Map<string, PartitionState>;
  /** Detailed state of each partition on each running server it is targeted to. */
  partitionServers: Map<string, Map<string, string>>;
  /** State of each resource group, keyed `partition/group` ('/group' at domain level). */
  resourceGroups: Map<string, string>;
  /** Running servers that need a restart to pick up activated changes. */
  restartRequired: Set<string>;
  /** Intended state of each application (STATE_ACTIVE unless stopped or started in admin mode). */
  applications: Map<string, string>;
  /** State of each shared library (STATE_ACTIVE unless its deployment is still in progress). */
  libraries: Map<string, string>;
  /** State of each data source on each server, keyed `server/partition/dataSource`. */
  dataSources: Map<string, string>;
  /** JMS activity paused (true) or resumed (false), keyed by JMS server, destination and kind (messaging.ts). */
  jmsPaused: Map<string, boolean>;
  /** Retirement of the version each application's last redeploy replaced: its retire timeout (s) and when it retires. */
  retirements: Map<string, Retirement>;
  /** The SSL listen port of each running managed server whose SSL channel is open (as configured when it last opened). */
  sslChannels: Map<string, number>;
  /**
   * The administration port (as configured, before the port offset) of each running server whose
   * administration channel is open: while it is, management requests are refused on its other ports.
   */
  adminChannels: Map<string, number>;
  /** When each running server reached a running state (epoch ms): its figures count from then. */
  runningSince: Map<string, number>;
}

export interface Retirement {
  timeoutSeconds: number;
  /** Epoch ms. */
  at: number;
}

/** Numeric server state as `stateVal` reports it. */
export const SERVER_STATE_VAL: Record<string, number> = {
  SHUTDOWN: 0, STARTING: 1, RUNNING: 2, STANDBY: 3, SUSPENDING: 4, RESUMING: 6, SHUTTING_DOWN: 7,
  FAILED: 8, ADMIN: 17, FORCE_SHUTTING_DOWN: 18,
};

export function emptyRuntimeState(): RuntimeState {
  return {
    servers: new Map(),
    partitions: new Map(),
    partitionServers: new Map(),
    resourceGroups: new Map(),
    restartRequired: new Set(),
    applications: new Map(),
    libraries: new Map(),
    dataSources: new Map(),
    jmsPaused: new Map(),
    retirements: new Map(),
    sslChannels: new Map(),
    adminChannels: new Map(),
    runningSince: new Map(),
  };
}

export const HALTED: PartitionState = { state: 'SHUTDOWN', subState: 'HALTED' };

/** Partition states, lowest to highest: a partition on several servers reports its highest. */
export const PARTITION_ORDER = [
  'UNKNOWN', 'HALTED', 'HALTING', 'BOOTING', 'SHUTDOWN', 'BOOTED', 'SHUTTING_DOWN', 'FORCE_SHUTTING_DOWN',
  'STARTING_IN_ADMIN', 'ADMIN', 'RESUMING', 'SUSPENDING', 'FORCE_SUSPENDING', 'STARTING', 'FORCE_RESTARTING', 'RUNNING',
];

/** Detailed states the wire reports as SHUTDOWN, with the detail in `subState`. */
const SHUTDOWN_DETAILS = new Set(['HALTED', 'HALTING', 'BOOTING', 'BOOTED']);

export function partitionWire(detailed: string): PartitionState {
  return SHUTDOWN_DETAILS.has(detailed) ? { state: 'SHUTDOWN', subState: detailed } : { state: detailed, subState: null };
}

export function partitionDetailed(ps: PartitionState): string {
  return ps.state === 'SHUTDOWN' ? (ps.subState ?? 'BOOTED') : ps.state;
}

/** A partition in one of these states has a partition runtime on the server. */
export function partitionActive(detailed: string): boolean {
  return !SHUTDOWN_DETAILS.has(detailed) && detailed !== 'SHUTDOWN' && detailed !== 'UNKNOWN';
}

export function highestPartitionState(states: string[]): string | undefined {
  let best: string | undefined;
  for (const s of states) if (best === undefined || PARTITION_ORDER.indexOf(s) > PARTITION_ORDER.indexOf(best)) best = s;
  return best;
}

/**
 * The state as independent entries (one per server, partition, resource group...), so servers
 * sharing a store write only what they changed and never overwrite each other's changes.
 */
/**
 * A copy of the state's collections as they are now (the values themselves are shared, as
 * `stateToEntries` shares them): far cheaper than its entries on a large domain, and turned into
 * entries only when needed.
 */
export function copyState(state: RuntimeState): RuntimeState {
  return {
    servers: new Map(state.servers),
    partitions: new Map(state.partitions),
    partitionServers: new Map([...state.partitionServers].map(([p, servers]) => [p, new Map(servers)])),
    resourceGroups: new Map(state.resourceGroups),
    restartRequired: new Set(state.restartRequired),
    applications: new Map(state.applications),
    libraries: new Map(state.libraries),
    dataSources: new Map(state.dataSources),
    jmsPaused: new Map(state.jmsPaused),
    retirements: new Map(state.retirements),
    sslChannels: new Map(state.sslChannels),
    adminChannels: new Map(state.adminChannels),
    runningSince: new Map(state.runningSince),
  };
}

/** The key of a runtime state entry: a JSON array of its kind and names (never an Object.prototype name). */
export function entryKey(kind: string, ...parts: string[]): string {
  return JSON.stringify([kind, ...parts]);
}

/** The tables holding one value per name, with the kind their entries are stored under. */
const FLAT_TABLES = [
  ['server', 'servers'],
  ['partition', 'partitions'],
  ['resourceGroup', 'resourceGroups'],
  ['application', 'applications'],
  ['library', 'libraries'],
  ['dataSource', 'dataSources'],
  ['jmsPaused', 'jmsPaused'],
  ['retirement', 'retirements'],
  ['sslChannel', 'sslChannels'],
  ['adminChannel', 'adminChannels'],
  ['runningSince', 'runningSince'],
] as const;

/** Every table of the state is compared: one added to RuntimeState and left out above fails to compile here. */
const COMPARED: Record<Exclude<keyof RuntimeState, (typeof FLAT_TABLES)[number][1] | 'restartRequired' | 'partitionServers'>, never> = {};
void COMPARED;

/** One entry that differs between two states: its key, its value before (undefined: new) and after (undefined: removed). */
export interface EntryChange {
  key: string;
  before: unknown;
  after: unknown;
}

/** An object value copied, so that a later change of the original in place still shows as a change. */
const detached = (v: unknown): unknown => (typeof v === 'object' && v !== null ? structuredClone(v) : v);

/** Whether two entry values store the same JSON. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return JSON.stringify(a) === JSON.stringify(b);
  return typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A copy of the state that later changes of the state do not reach (object values are copied too):
 * what was last stored, to compare the state with.
 */
export function snapshotState(state: RuntimeState): RuntimeState {
  const copy = copyState(state);
  copy.partitions = new Map([...copy.partitions].map(([k, v]) => [k, detached(v) as PartitionState]));
  copy.retirements = new Map([...copy.retirements].map(([k, v]) => [k, detached(v) as Retirement]));
  return copy;
}

/**
 * The entries in which `now` differs from `was`, in the terms `stateToEntries` stores them. It
 * compares the tables themselves, one map lookup per entry: only the entries that differ are
 * turned into keys and JSON.
 */
export function stateChanges(was: RuntimeState, now: RuntimeState): EntryChange[] {
  const out: EntryChange[] = [];
  const table = (before: ReadonlyMap<string, unknown>, after: ReadonlyMap<string, unknown>, key: (name: string) => string) => {
    let common = 0;
    for (const [name, value] of after) {
      const old = before.get(name);
      if (old === undefined && !before.has(name)) {
        if (value !== undefined) out.push({ key: key(name), before: undefined, after: value });
        continue;
      }
      common++;
      if (!sameValue(old, value)) out.push({ key: key(name), before: old, after: value });
    }
    // Every entry of `before` is in `after` when as many of them were found there.
    if (common === before.size) return;
    for (const [name, old] of before) if (!after.has(name)) out.push({ key: key(name), before: old, after: undefined });
  };
  for (const [kind, name] of FLAT_TABLES) table(was[name] as ReadonlyMap<string, unknown>, now[name] as ReadonlyMap<string, unknown>, (n) => entryKey(kind, n));
  const flags = (set: ReadonlySet<string>) => new Map([...set].map((n) => [n, true]));
  if (was.restartRequired.size !== 0 || now.restartRequired.size !== 0) table(flags(was.restartRequired), flags(now.restartRequired), (n) => entryKey('restartRequired', n));
  const none = new Map<string, string>();
  for (const [p, servers] of now.partitionServers) table(was.partitionServers.get(p) ?? none, servers, (s) => entryKey('partitionServer', p, s));
  for (const [p, servers] of was.partitionServers) if (!now.partitionServers.has(p)) table(servers, none, (s) => entryKey('partitionServer', p, s));
  return out;
}

/** Brings a snapshot in line with changed entries (as `stateChanges` gives them): what is stored now. */
export function applyEntryChanges(snapshot: RuntimeState, changes: readonly EntryChange[]): void {
  for (const c of changes) {
    const [kind, a, b] = JSON.parse(c.key) as [string, string, string?];
    const value = detached(c.after);
    if (kind === 'restartRequired') {
      if (value === undefined) snapshot.restartRequired.delete(a);
      else snapshot.restartRequired.add(a);
    } else if (kind === 'partitionServer') {
      const held = snapshot.partitionServers.get(a) ?? new Map<string, string>();
      snapshot.partitionServers.set(a, held);
      if (value === undefined) held.delete(b!);
      else held.set(b!, value as string);
    } else {
      const table = FLAT_TABLES.find(([k]) => k === kind);
      const map = table && (snapshot[table[1]] as Map<string, unknown>);
      if (value === undefined) map?.delete(a);
      else map?.set(a, value);
    }
  }
}

export function stateToEntries(state: RuntimeState): Record<string, unknown> {
  // Keys are JSON arrays ('["server","ms1"]'): they never collide with Object.prototype's names.
  const out: Record<string, unknown> = {};
  const put = (value: unknown, ...parts: string[]) => (out[JSON.stringify(parts)] = value);
  for (const [name, s] of state.servers) put(s, 'server', name);
  for (const [name, p] of state.partitions) put(p, 'partition', name);
  for (const [p, servers] of state.partitionServers) for (const [s, d] of servers) put(d, 'partitionServer', p, s);
  for (const [key, s] of state.resourceGroups) put(s, 'resourceGroup', key);
  for (const name of state.restartRequired) put(true, 'restartRequired', name);
  for (const [name, s] of state.applications) put(s, 'application', name);
  for (const [name, s] of state.libraries) put(s, 'library', name);
  for (const [key, s] of state.dataSources) put(s, 'dataSource', key);
  for (const [key, paused] of state.jmsPaused) put(paused, 'jmsPaused', key);
  for (const [app, r] of state.retirements) put(r, 'retirement', app);
  for (const [server, port] of state.sslChannels) put(port, 'sslChannel', server);
  for (const [server, port] of state.adminChannels) put(port, 'adminChannel', server);
  for (const [server, at] of state.runningSince) put(at, 'runningSince', server);
  return out;
}

export function entriesToState(entries: Record<string, unknown>): RuntimeState {
  const state = emptyRuntimeState();
  for (const [key, value] of Object.entries(entries)) {
    const [kind, a, b] = JSON.parse(key) as string[];
    switch (kind) {
      case 'server':
        state.servers.set(a!, value as ServerState);
        break;
      case 'partition':
        state.partitions.set(a!, value as PartitionState);
        break;
      case 'partitionServer': {
        const servers = state.partitionServers.get(a!) ?? new Map<string, string>();
        state.partitionServers.set(a!, servers.set(b!, value as string));
        break;
      }
      case 'resourceGroup':
        state.resourceGroups.set(a!, value as string);
        break;
      case 'restartRequired':
        state.restartRequired.add(a!);
        break;
      case 'application':
        state.applications.set(a!, value as string);
        break;
      case 'library':
        state.libraries.set(a!, value as string);
        break;
      case 'dataSource':
        state.dataSources.set(a!, value as string);
        break;
      case 'jmsPaused':
        state.jmsPaused.set(a!, value === true);
        break;
      case 'retirement':
        state.retirements.set(a!, value as Retirement);
        break;
      case 'sslChannel':
        state.sslChannels.set(a!, Number(value));
        break;
      case 'adminChannel':
        if (Number.isInteger(Number(value))) state.adminChannels.set(a!, Number(value));
        break;
      case 'runningSince':
        if (Number.isFinite(Number(value))) state.runningSince.set(a!, Number(value));
        break;
    }
  }
  return state;
}

/** Where an interrupted transition would have ended: the state a restart settles it in. */
const SETTLED: Record<string, string> = {
  STARTING: 'RUNNING', RESUMING: 'RUNNING', SUSPENDING: 'ADMIN', FORCE_SUSPENDING: 'ADMIN',
  SHUTTING_DOWN: 'SHUTDOWN', FORCE_SHUTTING_DOWN: 'SHUTDOWN',
};
const PARTITION_SETTLED: Record<string, string> = {
  STARTING: 'RUNNING', STARTING_IN_ADMIN: 'ADMIN', BOOTING: 'BOOTED', HALTING: 'HALTED', SHUTTING_DOWN: 'BOOTED',
  FORCE_SHUTTING_DOWN: 'BOOTED', SUSPENDING: 'ADMIN', FORCE_SUSPENDING: 'ADMIN', RESUMING: 'RUNNING', FORCE_RESTARTING: 'RUNNING',
};
const GROUP_SETTLED: Record<string, string> = { ...SETTLED, STARTING_IN_ADMIN: 'ADMIN' };

/** Ends the interrupted transition of what a task was acting on (a server, partition, group or application). */
export function settleTarget(state: RuntimeState, task: Record<string, unknown>): void {
  const server = task.serverName;
  if (typeof task.resourceGroupName === 'string') {
    for (const [key, s] of state.resourceGroups) {
      if (key.endsWith(`/${task.resourceGroupName}`)) state.resourceGroups.set(key, settled(GROUP_SETTLED, s));
    }
  } else if (typeof task.partitionName === 'string') {
    const name = task.partitionName;
    const p = state.partitions.get(name);
    if (p) state.partitions.set(name, partitionWire(settled(PARTITION_SETTLED, partitionDetailed(p))));
    const servers = state.partitionServers.get(name) ?? new Map<string, string>();
    for (const [s, d] of servers) servers.set(s, settled(PARTITION_SETTLED, d));
  } else if (typeof server === 'string' && state.servers.has(server)) {
    state.servers.set(server, settled(SETTLED, state.servers.get(server)!) as ServerState);
  } else if (typeof task.applicationName === 'string') {
    // A progress object names the application or library it deploys (they share one namespace).
    if (state.applications.get(task.applicationName) === 'STATE_NEW') state.applications.set(task.applicationName, 'STATE_ACTIVE');
    if (state.libraries.get(task.applicationName) === 'STATE_NEW') state.libraries.set(task.applicationName, 'STATE_ACTIVE');
  }
}

/**
 * After a restart of a server that ran every transition itself, nothing will finish the ones it
 * was in the middle of: they end where they were going.
 */
export function settleInterrupted(state: RuntimeState): void {
  for (const [name, s] of state.servers) state.servers.set(name, settled(SETTLED, s) as ServerState);
  for (const [name, p] of state.partitions) state.partitions.set(name, partitionWire(settled(PARTITION_SETTLED, partitionDetailed(p))));
  for (const servers of state.partitionServers.values()) for (const [s, d] of servers) servers.set(s, settled(PARTITION_SETTLED, d));
  for (const [key, s] of state.resourceGroups) state.resourceGroups.set(key, settled(GROUP_SETTLED, s));
  for (const [app, s] of state.applications) if (s === 'STATE_NEW') state.applications.set(app, 'STATE_ACTIVE');
  for (const [lib, s] of state.libraries) if (s === 'STATE_NEW') state.libraries.set(lib, 'STATE_ACTIVE');
}

/** The state a transitional state settles in (the state itself when it is not transitional). */
function settled(table: Record<string, string>, state: string): string {
  return Object.hasOwn(table, state) ? table[state]! : state;
}
