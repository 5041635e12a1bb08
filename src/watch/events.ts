// What a watcher is told: the kinds of events, and how each change this server stores becomes one.
// An event names the bean it concerns by its path below /management/appserver/{version}, so a
// watcher can follow only part of the domain (a path prefix). Events never carry property values:
// what changed is named, the client reads the values it may see; no secret can leak through here.
import type { ActivationResult } from '../config/config-service.js';
import type { StoredTask, WatchEventWrite } from '../store/store.js';

export const WATCH_KINDS = ['activation', 'runtime', 'task'] as const;
export type WatchKind = (typeof WATCH_KINDS)[number];

export function isWatchKind(value: string): value is WatchKind {
  return (WATCH_KINDS as readonly string[]).includes(value);
}

/** An event as a watcher receives it (the data of one Server-Sent Event). */
export interface WatchEvent {
  id: number;
  /** `reset` when the watcher must read everything again. */
  kind: WatchKind | 'reset';
  /** Epoch milliseconds when the change was stored. */
  time: number;
  [field: string]: unknown;
}

/** One bean an activation changed. */
export interface ChangedBean {
  /** Its path in the edit tree (`edit/servers/ms1`). */
  path: string;
  operation: 'create' | 'modify' | 'delete';
  /** Short type name (`Server`). */
  type: string;
  /** Names of the properties set or unset (none for a delete). */
  properties: string[];
}

const path = (tree: string, segments: readonly string[]) => [tree, ...segments].join('/');

/** The event of an activation: its record's id, version, who, and which beans changed. */
export function activationEvent(result: ActivationResult, record: { user: string; editSession: string }, time: number): WatchEventWrite {
  const beans: ChangedBean[] = result.changes.map((c) => ({
    path: path('edit', c.identity),
    operation: c.operation,
    type: c.type,
    properties: (c.properties ?? []).map((p) => p.name),
  }));
  return {
    time,
    kind: 'activation',
    data: {
      activation: result.id,
      version: result.version,
      user: record.user,
      editSession: record.editSession,
      restartRequired: result.restartRequired,
      beans,
    },
  };
}

const DR = 'domainRuntime';

/** The journal's kind for a change of everything at once, told to every watcher as a `reset`. */
export const RESTORED = 'restored';

/** The event of a domain replaced whole (a snapshot restored): watchers must read everything again. */
export function restoredEvent(time: number): WatchEventWrite {
  return { time, kind: RESTORED, data: {} };
}

/**
 * The event of one runtime state entry that changed (runtime/state.ts keys them as JSON arrays),
 * or undefined for entries watchers are not told of (restart flags, JMS pauses, retirements...).
 */
export function runtimeEvent(key: string, before: unknown, after: unknown, time: number): WatchEventWrite | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(key);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return undefined;
  const [what, a = '', b = ''] = parts as string[];
  const subject = runtimeSubject(what!, a, b);
  if (!subject) return undefined;
  const state = stateOf(after);
  const previous = stateOf(before);
  if (state.state === previous.state && state.subState === previous.subState) return undefined;
  return {
    time,
    kind: 'runtime',
    data: {
      path: subject.path,
      subject: subject.subject,
      ...subject.names,
      state: state.state,
      ...(state.subState !== undefined ? { subState: state.subState } : {}),
      previousState: previous.state,
    },
  };
}

interface Subject {
  path: string;
  subject: 'server' | 'partition' | 'resourceGroup' | 'application' | 'library' | 'dataSource';
  names: Record<string, string>;
}

/** Splits `first/rest` at its first slash (names never hold one). */
function split(key: string): [string, string] {
  const at = key.indexOf('/');
  return at < 0 ? ['', key] : [key.slice(0, at), key.slice(at + 1)];
}

function runtimeSubject(what: string, a: string, b: string): Subject | undefined {
  switch (what) {
    case 'server':
      return { path: path(DR, ['serverLifeCycleRuntimes', a]), subject: 'server', names: { name: a } };
    case 'partition':
      return { path: path(DR, ['domainPartitionRuntimes', a, 'partitionLifeCycleRuntime']), subject: 'partition', names: { name: a } };
    case 'partitionServer':
      // A partition on one server: its partition runtime there.
      return { path: path(DR, ['serverRuntimes', b, 'partitionRuntimes', a]), subject: 'partition', names: { name: a, server: b } };
    case 'resourceGroup': {
      const [partition, group] = split(a);
      return partition === ''
        ? { path: path(DR, ['resourceGroupLifeCycleRuntimes', group]), subject: 'resourceGroup', names: { name: group } }
        : { path: path(DR, ['domainPartitionRuntimes', partition, 'partitionLifeCycleRuntime', 'resourceGroupLifeCycleRuntimes', group]), subject: 'resourceGroup', names: { name: group, partition } };
    }
    case 'application':
      return { path: path(DR, ['deploymentManager', 'appDeploymentRuntimes', a]), subject: 'application', names: { name: a } };
    case 'library':
      return { path: path(DR, ['deploymentManager', 'libDeploymentRuntimes', a]), subject: 'library', names: { name: a } };
    case 'dataSource': {
      const [server, rest] = split(a);
      const [partition, ds] = split(rest);
      return partition === ''
        ? { path: path(DR, ['serverRuntimes', server, 'JDBCServiceRuntime', 'JDBCDataSourceRuntimeMBeans', ds]), subject: 'dataSource', names: { name: ds, server } }
        : {
            path: path(DR, ['serverRuntimes', server, 'partitionRuntimes', partition, 'JDBCPartitionRuntime', 'JDBCDataSourceRuntimeMBeans', ds]),
            subject: 'dataSource',
            names: { name: ds, server, partition },
          };
    }
    default:
      return undefined;
  }
}

/** A stored state: a string, a partition's `{state, subState}`, or nothing (null: the bean is gone). */
function stateOf(value: unknown): { state: string | null; subState?: string | null } {
  if (typeof value === 'string') return { state: value };
  if (value && typeof value === 'object' && typeof (value as { state?: unknown }).state === 'string') {
    const v = value as { state: string; subState?: unknown };
    return { state: v.state, subState: typeof v.subState === 'string' ? v.subState : null };
  }
  return { state: null };
}

/** Fields of a task a watcher is told (a list, so nothing else a task may hold ever leaves). */
const TASK_FIELDS = [
  'name', 'operation', 'description', 'taskStatus', 'state', 'progress', 'completed', 'running',
  'serverName', 'partitionName', 'resourceGroupName', 'applicationName', 'startTime', 'endTime',
] as const;

/** The progress of a task as a watcher sees it, and a fingerprint to tell whether it moved. */
export function taskEvent(task: StoredTask, time: number): { event: WatchEventWrite; fingerprint: string } | undefined {
  const identity = task.values.$identity;
  if (!Array.isArray(identity) || !identity.every((s) => typeof s === 'string')) return undefined;
  const data: Record<string, unknown> = { path: path(DR, identity as string[]) };
  for (const f of TASK_FIELDS) if (f in task.values) data[f] = task.values[f];
  const error = task.values.taskError;
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') data.error = (error as { message: string }).message;
  const fingerprint = JSON.stringify([data.taskStatus, data.state, data.progress, data.completed, data.running]);
  return { event: { time, kind: 'task', data }, fingerprint };
}

/** True when `eventPath` is the prefix or lies below it. */
export function under(eventPath: string, prefix: string): boolean {
  return prefix === '' || eventPath === prefix || eventPath.startsWith(`${prefix}/`);
}
