// Configuration editing: edit sessions and their locks, writes through the catalog's rules, and
// activation that applies a session's changes in one store transaction, then in memory.
import { Problem, badRequest, forbidden, invalid, isStoreFailure, notFound, tooMany, unavailable } from '../core/problems.js';
import type { Catalog } from '../catalog/load.js';
import { type PropDef, type TypeDef, needsChosenType } from '../catalog/model.js';
import { type ActivationRecord, type BeanChanges, type Store, StoreConflict, type StoredBean, type StoredSession } from '../store/store.js';
import { type BeanRecord, type BeanTree } from '../tree/records.js';
import { childKey, depthOfKey, describeKey, identityOfKey, isWithin, itemKey, keyOfIdentity, lastSegment, ownerKey, upKey } from '../core/identity.js';
import { checkDelete, checkUpdate } from '../behaviour/config-rules.js';
import { adminOnlyBean, adminOnlyChanges, connectionSettings } from '../behaviour/connection-settings.js';
import { ConfigIndex } from '../behaviour/config-view.js';
import { configurationValues } from '../behaviour/derived-values.js';
import { deployable } from '../behaviour/deployables.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import type { BeanNode } from '../tree/resolve.js';
import { RealScheduler, type Scheduler } from '../core/clock.js';
import { Mutex } from '../core/mutex.js';
import { ReferenceIndex } from './references.js';
import type { Secrets } from './secrets.js';
import { type Change, DEFAULT_SESSION, EditSession, type SessionInfo } from './session.js';
import { nameProblem, validateWrite } from './validate.js';

/** One change as the activation record tells it. */
export interface ChangeSummary {
  operation: 'create' | 'modify' | 'delete';
  identity: string[];
  type: string;
  properties?: { name: string; oldValue: unknown; newValue: unknown; restartRequired: boolean }[];
}

export interface ActivationResult {
  /** The activation record's id (absent for a dry run, which records nothing). */
  id?: number;
  version: number;
  changes: ChangeSummary[];
  restartRequired: boolean;
  /** Keys of the beans that changed (for the runtime to follow). */
  keys: string[];
  /** Made by another server sharing the store (which stored its own runtime consequences). */
  remote?: boolean;
}

/** What an activation of the session would write: the same plan serves the dry run and the real one. */
interface ActivationPlan {
  write: BeanChanges;
  summaries: ChangeSummary[];
  restartRequired: boolean;
  /** Beans put, with what they replace. */
  puts: [StoredBean, BeanRecord | undefined][];
  /** The changed keys, parents first. */
  keys: string[];
}

/** How an activation is asked for. */
export interface ActivateOptions {
  /** Validate and report the changes, apply nothing (no version, no lock change, no record). */
  dryRun?: boolean;
  /** The request's conditions on the change manager (If-Match), judged inside the activation's turn. */
  precondition?: () => void;
}

/** Called after each activation, once the new configuration is in place. */
export type ActivationListener = (result: ActivationResult) => void | Promise<void>;

/** Writes made together by `ConfigService.transaction`, beans named by identity. */
export interface EditTransaction {
  exists(identity: readonly string[]): boolean;
  create(parent: readonly string[], collection: string, body: Record<string, unknown>): string[];
  update(identity: readonly string[], body: Record<string, unknown>): void;
  delete(identity: readonly string[]): void;
}

/** What a write needs to know of the bean it writes under or removes. */
export type Owner = Pick<BeanNode, 'key' | 'identity' | 'record' | 'parentName'>;

interface Touched {
  version: number;
  /** key -> properties changed, or '*' when the bean was created or deleted. */
  keys: Map<string, Set<string> | '*'>;
}

const MAX_REMEMBERED_ACTIVATIONS = 1000;
/** Tries of an edit operation that other servers keep overtaking. */
const MAX_ATTEMPTS = 20;
/** Activation records served through the API (the store keeps them all). */
export const LISTED_ACTIVATIONS = 1000;
/** Longest a startEdit waits for a lock another user holds, whatever its waitTime asks. */
export const MAX_LOCK_WAIT_MS = 30_000;
/** startEdits that may wait at once, per user and in all (more are refused at once). */
const MAX_WAITS_PER_USER = 4;
const MAX_WAITS = 100;

/** Bounds of the named edit sessions (`serve --max-edit-sessions`, `--max-edit-sessions-per-user`, `--edit-session-idle`). */
export interface SessionLimits {
  /** Named sessions one user may have created (and not destroyed). */
  perUser: number;
  /** Named sessions of the domain (every partition's included). */
  total: number;
  /** A named session nobody changed, locked or activated for this long is discarded (ms). */
  idleMs: number;
}

const HOUR = 3_600_000;
export const DEFAULT_SESSION_LIMITS: SessionLimits = { perUser: 10, total: 100, idleMs: 24 * HOUR };
/** How often idle sessions are looked for, at most. */
const IDLE_SWEEP_MS = 10 * 60_000;

/** A change of an edit lock the server made by itself (for the audit trail). */
export interface LockEvent {
  session: string;
  /** The user whose lock it was. */
  holder: string;
  /** 'lapsed': its timeOut ran out; 'released': its holder was removed; 'expired': the whole named session was idle too long and is gone. */
  event: 'lapsed' | 'released' | 'expired';
  /** Unactivated changes dropped with it. */
  dropped: number;
}

/** How a startEdit asks for the lock. */
export interface StartEditOptions {
  /** Milliseconds to wait while another user holds the lock (capped at MAX_LOCK_WAIT_MS; -1: that cap). */
  waitTime?: number;
  /** Milliseconds after which the lock lapses; -1 (the default): never. */
  timeOut?: number;
  /** Ends the wait when the client goes away. */
  signal?: AbortSignal;
}

export class ConfigService {
  private readonly sessions = new Map<string, EditSession>();
  private readonly refs: ReferenceIndex;
  private readonly mutex = new Mutex();
  /** Stored revision of each session, for compare-and-set writes. */
  private readonly revs = new Map<string, number>();
  /** Each session as last read from or written to the store (JSON), to undo a write the store refused. */
  private readonly saved = new Map<string, string>();
  private readonly recent: Touched[] = [];
  private listeners: ActivationListener[] = [];
  private readonly beforeListeners: ((changes: readonly ChangeSummary[]) => void)[] = [];
  private sessionListeners: (() => void)[] = [];
  /** startEdits waiting for a lock to be released: who waits, and how to wake or end the wait. */
  private readonly waiters = new Set<{ user: string; wake: () => void; end: (err: Problem) => void }>();
  /** Told of every lock the server releases by itself (lapsed, or its holder removed). */
  onLockEvent: (event: LockEvent) => void | Promise<void> = () => {};
  /** The latest activation records, newest first. */
  records: ActivationRecord[] = [];
  /** Told when an operation that may have changed the configuration or a session ended (or failed). */
  onChanged: () => void = () => {};
  /** Caps and idle expiry of named edit sessions. */
  sessionLimits: SessionLimits = DEFAULT_SESSION_LIMITS;
  /** When this server read the sessions (the last use of those stored without one). */
  private loadedAt = 0;

