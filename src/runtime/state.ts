// The durable part of the runtime: what state each server, partition and resource group is in
// (or was last asked to be in). Everything else of the runtime trees is derived from it and the
// configuration.

export type ServerState =
  | 'SHUTDOWN' | 'STARTING' | 'STANDBY' | 'ADMIN' | 'RESUMING' | 'RUNNING' | 'SUSPENDING'
  | 'FORCE_SUSPENDING' | 'SHUTTING_DOWN' | 'FORCE_SHUTTING_DOWN' | 'FAILED' | 'UNKNOWN';

export interface PartitionState {
  state: string;
  subState: string | null;
}

export interface RuntimeState {
  /** Lifecycle state of each configured server. */
  servers: Record<string, ServerState>;
  /** Desired state of each partition ('SHUTDOWN'/'HALTED' until started). */
  partitions: Record<string, PartitionState>;
  /** Desired state of each resource group, keyed `partition/group` ('/group' at domain level). */
  resourceGroups: Record<string, string>;
  /** Running servers that need a restart to pick up activated changes. */
  restartRequired?: Record<string, true>;
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
