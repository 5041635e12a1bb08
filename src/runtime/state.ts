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

export interface RuntimeState {
  /** Lifecycle state of each configured server. */
  servers: Record<string, ServerState>;
  /** Desired state of each partition ('SHUTDOWN'/'HALTED' until started). */
  partitions: Record<string, PartitionState>;
  /** Detailed state of each partition on each running server it is targeted to. */
  partitionServers?: Record<string, Record<string, string>>;
  /** State of each resource group, keyed `partition/group` ('/group' at domain level). */
  resourceGroups: Record<string, string>;
  /** Running servers that need a restart to pick up activated changes. */
  restartRequired?: Record<string, true>;
  /** Intended state of each application (STATE_ACTIVE unless stopped or started in admin mode). */
  applications?: Record<string, string>;
  /** State of each data source on each server, keyed `server/partition/dataSource`. */
  dataSources?: Record<string, string>;
}

export const RUNTIME_STATE_KEY = 'runtime';

/** Numeric server state as `stateVal` reports it. */
export const SERVER_STATE_VAL: Record<string, number> = {
  SHUTDOWN: 0, STARTING: 1, RUNNING: 2, STANDBY: 3, SUSPENDING: 4, RESUMING: 6, SHUTTING_DOWN: 7,
  FAILED: 8, ADMIN: 17, FORCE_SHUTTING_DOWN: 18,
};

export function emptyRuntimeState(): RuntimeState {
  return { servers: {}, partitions: {}, resourceGroups: {} };
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