  private constructor(
    private readonly catalog: Catalog,
    private readonly behaviours: BehaviourRegistry,
    private readonly store: Store,
    readonly config: BeanTree,
    private readonly secrets: Secrets,
    public version: number,
    private readonly scheduler: Scheduler,
  ) {
    this.refs = new ReferenceIndex(catalog, () => this.config.entries());
  }

  static async load(
    catalog: Catalog,
    behaviours: BehaviourRegistry,
    store: Store,
    config: BeanTree,
    secrets: Secrets,
    scheduler: Scheduler = new RealScheduler(),
  ): Promise<ConfigService> {
    const version = Number((await store.getMeta('configVersion')) ?? 0);
    const service = new ConfigService(catalog, behaviours, store, config, secrets, version, scheduler);
    service.records = await store.activations(LISTED_ACTIVATIONS);
    // What recent activations touched, so sessions pending across a restart still see conflicts.
    for (const r of [...service.records].reverse()) service.recent.push(touchedBy(r.version, r.changes as ChangeSummary[]));
    await service.loadSessions();
    return service;
  }

  /** (Re)reads every edit session from the store. */
  private async loadSessions(): Promise<void> {
    if (this.loadedAt === 0) this.loadedAt = this.now();
    // Read first, then swap: readers do not take the mutex, and must never see the sessions gone.
    this.takeSessions(await this.store.sessions());
  }

  private takeSessions(rows: StoredSession[]): void {
    this.sessions.clear();
    this.revs.clear();
    this.saved.clear();
    for (const row of rows) {
      this.sessions.set(row.name, this.sessionOf(row));
      this.revs.set(row.name, row.rev ?? 0);
      this.saved.set(row.name, JSON.stringify({ info: row.info, changes: row.changes }));
    }
    if (!this.sessions.has(DEFAULT_SESSION)) {
      const info: SessionInfo = { name: DEFAULT_SESSION, partition: null, creator: 'system', description: 'The default edit session', owner: null, baseVersion: this.version };
      const session = this.newSession(info);
      this.sessions.set(DEFAULT_SESSION, session);
      this.saved.set(DEFAULT_SESSION, JSON.stringify({ info, changes: [] }));
    }
  }

  private sessionOf(row: Pick<StoredSession, 'info' | 'changes'>): EditSession {
    const session = this.newSession(row.info as SessionInfo);
    session.restore(row.changes as [string, Change][]);
    return session;
  }

  /**
   * Puts a session back as it was last stored, after a write of it failed in the store (the store
   * out of reach, its disk full): what the failed operation changed in memory is undone, so that
   * the server shows what the store holds.
   */
  private revertSession(name: string): void {
    const json = this.saved.get(name);
    if (json === undefined) {
      this.sessions.delete(name);
      this.revs.delete(name);
    } else {
      this.sessions.set(name, this.sessionOf(JSON.parse(json) as Pick<StoredSession, 'info' | 'changes'>));
    }
    this.sessionsChanged();
  }

  private newSession(info: SessionInfo): EditSession {
    const session = new EditSession(info, this.config);
    session.singletonAt = (key) => {
      const owner = this.typeAt(session, upKey(key));
      const p = owner?.prop.get(lastSegment(key));
      return p !== undefined && p.shape === 'singleton' && !p.optional;
    };
    return session;
  }

  /** Writes a session only if no other server changed it since it was read; a save is a use (idle expiry). */
  private async saveSession(s: EditSession): Promise<void> {
    s.info.touched = this.now();
    const row = stored(s);
    let rev: number;
    try {
      rev = await this.store.putSession(row, this.revs.get(s.info.name) ?? 0);
    } catch (err) {
      if (isStoreFailure(err)) this.revertSession(s.info.name);
      throw err;
    }
    this.revs.set(s.info.name, rev);
    this.saved.set(s.info.name, JSON.stringify({ info: row.info, changes: row.changes }));
  }

  /**
   * Runs an edit operation alone. On a shared store, another server may have moved first: the
   * operation then sees the store's state and runs once more against it.
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.changing(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn();
        } catch (err) {
          if (!(err instanceof StoreConflict)) throw err;
          if (attempt >= MAX_ATTEMPTS) {
            throw unavailable(`The configuration is being changed through other servers too fast to keep up (${attempt} attempts); retry.`, 1);
          }
          await this.reloadLocked();
        }
      }
    });
  }

  /** Picks up what other servers sharing the store activated, and their session changes. */
  sync(): Promise<void> {
    return this.changing(() => this.reloadLocked());
  }

