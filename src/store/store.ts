// The storage interface. Everything durable goes through it: SQLite is the embedded default, and
// PostgreSQL lets several servers share one domain. Every write bumps the version of the part of
// the domain it changed, in the same transaction, so servers sharing a store can tell what to reload.
import type { StoreDump, TableRows } from './backup/tables.js';

/** One bean of a stored tree. `collection`/`name` place items in their collection; `ord` keeps their order. */
export interface StoredBean {
  key: string;
  collection: string | null;
  name: string | null;
  ord: number;
  type: string;
  values: Record<string, unknown>;
}

/** Takes one bean of a tree as the store reads it. */
export type PutBean = (key: string, collection: string | null, name: string | null, ord: number, type: string, values: Record<string, unknown>) => void;

export interface StoredUser {
  name: string;
  hash: string;
  description: string;
}

export interface StoredGroup {
  name: string;
  description: string;
  members: string[];
}

export interface BeanChanges {
  put: StoredBean[];
  /** Keys whose bean and whole subtree are removed. */
  remove: string[];
}

/** An edit session as stored: its description and its pending changes (JSON), in order. */
export interface StoredSession {
  name: string;
  info: unknown;
  changes: [string, unknown][];
  /** Revision, for compare-and-set between servers sharing the store. */
  rev?: number;
}

/** What one activation changed, for the record readable through the API. */
export interface ActivationRecord {
  id: number;
  version: number;
  editSession: string;
  user: string;
  startTime: number;
  endTime: number;
  restartRequired: boolean;
  changes: unknown[];
}

export interface ActivationWrite {
  /** Configuration changes applied to the 'config' tree. */
  config: BeanChanges;
  /** The session after activation (lock released, no changes). */
  session: StoredSession;
  record: Omit<ActivationRecord, 'id'>;
}

/** A task or deployment progress object as stored (visible to every server sharing the store). */
export interface StoredTask {
  key: string;
  collection: string;
  ord: number;
  type: string;
  values: Record<string, unknown>;
}

/** One entry of the audit trail: who did what, from where, on which bean, and how it ended. */
export interface AuditRecord {
  id: number;
  /** Epoch milliseconds. */
  time: number;
  /** The authenticated user, or the user name tried for a failed login. */
  user: string | null;
  /** The client's address (the TCP peer). */
  address: string;
  action: string;
  bean: string;
  outcome: string;
  detail: string;
  /** How many identical requests this record stands for (identical ones within a minute fold into one). */
  count: number;
  /** Epoch milliseconds of the last of them (`time` is the first). */
  lastTime: number;
}

/** A record to store: `count` and `lastTime` default to one request at `time`. */
export type AuditWrite = Omit<AuditRecord, 'id' | 'count' | 'lastTime'> & { count?: number; lastTime?: number };

/** More requests folded into a stored audit record. */
export interface AuditIncrement {
  id: number;
  count: number;
  lastTime: number;
}

/** Failed logins of one user name or one client address, and its back-off. */
export interface LoginFailures {
  count: number;
  /** Epoch ms of the last failure. */
  last: number;
  /** Epoch ms until which its logins wait; 0 when it never had to. */
  lockedUntil: number;
}

export type LoginFailureKind = 'user' | 'address';

/** One failed login to count against a user name or an address. */
export interface FailureCount {
  kind: LoginFailureKind;
  key: string;
  /** Failures after which it backs off. */
  threshold: number;
  /** The longest back-off (ms). */
  capMs: number;
  /** The back-off (ms) that its `count`-th failure in a row begins; 0 for none. */
  wait: (count: number) => number;
}

/** An event of the watch journal as written: when, what kind, and its JSON data. */
export interface WatchEventWrite {
  /** Epoch milliseconds. */
  time: number;
  kind: string;
  data: Record<string, unknown>;
}

/** An event of the watch journal, numbered by the store (numbers grow in the order events are written). */
export interface StoredWatchEvent extends WatchEventWrite {
  id: number;
}

/** A page of the watch journal. */
export interface WatchEventPage {
  /** Events after the id asked for, oldest first. */
  events: StoredWatchEvent[];
  /** Events up to this id were removed from the journal (0: none ever was). Read after `events`. */
  trimmedThrough: number;
}

/** Parts of the domain whose versions tell servers sharing a store what to reload. */
export type Component = 'config' | 'sessions' | 'runtime' | 'tasks' | 'lifecycle' | 'security' | 'lockouts';
export const COMPONENTS: Component[] = ['config', 'sessions', 'runtime', 'tasks', 'lifecycle', 'security', 'lockouts'];

/** A compare-and-set lost: another server changed the record first. */
export class StoreConflict extends Error {}