  /** Runs `fn` alone; whatever it did, changes are told when it ends (before its caller goes on). */
  private changing<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      try {
        return await fn();
      } finally {
        this.onChanged();
      }
    });
  }

  private async reloadLocked(): Promise<void> {
    for (const record of await this.store.activationsSince(this.version)) await this.applyRemote(record);
    await this.loadSessions();
    this.sessionsChanged();
    // A lock another server released may be the one a startEdit here waits for.
    this.wake();
  }

  /**
   * Puts back a whole configuration (a restored snapshot) as version `version`, and reads the edit
   * sessions again from the store; nothing runs between the two for a request to see half of it.
   */
  replaceAll(rows: StoredBean[], version: number): Promise<void> {
    return this.changing(async () => {
      const sessions = await this.store.sessions();
      for (const [key, record] of this.config.entries()) this.refs.remove(key, record);
      this.config.clear();
      for (const row of [...rows].sort((a, b) => depthOfKey(a.key) - depthOfKey(b.key) || a.ord - b.ord)) {
        const bean = { type: row.type, values: row.values };
        this.config.putRaw(row.key, bean, row.collection, row.name, row.ord);
        this.refs.add(row.key, bean);
      }
      this.version = version;
      this.recent.length = 0;
      this.takeSessions(sessions);
      this.sessionsChanged();
      this.wake();
    });
  }

  /** Applies an activation another server made: the beans it touched are read again from the store. */
  private async applyRemote(record: ActivationRecord): Promise<void> {
    const changes = record.changes as ChangeSummary[];
    const keys = [...new Set(changes.map((c) => keyOfIdentity(c.identity)))];
    const rows = await this.store.loadSubtrees('config', keys);
    for (const l of this.beforeListeners) l(changes);
    for (const key of keys) {
      for (const k of this.config.subtree(key)) this.refs.remove(k, this.config.bean(k));
      if (key !== '') this.config.remove(key);
    }
    for (const row of rows.sort((a, b) => depthOfKey(a.key) - depthOfKey(b.key) || a.ord - b.ord)) {
      const bean = { type: row.type, values: row.values };
      this.config.putRaw(row.key, bean, row.collection, row.name, row.ord);
      this.refs.add(row.key, bean);
    }
    this.version = record.version;
    this.records.unshift(record);
    if (this.records.length > LISTED_ACTIVATIONS) this.records.pop();
    this.recent.push(touchedBy(record.version, changes));
    if (this.recent.length > MAX_REMEMBERED_ACTIVATIONS) this.recent.shift();
    const result: ActivationResult = { id: record.id, version: record.version, changes, restartRequired: record.restartRequired, keys, remote: true };
    for (const l of this.listeners) await l(result);
  }

  /**
   * Called with an activation's changes just before the configuration in memory takes them (the
   * runtime notes where the beans they touch show as things were).
   */
  beforeApplying(listener: (changes: readonly ChangeSummary[]) => void): void {
    this.beforeListeners.push(listener);
  }

  /** `first`: called before the listeners added so far (the watch journal tells of an activation before of what follows from it). */
  onActivation(listener: ActivationListener, first = false): void {
    if (first) this.listeners.unshift(listener);
    else this.listeners.push(listener);
  }

  /** Called when a named session is created or destroyed, or its lock changes hands. */
  onSessionsChanged(listener: () => void): void {
    this.sessionListeners.push(listener);
  }

  private sessionsChanged(): void {
    for (const l of this.sessionListeners) l();
  }

  // ---- sessions ----

  session(name: string): EditSession {
    const s = this.sessions.get(name);
    if (!s) throw notFound(name);
    return s;
  }

  sessionNames(): string[] {
    return [...this.sessions.keys()];
  }

  allSessions(): EditSession[] {
    return [...this.sessions.values()];
  }

  /** Whether another activation since the session began touched a bean the session changed. */
  mergeNeeded(s: EditSession): boolean {
    return s.hasChanges && this.conflictingKeys(s).length > 0;
  }

  async createSession(name: string, partition: string | null, creator: string, description: string): Promise<void> {
    return this.exclusive(async () => {
      const problem = nameProblem(name);
      if (problem) throw badRequest(`The edit session name ${problem}.`, 'name');
      await this.expireIdleLocked();
      if (this.sessions.has(name)) throw badRequest(`The edit session '${name}' already exists.`, 'name');
      const named = [...this.sessions.values()].filter((x) => x.info.name !== DEFAULT_SESSION);
      const { perUser, total } = this.sessionLimits;
      const mine = named.filter((x) => x.info.creator === creator).length;
      if (mine >= perUser) {
        throw tooMany(`User '${creator}' has ${mine} named edit sessions, the most one user may have (the per-user cap, --max-edit-sessions-per-user ${perUser}); destroy one first, or wait until an unused one expires.`, 60);
      }
      if (named.length >= total) {
        throw tooMany(`The domain has ${named.length} named edit sessions, the most it may have (the total cap, --max-edit-sessions ${total}); destroy one first, or wait until an unused one expires.`, 60);
      }
      const info: SessionInfo = { name, partition, creator, description, owner: null, baseVersion: this.version };
      const s = this.newSession(info);
      this.revs.set(name, 0);
      await this.saveSession(s);
      this.sessions.set(name, s);
      this.sessionsChanged();
    });
  }

  /** Destroys a named session: its owner may, and an administrator may even with unactivated changes. */
  async destroySession(name: string, user: string, isAdmin: boolean): Promise<void> {
    return this.exclusive(async () => {
      const s = this.session(name);
      if (name === DEFAULT_SESSION) throw badRequest('The default edit session cannot be destroyed.');
      const mine = s.info.creator === user || s.info.owner === user;
      if (!isAdmin && !mine) throw forbidden(`Only the creator of the edit session '${name}' or an administrator may destroy it.`);
      if (!isAdmin && s.hasChanges) throw badRequest(`The edit session '${name}' has unactivated changes; activate or cancel them first (an administrator may destroy it anyway).`);
      await this.store.deleteSession(name);
      this.sessions.delete(name);
      this.saved.delete(name);
      this.sessionsChanged();
      this.wake();
    });
  }

  // ---- idle named sessions ----

  /** When a session was last used: saved, or (written before this was recorded) when this server read it. */
  private lastUse(s: EditSession): number {
    return s.info.touched ?? this.loadedAt;
  }

  /** Discards the named sessions idle for longer than the limit, releasing their locks. Inside `exclusive`. */
  private async expireIdleLocked(): Promise<void> {
    const before = this.now() - this.sessionLimits.idleMs;
    for (const s of [...this.sessions.values()]) {
      if (s.info.name === DEFAULT_SESSION || this.lastUse(s) > before) continue;
      const { name, owner } = s.info;
      const dropped = s.changes.size;
      await this.store.deleteSession(name);
      this.sessions.delete(name);
      this.saved.delete(name);
      this.revs.delete(name);
      this.sessionsChanged();
      this.wake();
      await this.onLockEvent({ session: name, holder: owner ?? '', event: 'expired', dropped });
    }
  }

  /** Discards idle named sessions now (when there are any). */
  async expireIdle(): Promise<void> {
    const before = this.now() - this.sessionLimits.idleMs;
    if (![...this.sessions.values()].some((s) => s.info.name !== DEFAULT_SESSION && this.lastUse(s) <= before)) return;
    await this.exclusive(() => this.expireIdleLocked());
  }

  /** Looks for idle named sessions from now on, every ten minutes (or the idle limit, when shorter). */
  startIdleExpiry(onError: (err: unknown) => void = () => {}): { stop(): void } {
    let timer: { cancel(): void } | undefined;
    let stopped = false;
    const next = () => {
      if (stopped) return;
      timer = this.scheduler.after(Math.max(1000, Math.min(IDLE_SWEEP_MS, this.sessionLimits.idleMs)), () => {
        next();
        this.expireIdle().catch(onError);
      });
    };
    next();
    return {
      stop: () => {
        stopped = true;
        timer?.cancel();
      },
    };
  }

  // ---- the change manager ----

  changeManagerValues(s: EditSession): Record<string, unknown> {
    const locked = s.info.owner !== null;
    return {
      locked,
      lockOwner: locked ? s.info.owner : undefined,
      hasChanges: locked ? s.hasChanges : undefined,
      mergeNeeded: this.mergeNeeded(s),
      editSession: s.info.name,
      pendingChanges: this.pendingChanges(s),
    };
  }

  /**
   * The session's unactivated changes, bean by bean and property by property (old value, new
   * value, restart needed), exactly as activating now would record them; nothing is validated.
   */
  pendingChanges(s: EditSession): ChangeSummary[] {
    if (!s.hasChanges) return [];
    return this.plan(this.copyOf(s), false).summaries;
  }

  /** A copy of a session to plan on: planning adds the clean-ups activation makes, which must not touch the real one. */
  private copyOf(s: EditSession): EditSession {
    const copy = this.newSession({ ...s.info });
    copy.restore(structuredClone([...s.changes]));
    return copy;
  }

  /**
   * Takes the session's edit lock for `user`. While another user holds it, waits up to `waitTime`
   * (without holding anything up) for it to be released or to lapse, then refuses. The lock lapses
   * `timeOut` ms after it is taken (-1: never); a startEdit by the holder renews it.
   */
  async startEdit(user: string, sessionName: string, opts: StartEditOptions = {}): Promise<void> {
    const timeOut = opts.timeOut ?? -1;
    if (!Number.isSafeInteger(timeOut) || (timeOut < 1 && timeOut !== -1)) {
      throw badRequest(`The timeOut of startEdit must be -1 (no limit) or a number of milliseconds above 0, not ${timeOut}.`, 'timeOut');
    }
    const waitTime = opts.waitTime ?? 0;
    if (!Number.isSafeInteger(waitTime) || waitTime < -1) {
      throw badRequest(`The waitTime of startEdit must be a number of milliseconds (0 or more), or -1 for the longest wait (${MAX_LOCK_WAIT_MS} ms), not ${waitTime}.`, 'waitTime');
    }
    const deadline = this.now() + (waitTime === -1 ? MAX_LOCK_WAIT_MS : Math.min(waitTime, MAX_LOCK_WAIT_MS));
    for (;;) {
      const held = await this.exclusive(async () => {
        const s = this.session(sessionName);
        await this.expireLocked(s);
        if (s.info.owner !== null && s.info.owner !== user) return { session: s, until: s.info.lockExpires ?? null };
        const expires = timeOut === -1 ? null : this.now() + timeOut;
        if (s.info.owner === user && (s.info.lockExpires ?? null) === expires) return undefined;
        if (s.info.owner === null && !s.hasChanges) s.info.baseVersion = this.version;
        s.info.owner = user;
        s.info.lockExpires = expires;
        await this.saveSession(s);
        return undefined;
      });
      if (!held) return;
      const left = deadline - this.now();
      if (left <= 0) throw lockedBy(held.session);
      const mine = [...this.waiters].filter((w) => w.user === user).length;
      if (mine >= MAX_WAITS_PER_USER || this.waiters.size >= MAX_WAITS) {
        throw badRequest(`${lockedBy(held.session).message} Too many startEdits wait already (${mine} of yours, ${this.waiters.size} in all); retry later.`);
      }
      // Wakes when a lock is released here or on another server, when this one lapses, or at the deadline.
      await this.waitForRelease(user, held.until === null ? left : Math.min(left, held.until - this.now()), opts.signal);
    }
  }

  private waitForRelease(user: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (err?: Problem) => {
        timer.cancel();
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', abort);
        if (err) reject(err);
        else resolve();
      };
      const waiter = { user, wake: () => finish(), end: (err: Problem) => finish(err) };
      const abort = () => finish(badRequest('The client went away while startEdit waited for the edit lock.'));
      const timer = this.scheduler.after(Math.max(0, ms), waiter.wake);
      this.waiters.add(waiter);
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /** Wakes every startEdit waiting for a lock (one was released, or may have been). */
  private wake(): void {
    for (const w of [...this.waiters]) w.wake();
  }

  private now(): number {
    return this.scheduler.now();
  }

  /** Whether the session's lock ran out of time (it is released at the next look). */
  /** Whether a lock's time ran out (its session is released by the next `expireLapsed`). */
  anyLapsed(): boolean {
    for (const s of this.sessions.values()) if (this.lapsed(s)) return true;
    return false;
  }

  private lapsed(s: EditSession): boolean {
    const expires = s.info.lockExpires;
    return s.info.owner !== null && typeof expires === 'number' && expires <= this.now();
  }

  /** Releases the session's lock if it lapsed, dropping its unactivated changes. Inside `exclusive`. */
  private async expireLocked(s: EditSession): Promise<void> {
    if (!this.lapsed(s)) return;
    const holder = s.info.owner!;
    const dropped = s.changes.size;
    this.release(s);
    await this.saveSession(s);
    await this.onLockEvent({ session: s.info.name, holder, event: 'lapsed', dropped });
  }

  /** Releases every lapsed lock; costs a look at each session when none has lapsed. */
  async expireLapsed(): Promise<void> {
    if (!this.anyLapsed()) return;
    await this.exclusive(async () => {
      for (const s of [...this.sessions.values()]) await this.expireLocked(s);
    });
  }

  /** Unlocks a session and drops its changes (in memory; the caller saves it). */
  private release(s: EditSession): void {
    s.clear();
    s.info.owner = null;
    s.info.lockExpires = null;
    s.info.baseVersion = this.version;
    this.wake();
  }

  async cancelEdit(user: string, sessionName: string): Promise<void> {
    return this.exclusive(async () => {
      const s = this.session(sessionName);
      await this.expireLocked(s);
      if (s.info.owner === null) return;
      if (s.info.owner !== user) throw lockedBy(s);
      this.release(s);
      await this.saveSession(s);
    });
  }

  /**
   * An administrator takes over the lock, whoever holds it, with its unactivated changes (to
   * review, activate or cancel). Returns the former holder (null when the lock was free) and the
   * number of changes taken over.
   */
  async takeOverEdit(user: string, sessionName: string, timeOut = -1): Promise<{ holder: string | null; changes: number }> {
    if (!Number.isSafeInteger(timeOut) || (timeOut < 1 && timeOut !== -1)) {
      throw badRequest(`The timeOut of takeOverEdit must be -1 (no limit) or a number of milliseconds above 0, not ${timeOut}.`, 'timeOut');
    }
    return this.exclusive(async () => {
      const s = this.session(sessionName);
      await this.expireLocked(s);
      const holder = s.info.owner;
      if (holder === null && !s.hasChanges) s.info.baseVersion = this.version;
      s.info.owner = user;
      s.info.lockExpires = timeOut === -1 ? null : this.now() + timeOut;
      await this.saveSession(s);
      return { holder, changes: s.changes.size };
    });
  }

  /** An administrator releases the lock, whoever holds it, and drops its changes. */
  async forceCancelEdit(sessionName: string): Promise<{ holder: string | null; changes: number }> {
    return this.exclusive(async () => {
      const s = this.session(sessionName);
      await this.expireLocked(s);
      const holder = s.info.owner;
      const changes = s.changes.size;
      if (holder === null && changes === 0) return { holder, changes };
      this.release(s);
      await this.saveSession(s);
      return { holder, changes };
    });
  }

  /** Ends the waiting startEdits of users that no longer exist (removed, perhaps through another server). */
  endWaitsOfRemoved(exists: (user: string) => boolean): void {
    for (const w of [...this.waiters]) if (!exists(w.user)) w.end(badRequest(`The user '${w.user}' was removed while its startEdit waited for the edit lock.`));
  }

  /** Releases the locks a removed user held (and drops their changes); its waiting startEdits end. */
  async releaseLocksOf(user: string): Promise<void> {
    this.endWaitsOfRemoved((u) => u !== user);
    if (![...this.sessions.values()].some((s) => s.info.owner === user)) return;
    await this.exclusive(async () => {
      for (const s of [...this.sessions.values()]) {
        if (s.info.owner !== user) continue;
        const dropped = s.changes.size;
        this.release(s);
        await this.saveSession(s);
        await this.onLockEvent({ session: s.info.name, holder: user, event: 'released', dropped });
      }
    });
  }

  /**
   * Activates the session's changes. A dry run judges everything a real activation judges at this
   * moment (the lock, merges, references, the request's conditions) and answers what it would
   * record, applying nothing: no configuration version, no lock change, no record, no runtime effect.
   */
  async activate(user: string, sessionName: string, opts: ActivateOptions = {}): Promise<ActivationResult> {
    return this.exclusive(async () => {
      const s = this.session(sessionName);
      await this.expireLocked(s);
      opts.precondition?.();
      if (s.info.owner !== user) {
        if (s.info.owner === null) throw badRequest(`Not edit lock owner: there are no changes to activate in the edit session '${s.info.name}' (start an edit with changeManager/startEdit first).`);
        throw lockedBy(s);
      }
      if (opts.dryRun) {
        const plan = this.plan(this.copyOf(s), true);
        return { version: this.version + 1, changes: plan.summaries, restartRequired: plan.restartRequired, keys: plan.keys };
      }
      return this.activateLocked(s, user);
    });
  }

  async resolve(user: string, sessionName: string, force: boolean): Promise<void> {
    return this.exclusive(async () => {
      const s = this.session(sessionName);
      await this.expireLocked(s);
      if (s.info.owner !== user) throw notEditor('resolve');
      if (!force) {
        const conflicts = this.propertyConflicts(s);
        if (conflicts.length > 0) {
          throw invalid(conflicts.map((c) => ({ path: c.prop, detail: `Both this edit session and an activation since it began changed ${c.what}; use forceResolve to keep this session's value.` })));
        }
      } else {
        // Changes to beans that others removed meanwhile cannot be kept: drop them.
        for (const [key, change] of [...s.changes]) {
          if (change.op === 'update' && !this.config.bean(key) && this.wasRemovedSince(s, key)) s.changes.delete(key);
        }
      }
      s.info.baseVersion = this.version;
      await this.saveSession(s);
    });
  }

  // ---- writes ----

  /** Whether a write by `user` in the session would run as an implicit session (activated at once). */
  isImplicit(user: string, sessionName: string): boolean {
    const s = this.session(sessionName);
    return s.info.owner !== user || this.lapsed(s);
  }

  /** A child property of the domain bean (for writes made by runtime operations). */
  domainProp(name: string): PropDef {
    const p = this.catalog.type('appserver.management.configuration.DomainMBean').prop.get(name);
    if (!p) throw new Error(`the domain has no child ${name}`);
    return p;
  }

  /** The domain bean as the owner of top-level collections (for writes made by runtime operations). */
  domainOwner(sessionName: string): Owner {
    const record = this.session(sessionName).bean('');
    return { key: '', identity: [], ...(record ? { record } : {}) };
  }

  /**
   * Runs a write in the session: joins the caller's open session, or runs as an implicit session.
   * `precondition` (the request's If-Match...) is judged first, inside the same turn as the write,
   * and again whenever another server's change makes the write run once more.
   */
  private async write<T>(user: string, sessionName: string, apply: (s: EditSession) => T, precondition?: () => void): Promise<T> {
    return this.exclusive(async () => {
      const s = this.session(sessionName);
      await this.expireLocked(s);
      precondition?.();
      if (s.info.owner === user) {
        const result = apply(s);
        await this.saveSession(s);
        return result;
      }
      this.checkNotLocked(s, user);
      // Nobody holds the lock: start, apply and activate in one go, or leave nothing behind.
      s.info.owner = user;
      s.info.baseVersion = this.version;
      s.info.lockExpires = null;
      try {
        const result = apply(s);
        await this.activateLocked(s, user);
        return result;
      } catch (err) {
        s.clear();
        s.info.owner = null;
        throw err;
      }
    });
  }

  /**
   * Creates an item of a child collection (or an optional singleton); returns the new bean's identity.
   * `admin`: whether the writer holds the Admin role (connection settings need it).
   */
  async create(user: string, sessionName: string, owner: Owner, prop: PropDef, body: Record<string, unknown>, precondition?: () => void, admin = true): Promise<string[]> {
    return this.write(user, sessionName, (s) => this.createIn(s, owner, prop, body, { user, admin }), precondition);
  }

  /** Partial update of a bean (materialising an always-present singleton if need be). */
  async update(user: string, sessionName: string, node: BeanNode, body: Record<string, unknown>, precondition?: () => void, admin = true): Promise<void> {
    return this.write(user, sessionName, (s) => this.updateIn(s, node, node.type, body, { user, admin }), precondition);
  }

  /** Deletes a collection item or an optional singleton, clearing the references to it. */
  async delete(user: string, sessionName: string, node: Owner, prop: PropDef, precondition?: () => void, admin = true): Promise<void> {
    return this.write(user, sessionName, (s) => this.deleteIn(s, node, prop, { user, admin }), precondition);
  }

  /**
   * Several writes as one unit: in the caller's session, or activated together (or not at all)
   * when the caller holds no lock. Beans are named by identity.
   */
  async transaction<T>(user: string, sessionName: string, fn: (tx: EditTransaction) => T): Promise<T> {
    return this.write(user, sessionName, (s) => {
      const ownerOf = (identity: readonly string[]) => {
        const key = keyOfIdentity(identity);
        const record = s.bean(key);
        if (!record) throw badRequest(`There is no bean ${JSON.stringify(identity)}.`);
        return { owner: { key, identity: [...identity], record }, type: this.catalog.type(record.type) };
      };
      const childProp = (type: TypeDef, name: string) => {
        const p = type.prop.get(name);
        if (!p || (p.shape !== 'collection' && p.shape !== 'singleton')) throw badRequest(`${type.short} has no child '${name}'.`);
        return p;
      };
      return fn({
        exists: (identity) => s.bean(keyOfIdentity(identity)) !== undefined,
        create: (parent, collection, body) => {
          const { owner, type } = ownerOf(parent);
          return this.createIn(s, owner, childProp(type, collection), body);
        },
        update: (identity, body) => {
          const { owner, type } = ownerOf(identity);
          this.updateIn(s, owner, type, body);
        },
        delete: (identity) => {
          const { type } = ownerOf(identity.slice(0, -2));
          const { owner } = ownerOf(identity);
          this.deleteIn(s, owner, childProp(type, identity[identity.length - 2]!));
        },
      });
    });
  }

  private createIn(s: EditSession, owner: Owner, prop: PropDef, body: Record<string, unknown>, writer: Writer = SYSTEM): string[] {
    const type = this.creatableType(prop, body.type);
    if (!writer.admin) {
      const whole = adminOnlyBean(this.behaviours, type);
      if (whole !== undefined) throw adminOnly(writer, `create a ${type.short} in '${prop.name}'`, whole);
      const guarded = adminOnlyChanges(this.behaviours, type, Object.keys(body).filter((k) => body[k] !== undefined && body[k] !== null));
      if (guarded) throw adminOnly(writer, `set ${quoted(guarded.names)} of a ${type.short}`, guarded.what);
    }
    const collection = prop.shape === 'collection';
    const keyProp = type.keyProp;
    const name = collection ? body[keyProp] : (body[keyProp] ?? owner.record?.values.name ?? owner.parentName ?? prop.name);
    if (name === undefined) throw invalid([{ path: keyProp, detail: `A new ${type.short} needs a '${keyProp}'.` }]);
    const problem = nameProblem(name);
    if (problem) throw invalid([{ path: keyProp, detail: `The ${keyProp} ${problem}.` }]);
    const cKey = childKey(owner.key, prop.name);
    const key = collection ? itemKey(cKey, name as string) : cKey;
    if (s.bean(key)) {
      throw invalid([{ path: keyProp, detail: collection ? `A ${type.short} named '${String(name)}' already exists in ${prop.name}.` : `'${prop.name}' already exists; POST to it updates it.` }]);
    }
    const values = validateWrite(this.writeContext(s), type, { ...body, [keyProp]: name }, undefined);
    s.recordCreate(key, type.name, values.set, collection ? cKey : null, collection ? (name as string) : null);
    return collection ? [...owner.identity, prop.name, name as string] : [...owner.identity, prop.name];
  }

  private updateIn(s: EditSession, node: Owner, type: TypeDef, body: Record<string, unknown>, writer: Writer = SYSTEM): void {
    // Rules spanning beans first (the domain must name an administration server it has).
    checkUpdate(this.behaviours, type, s, node.key, body);
    const current = s.bean(node.key);
    // What a GET shows of the bean beyond its stored values (derived references...) may be echoed back.
    const echoes = Object.keys(body).some((k) => type.prop.get(k)?.writable === false);
    const shown = echoes ? configurationValues(this.behaviours, { type, key: node.key, identity: node.identity, scope: {}, ...(current ? { record: current } : {}) }, new ConfigIndex(s)) : undefined;
    const values = validateWrite(this.writeContext(s), type, body, { ...shown, ...current?.values, [type.keyProp]: current?.values[type.keyProp] ?? node.parentName });
    if (Object.keys(values.set).length === 0 && values.unset.length === 0) return;
    const before = current?.values ?? {};
    if (!writer.admin) {
      // Only what really changes counts: a body that echoes a connection setting unchanged is taken.
      const now = (k: string) => (before[k] !== undefined ? before[k] : type.prop.get(k)?.defaultValue);
      const changed = [...Object.keys(values.set).filter((k) => !sameValue(now(k), values.set[k])), ...values.unset.filter((k) => before[k] !== undefined)];
      const guarded = adminOnlyChanges(this.behaviours, type, changed);
      if (guarded) throw adminOnly(writer, `change ${quoted(guarded.names)} of ${type.short}`, guarded.what);
    }
    const moved = connectionSettings(this.behaviours, type)?.moved;
    if (moved) {
      const after: Record<string, unknown> = { ...before, ...values.set };
      for (const k of values.unset) delete after[k];
      for (const d of moved(s, node.key, before, after, new Set([...Object.keys(values.set), ...values.unset]))) {
        if (d.key === node.key) {
          for (const k of d.unset) if (!values.unset.includes(k)) values.unset.push(k);
          continue;
        }
        const other = s.bean(d.key);
        if (other) s.recordUpdate(d.key, other.type, {}, d.unset);
      }
    }
    s.recordUpdate(node.key, type.name, values.set, values.unset);
  }

  private deleteIn(s: EditSession, node: Owner, prop: PropDef, writer: Writer = SYSTEM): void {
    // Protected beans first (the administration server).
    const type = this.typeAt(s, node.key);
    if (type) checkDelete(this.behaviours, type, s, node.key);
    const whole = type && !writer.admin ? adminOnlyBean(this.behaviours, type) : undefined;
    if (type && whole !== undefined) throw adminOnly(writer, `remove a ${type.short}`, whole);
    if (prop.shape === 'singleton' && !prop.optional) {
      throw badRequest(`'${prop.name}' always exists and cannot be deleted; POST to it to change its properties.`);
    }
    const collection = prop.shape === 'collection' ? upKey(node.key) : null;
    if (collection !== null && prop.creators.length === 0 && !this.deployableIn(s, ownerKey(node.key, collection), prop)) {
      throw badRequest(`Items of '${prop.name}' cannot be deleted through this collection.`);
    }
    this.clearReferencesTo(s, node.key);
    s.recordDelete(node.key, collection, collection !== null ? node.identity[node.identity.length - 1]! : null);
  }

  /** Whether the items of the collection `prop` of the bean at `owner` are made and removed by deployments. */
  private deployableIn(s: EditSession, owner: string, prop: PropDef): boolean {
    const type = this.typeAt(s, owner);
    return type !== undefined && deployable(this.behaviours, type, prop.name) !== undefined;
  }

  private creatableType(prop: PropDef, requested: unknown): TypeDef {
    const creators = prop.creators.map((c) => this.catalog.type(c));
    const candidates = creators.flatMap((c) => [c, ...c.subtypes]).filter((t) => !needsChosenType(t));
    if (requested === undefined) {
      const made = creators[0] ?? this.catalog.type(prop.javaType);
      if (!needsChosenType(made)) return made;
      const allowed = [...new Set(candidates.map((t) => t.discriminator))].join(', ');
      throw invalid([{ path: 'type', detail: `A new item of '${prop.name}' must name its 'type', one of: ${allowed}.` }]);
    }
    if (typeof requested !== 'string') throw invalid([{ path: 'type', detail: 'The type must be a string.' }]);
    const found = candidates.find((t) => t.discriminator === requested || t.short === requested || t.name === requested);
    if (!found) {
      const allowed = [...new Set(candidates.map((t) => t.discriminator))].join(', ');
      throw invalid([{ path: 'type', detail: `'${requested}' cannot be created in '${prop.name}'; the type must be one of: ${allowed}.` }]);
    }
    return found;
  }

  private writeContext(s: EditSession) {
    return { catalog: this.catalog, behaviours: this.behaviours, secrets: this.secrets, lookup: (key: string) => s.bean(key) };
  }

  /** Removes references to the bean at `key` (and below) from every bean in the session's view. */
  private clearReferencesTo(s: EditSession, key: string): void {
    const doomed = (target: string) => isWithin(target, key);
    const candidates = new Map<string, Set<string>>();
    for (const k of this.config.subtree(key)) {
      for (const r of this.refs.referrers(k)) candidates.set(r.key, (candidates.get(r.key) ?? new Set()).add(r.prop));
    }
    for (const [k, change] of s.changes) {
      const record = change.op === 'create' ? { type: change.type, values: change.values } : change.op === 'update' ? s.bean(k) : undefined;
      if (!record) continue;
      for (const [prop, target] of this.refs.targetsOf(record)) {
        if (doomed(target)) candidates.set(k, (candidates.get(k) ?? new Set()).add(prop));
      }
    }
    for (const [referrer, props] of candidates) {
      if (isWithin(referrer, key)) continue;
      const record = s.bean(referrer);
      if (!record) continue;
      const set: Record<string, unknown> = {};
      const unset: string[] = [];
      for (const prop of props) {
        const v = record.values[prop];
        if (Array.isArray(v) && Array.isArray(v[0])) set[prop] = (v as string[][]).filter((id) => !doomed(keyOfIdentity(id)));
        else if (Array.isArray(v) && doomed(keyOfIdentity(v as string[]))) unset.push(prop);
      }
      s.recordUpdate(referrer, record.type, set, unset);
    }
  }

  /**
   * The type of the bean at `key` in the session's view: a stored bean's, or that of an
   * always-present singleton of a bean that exists. Undefined when nothing is there.
   */
  private typeAt(s: EditSession, key: string): TypeDef | undefined {
    if (key === '') return this.catalog.type('appserver.management.configuration.DomainMBean');
    const record = s.bean(key);
    if (record) return this.catalog.types.get(record.type);
    const owner = this.typeAt(s, upKey(key));
    const p = owner?.prop.get(lastSegment(key));
    return p && p.shape === 'singleton' && !p.optional ? this.catalog.types.get(p.javaType) : undefined;
  }

  private checkNotLocked(s: EditSession, user: string): void {
    if (s.info.owner !== null && s.info.owner !== user) throw lockedBy(s);
  }

  // ---- activation ----

  /**
   * What activating the session writes, and the record it makes. Adds to the session the clean-ups
   * an activation makes (references to deleted beans, updates of beans removed meanwhile). With
   * `check`, refuses what activation refuses (a merge needed, references to beans gone).
   */
  private plan(s: EditSession, check: boolean): ActivationPlan {
    const conflicts = check ? this.conflictingKeys(s) : [];
    if (conflicts.length > 0) {
      throw badRequest(
        `The edit session '${s.info.name}' needs a merge: activations since it began changed ${conflicts.slice(0, 5).map(describeKey).join(', ')}${conflicts.length > 5 ? ', ...' : ''}. Call safeResolve (or forceResolve) on the change manager, then activate.`,
      );
    }
    // References made since a delete was recorded (by activations of other sessions) go too.
    for (const [key, change] of [...s.changes]) if (change.op === 'delete') this.clearReferencesTo(s, key);
    // An update of a bean another activation removed meanwhile has nothing left to update.
    for (const [key, change] of [...s.changes]) {
      if (change.op === 'update' && !this.config.bean(key) && !this.typeAt(s, key)) s.changes.delete(key);
    }
    if (check) this.validateReferences(s);
    const ordered = [...s.changes].sort(([a], [b]) => depthOfKey(a) - depthOfKey(b));
    const write: BeanChanges = { put: [], remove: [] };
    const summaries: ChangeSummary[] = [];
    let restartRequired = false;
    const puts: [StoredBean, BeanRecord | undefined][] = [];
    for (const [key, change] of ordered) {
      const before = this.config.bean(key);
      const identity = identityOfKey(key);
      if (change.op === 'delete') {
        write.remove.push(key);
        summaries.push({ operation: 'delete', identity, type: this.shortOf(before?.type) });
        continue;
      }
      if (change.op === 'create') {
        if (before) write.remove.push(key);
        const ord = change.collection !== null ? this.config.nextOrd(change.collection) + puts.filter(([b]) => b.collection === change.collection).length : 0;
        puts.push([{ key, collection: change.collection, name: change.name, ord, type: change.type, values: change.values }, undefined]);
        summaries.push({ operation: 'create', identity, type: this.shortOf(change.type), properties: this.diff(change.type, {}, change.values) });
        restartRequired ||= this.needsRestart(change.type, Object.keys(change.values));
        continue;
      }
      const values: Record<string, unknown> = { ...before?.values, ...change.set };
      for (const u of change.unset) delete values[u];
      const place = this.config.placementOf(key);
      const type = before?.type ?? change.type;
      puts.push([{ key, collection: place?.[0] ?? null, name: place?.[1] ?? null, ord: place?.[2] ?? 0, type, values }, before]);
      const props = [...Object.keys(change.set), ...change.unset];
      summaries.push({ operation: 'modify', identity, type: this.shortOf(type), properties: this.diff(type, before?.values ?? {}, values, props) });
      restartRequired ||= this.needsRestart(type, props);
    }
    write.put = puts.map(([b]) => b);
    return { write, summaries, restartRequired, puts, keys: ordered.map(([k]) => k) };
  }

  private async activateLocked(s: EditSession, user: string): Promise<ActivationResult> {
    const startTime = Date.now();
    const { write, summaries, restartRequired, puts, keys } = this.plan(s, true);
    const nextVersion = this.version + 1;
    const after: StoredSession = { ...stored(s), changes: [], info: { ...s.info, owner: null, lockExpires: null, baseVersion: nextVersion } };
    const record: Omit<ActivationRecord, 'id'> = {
      version: nextVersion,
      editSession: s.info.name,
      user,
      startTime,
      endTime: Date.now(),
      restartRequired,
      changes: summaries,
    };
    let activated: { id: number; sessionRev: number };
    try {
      activated = await this.store.activate({ config: write, session: after, record }, this.version, this.revs.get(s.info.name) ?? 0);
    } catch (err) {
      // Planning tidied the session in memory; the store kept it as it was.
      if (isStoreFailure(err)) this.revertSession(s.info.name);
      throw err;
    }
    const { id, sessionRev } = activated;
    this.revs.set(s.info.name, sessionRev);
    this.saved.set(s.info.name, JSON.stringify({ info: after.info, changes: [] }));
    this.records.unshift({ ...record, id });
    if (this.records.length > LISTED_ACTIVATIONS) this.records.pop();
    // The store holds the new configuration: now the memory follows.
    for (const l of this.beforeListeners) l(summaries);
    for (const key of write.remove) {
      for (const k of this.config.subtree(key)) this.refs.remove(k, this.config.bean(k));
      this.config.remove(key);
    }
    for (const [b, before] of puts) {
      this.refs.remove(b.key, before ?? undefined);
      const record = { type: b.type, values: b.values };
      this.config.putRaw(b.key, record, b.collection, b.name, b.ord);
      this.refs.add(b.key, record);
    }
    this.version = nextVersion;
    this.recent.push(touchedBy(nextVersion, summaries));
    if (this.recent.length > MAX_REMEMBERED_ACTIVATIONS) this.recent.shift();
    s.clear();
    s.info.owner = null;
    s.info.lockExpires = null;
    s.info.baseVersion = nextVersion;
    this.wake();
    const result: ActivationResult = { id, version: nextVersion, changes: summaries, restartRequired, keys };
    for (const l of this.listeners) await l(result);
    return result;
  }

  async activations(limit = 100): Promise<ActivationRecord[]> {
    return this.store.activations(limit);
  }

  /** Every reference the session sets must still point at a bean when it is activated. */
  private validateReferences(s: EditSession): void {
    const problems: { path: string; detail: string }[] = [];
    for (const [key, change] of s.changes) {
      if (change.op === 'delete') continue;
      const record = s.bean(key);
      if (!record) continue;
      const fields = change.op === 'create' ? Object.keys(change.values) : Object.keys(change.set);
      for (const [prop, target] of this.refs.targetsOf(record)) {
        if (fields.includes(prop) && !s.bean(target)) {
          problems.push({ path: prop, detail: `${describeKey(key)} refers to ${describeKey(target)}, which no longer exists.` });
        }
      }
    }
    if (problems.length > 0) throw invalid(problems);
  }

  /** Keys the session changed that activations since it began also changed. */
  private conflictingKeys(s: EditSession): string[] {
    const since = this.recent.filter((t) => t.version > s.info.baseVersion);
    // Activations too old to be remembered may have touched anything: assume they did.
    if (this.forgotten(s)) return [...s.changes.keys()];
    if (since.length === 0) return [];
    const out: string[] = [];
    for (const key of s.changes.keys()) {
      if (since.some((t) => [...t.keys.keys()].some((k) => k === key || (t.keys.get(k) === '*' && (isWithin(key, k) || isWithin(k, key)))))) out.push(key);
    }
    return out;
  }

  /** Whether activations the session has not seen are no longer remembered. */
  private forgotten(s: EditSession): boolean {
    const oldest = this.recent[0]?.version ?? this.version + 1;
    return s.hasChanges && s.info.baseVersion < this.version && s.info.baseVersion + 1 < oldest;
  }

  /** Property-level conflicts: both sides changed the same property, or one side removed the bean. */
  private propertyConflicts(s: EditSession): { prop: string; what: string }[] {
    const since = this.recent.filter((t) => t.version > s.info.baseVersion);
    const out: { prop: string; what: string }[] = [];
    if (this.forgotten(s)) return [...s.changes.keys()].map((k) => ({ prop: identityOfKey(k).join('/'), what: `${describeKey(k)} (activations since this session began are too old to compare)` }));
    for (const [key, change] of s.changes) {
      for (const t of since) {
        for (const [k, props] of t.keys) {
          if (k !== key && !(props === '*' && isWithin(key, k))) continue;
          if (props === '*' || change.op !== 'update') {
            out.push({ prop: identityOfKey(key).join('/'), what: describeKey(key) });
            continue;
          }
          for (const p of [...Object.keys(change.set), ...change.unset]) {
            if (props.has(p)) out.push({ prop: p, what: `'${p}' of ${describeKey(key)}` });
          }
        }
      }
    }
    return out;
  }

  private wasRemovedSince(s: EditSession, key: string): boolean {
    return this.recent.some((t) => t.version > s.info.baseVersion && [...t.keys].some(([k, v]) => v === '*' && isWithin(key, k)));
  }

  private diff(typeName: string, before: Record<string, unknown>, after: Record<string, unknown>, only?: string[]) {
    const type = this.catalog.types.get(typeName);
    const names = only ?? Object.keys(after);
    return names.map((name) => {
      const p = type?.prop.get(name);
      const hide = p?.encrypted === true;
      return {
        name,
        oldValue: hide ? null : (before[name] ?? null),
        newValue: hide ? null : (after[name] ?? null),
        restartRequired: p?.restartNeeded === true,
      };
    });
  }

  private needsRestart(typeName: string, props: string[]): boolean {
    const type = this.catalog.types.get(typeName);
    return props.some((p) => type?.prop.get(p)?.restartNeeded === true);
  }

  private shortOf(typeName: string | undefined): string {
    return (typeName && this.catalog.types.get(typeName)?.short) || 'unknown';
  }
}