/**
 * The whole state of a domain as stored rows (JSON text left as it is in the store, so saving and
 * restoring never re-encode it): the configuration, edit sessions, runtime, tasks and documents.
 */
export interface DomainRows {
  configVersion: number;
  /** [key, collection, name, ord, type, data] of the 'config' tree. */
  beans: [string, string | null, string | null, number, string, string][];
  /** [name, info, changes] */
  sessions: [string, string, string][];
  /** [key, data] */
  runtime: [string, string][];
  /** [key, collection, ord, type, data] */
  tasks: [string, string, number, string, string][];
  /** [key, data] */
  documents: [string, string][];
}

/** A saved domain state, as listed. */
export interface SnapshotInfo {
  name: string;
  /** Epoch ms. */
  created: number;
  /** Size of its stored document. */
  bytes: number;
}

export interface Store {
  /** True when other servers may change the store (their changes must be picked up). */
  readonly shared: boolean;
  /** A short description for logs (never a password). */
  readonly description: string;

  /**
   * Creates or migrates the schema. A database holding tables but not this server's schema
   * (another application's) is refused, and nothing is written to it.
   */
  open(): Promise<void>;
  /** True when the store holds any configuration bean or user: a domain, or what is left of one. */
  holdsDomain(): Promise<boolean>;
  close(): Promise<void>;

  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /** Sets a meta value only if none is set; returns the value in force. */
  initMeta(key: string, value: string): Promise<string>;
  /**
   * Sets and removes meta values in one transaction. What is removed is also scrubbed from the
   * database files, not merely marked free (SQLite: overwritten, the file rewritten and its log
   * emptied; PostgreSQL: the table rewritten into new files, the old ones removed).
   */
  replaceMeta(set: Record<string, string>, remove: string[]): Promise<void>;

  /** Gives every bean of a tree ('config' is the activated configuration) to `put`, in order, without a list of them. */
  readTree(tree: string, put: PutBean): Promise<void>;
  /** The beans at these keys and below. */
  loadSubtrees(tree: string, keys: string[]): Promise<StoredBean[]>;
  /** Applies changes to a tree atomically. */
  writeTree(tree: string, changes: BeanChanges): Promise<void>;

  users(): Promise<StoredUser[]>;
  /** Adds a user; throws StoreConflict if the name is taken (by another server, too). */
  insertUser(user: StoredUser): Promise<void>;
  putUser(user: StoredUser): Promise<void>;
  deleteUser(name: string): Promise<void>;
  groups(): Promise<StoredGroup[]>;
  /** Adds a group; throws StoreConflict if the name is taken. */
  insertGroup(group: StoredGroup): Promise<void>;
  /** Changes a group's description (members are added and removed one at a time). */
  putGroup(group: StoredGroup): Promise<void>;
  deleteGroup(name: string): Promise<void>;
  addGroupMember(group: string, member: string): Promise<void>;
  removeGroupMember(group: string, member: string): Promise<void>;

  sessions(): Promise<StoredSession[]>;
  /** Writes a session if it is still at `expectedRev` (undefined: whatever it is); returns its new revision. */
  putSession(session: StoredSession, expectedRev?: number): Promise<number>;
  deleteSession(name: string): Promise<void>;
  /**
   * Applies an activation in one transaction (configuration, session, record, version), provided
   * the configuration is still at `expectedVersion`; throws StoreConflict otherwise.
   */
  activate(write: ActivationWrite, expectedVersion: number, sessionRev?: number): Promise<{ id: number; sessionRev: number }>;
  /** The most recent activations, newest first. */
  activations(limit: number): Promise<ActivationRecord[]>;
  /** Activations after a configuration version, oldest first. */
  activationsSince(version: number): Promise<ActivationRecord[]>;

  /** Runtime state entries (one per server, partition, resource group...). */
  runtimeEntries(): Promise<Record<string, unknown>>;
  writeRuntimeEntries(put: Record<string, unknown>, remove: string[]): Promise<void>;

  tasks(): Promise<StoredTask[]>;
  putTasks(tasks: StoredTask[]): Promise<void>;
  deleteTasks(keys: string[]): Promise<void>;

  /** JSON documents with a revision (the Lifecycle Manager's records). */
  getDocument<T>(key: string): Promise<{ value: T; rev: number } | undefined>;
  /** Writes a document if it is still at `expectedRev` (0: absent); returns the new revision. */
  putDocument(key: string, value: unknown, expectedRev: number): Promise<number>;

  /**
   * Appends entries to the audit trail and adds the increments to stored records (their count, and
   * their last time moves on), in one transaction; returns the ids of the appended entries.
   */
  appendAudit(records: AuditWrite[], increments?: AuditIncrement[]): Promise<number[]>;
  /** Removes at most `limit` audit entries whose last request came before `before`; returns how many. */
  pruneAudit(before: number, limit: number): Promise<number>;
  /** Audit entries, newest first: the latest `limit`, or those before the id `before`. */
  auditRecords(limit: number, before?: number): Promise<AuditRecord[]>;
  auditRecord(id: number): Promise<AuditRecord | undefined>;

  /**
   * Counts one failed login against each entry in one transaction: a count quiet for `resetMs` (no
   * failure, no back-off running) starts again at 1. The entry's `wait` for the new count says how
   * long it backs off from `now` (a back-off already running longer is kept). Returns the new state
   * of each entry.
   */
  countLoginFailure(entries: FailureCount[], now: number, resetMs: number): Promise<LoginFailures[]>;
  loginFailures(kind: LoginFailureKind, key: string): Promise<LoginFailures | undefined>;
  /** Forgets the failures (and back-off) of a user name or address; true when there were any. */
  clearLoginFailures(kind: LoginFailureKind, key: string): Promise<boolean>;
  /** Forgets every failure and back-off (the offline `users unlock`); returns how many keys had some. */
  clearAllLoginFailures(): Promise<number>;
  /** Every back-off still running at `now`. */
  lockouts(now: number): Promise<{ kind: LoginFailureKind; key: string; until: number; count: number; last: number }[]>;
  /** Number of user names with failures since `since` (or a lockout in force). */
  countFailingUsers(since: number, now: number): Promise<number>;
  /** Removes the records that no longer count: failures older than `since` and no lockout in force. */
  purgeLoginFailures(since: number, now: number): Promise<void>;

  /** The domain's state as rows, read in one transaction. */
  domainRows(): Promise<DomainRows>;
  /**
   * Replaces the configuration, sessions, runtime, tasks and documents with `rows` in one
   * transaction; the configuration takes the version `configVersion` (users, audit and activation
   * records stay).
   */
  replaceDomainRows(rows: DomainRows, configVersion: number): Promise<void>;
  /** Saves a snapshot (a JSON document), replacing one of the same name. */
  putSnapshot(name: string, created: number, data: string): Promise<void>;
  snapshot(name: string): Promise<(SnapshotInfo & { data: string }) | undefined>;
  /** Every snapshot, by name. */
  snapshots(): Promise<SnapshotInfo[]>;
  /** True when there was one. */
  deleteSnapshot(name: string): Promise<boolean>;

  /**
   * Every table of the domain a backup holds, read in one transaction that sees one committed state
   * (a repeatable-read snapshot on PostgreSQL), so it is consistent to one activation. The rows are
   * read as the backup asks for them, on a connection of their own: writes go on meanwhile.
   */
  backupTables(): Promise<StoreDump>;
  /**
   * Replaces the domain with restored tables in one transaction: every backed-up table is emptied,
   * as are the tables of live servers (heartbeats, listener leases, failed logins); the tables
   * `source` yields are filled; auto-numbering moves past the restored ids; every component's
   * version moves on. Nothing is changed if `source` throws.
   */
  restoreTables(source: AsyncIterable<TableRows>): Promise<void>;

  /** Records that a server instance is alive now. */
  heartbeat(instance: string, now: number): Promise<void>;
  /** Instances seen alive since `since` (epoch ms). */
  liveInstances(since: number): Promise<string[]>;

  /**
   * Appends events to the watch journal in one transaction; returns their ids. Ids grow in the
   * order transactions commit, across every server sharing the store, so a reader that has seen an
   * id never later finds a smaller one appear.
   */
  appendWatchEvents(events: WatchEventWrite[]): Promise<number[]>;
  /** Up to `limit` journal events after `afterId`, oldest first. */
  watchEventsAfter(afterId: number, limit: number): Promise<WatchEventPage>;
  /** The newest journal id (0 when there is none). */
  latestWatchEvent(): Promise<number>;
  /** Removes the journal's events at or below `throughId` and remembers that they are gone. */
  trimWatchEvents(throughId: number): Promise<void>;
  /** Calls `fn` when another server appends to the watch journal (shared stores). */
  onWatchEvents(fn: () => void): void;

  /**
   * Takes the lease of a managed server's listener for `owner`: granted when nobody holds it, when
   * `owner` holds it already, or when its holder was last seen alive before `liveSince`.
   */
  takeListenerLease(server: string, owner: string, liveSince: number, now: number): Promise<boolean>;
  /** Gives a lease back (only the holder's own). */
  releaseListenerLease(server: string, owner: string): Promise<void>;
  /** Every lease held, and by whom. */
  listenerLeases(): Promise<{ server: string; owner: string }[]>;

  /** Versions of every component. */
  versions(): Promise<Record<Component, number>>;
  /** Calls `fn` when another server changes a component (shared stores). */
  onChange(fn: (component: Component) => void): void;
}