/** The keys and properties one activation touched, from its record. */
function touchedBy(version: number, changes: ChangeSummary[]): Touched {
  const keys = new Map<string, Set<string> | '*'>();
  for (const c of changes) {
    const key = keyOfIdentity(c.identity);
    keys.set(key, c.operation === 'modify' ? new Set((c.properties ?? []).map((p) => p.name)) : '*');
  }
  return { version, keys };
}

function stored(s: EditSession): StoredSession {
  return { name: s.info.name, info: s.info, changes: [...s.changes] };
}




function lockedBy(s: EditSession): Problem {
  return badRequest(`The edit session '${s.info.name}' is locked by user '${s.info.owner}'; only that user can change the configuration through it until it is activated or cancelled (or use another edit session).`);
}

function notEditor(what: string): Problem {
  return invalid([
    { detail: `Not edit lock owner: start an edit (changeManager/startEdit) before you ${what}.` },
    { detail: 'Failed to resolve the changes in this edit session with the global configuration.' },
  ]);
}

/** Who makes a change, as the configuration's own rules judge it. */
interface Writer {
  user: string;
  /** Holds the Admin role: may change connection settings. */
  admin: boolean;
}

/** The server's own changes (and those of callers checked before): every right. */
const SYSTEM: Writer = { user: '', admin: true };

function adminOnly(writer: Writer, act: string, what: string): Problem {
  return forbidden(`User '${writer.user}' may not ${act}: ${what} change only with the Admin role. Nothing was changed.`);
}

const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
