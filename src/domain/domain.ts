// The domain: its activated configuration, its runtime and its security realm, loaded from the
// store (or created from the demo template on first start).
import { randomUUID } from 'node:crypto';
import type { Catalog } from '../catalog/load.js';
import { standardBehaviours } from '../behaviour/index.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { type ActivationResult, ConfigService } from '../config/config-service.js';
import { type GivenKey, type SecretKeySource, settleSecretKey } from '../config/secret-key.js';
import { Secrets } from '../config/secrets.js';
import { Topology } from '../config/topology.js';
import { LifecycleService } from '../lifecycle/service.js';
import { Deployments } from '../runtime/deployments.js';
import { RuntimeEngine } from '../runtime/engine.js';
import { DEFAULT_TIMINGS, type LifecycleTimings, Lifecycles } from '../runtime/lifecycle.js';
import { RealScheduler, type Scheduler } from '../core/clock.js';
import { TaskEngine } from '../runtime/tasks.js';
import { type RuntimeState, emptyRuntimeState, entriesToState, settleInterrupted, settleTarget, stateToEntries } from '../runtime/state.js';
import { AuditLog } from '../security/audit.js';
import { DEFAULT_LOCKOUT, type LockoutPolicy, Lockouts } from '../security/lockout.js';
import { generatePassword } from '../security/passwords.js';
import { SecurityService } from '../security/service.js';
import { COMPONENTS, type Component, type Store, type StoredBean, type StoredTask } from '../store/store.js';
import type { Task } from '../runtime/tasks.js';
import { BeanTree } from '../tree/records.js';
import { childKey, keyOfIdentity } from '../core/identity.js';
import { demoDomain } from './demo.js';
import { type DomainSize, generateDomain } from './generate.js';

export interface DomainOptions {
  adminUser?: string | undefined;
  adminPassword?: string | undefined;
  domainName?: string;
  listenAddress: string;
  listenPort: number;
  now?: () => number;
  /** What a new data directory starts with: the demo domain (default) or a generated one. */
  template?: 'demo' | DomainSize;
  /** Clock of lifecycle tasks (tests pass a manual one). */
  scheduler?: Scheduler;
  timings?: Partial<LifecycleTimings>;
  /** Where the key of sealed values comes from (never the store), and the key found there if any. */
  secretKey: SecretKeySource;
  givenKey: GivenKey | undefined;
  /**
   * Given a generated administrator password before the new domain stores it: if it throws, the
   * domain is not created.
   */
  revealPassword?: (user: string, password: string) => void | Promise<void>;
}

export interface OpenedDomain {
  domain: Domain;
  /** The first administrator of a new domain. */
  adminUser?: string;
  /** Set when a new domain was created with a generated administrator password. */
  generatedPassword?: string;
  created: boolean;
}

const CONFIG_TREE = 'config';
/** How often a server sharing a store says it is alive. */
const HEARTBEAT_MS = 5000;

export class Domain {
  readonly tasks: TaskEngine;
  readonly lifecycles: Lifecycles;
  readonly deployments: Deployments;
  readonly lifecycle: LifecycleService;
  private stateWrites: Promise<void> = Promise.resolve();
  /** The runtime state entries as last written or read (JSON per key). */
  private persisted = new Map<string, string>();
  /** Component versions of the shared store this server has caught up with. */
  private seen: Partial<Record<Component, number>> = {};
  private syncing: Promise<void> | undefined;
  private syncAgain = false;

  private constructor(
    readonly catalog: Catalog,
    /** What the domain's bean types do beyond what the catalog says. */
    readonly behaviours: BehaviourRegistry,
    readonly store: Store,
    readonly configService: ConfigService,
    readonly runtime: RuntimeEngine,
    readonly security: SecurityService,
    readonly scheduler: Scheduler,
    timings: LifecycleTimings,
    secrets: Secrets,
  ) {
    this.lifecycle = new LifecycleService(store, secrets, configService, () => this.topology(), () => scheduler.now(), (ms, fn) => scheduler.after(ms, fn));
    this.tasks = new TaskEngine(scheduler);
    this.lifecycles = new Lifecycles(runtime, this.tasks, scheduler, timings);
    this.deployments = new Deployments(runtime, this.tasks, scheduler, configService, timings.deployment);
    runtime.onStateChange = () => this.saveState();
    this.persisted = new Map(Object.entries(stateToEntries(runtime.state)).map(([k, v]) => [k, JSON.stringify(v)]));
    // Tasks are kept in the store: every server sharing it sees them.
    this.tasks.onSave = (tasks) => {
      for (const t of tasks) {
        this.taskSaves.set(t.key, t);
        this.taskDeletes.delete(t.key);
      }
      this.saveTasks();
    };
    this.tasks.onDelete = (keys) => {
      for (const k of keys) {
        this.taskSaves.delete(k);
        this.taskDeletes.add(k);
      }
      this.saveTasks();
    };
    if (store.shared) store.onChange(() => void this.sync().catch(() => undefined));
    // The runtime follows every activation: new servers appear SHUTDOWN, removed ones disappear.
    configService.onActivation(async (result) => {
      const topology = this.topology();
      if (result.restartRequired) runtime.markRestartRequired(restartScope(result, topology));
      runtime.applyActivation(result.changes, topology);
      // The server that activated stores what its activation did to the runtime.
      if (result.remote) return;
      this.saveState();
      await this.flush();
    });
    runtime.editSessions = () => configService.allSessions().map((s) => ({ ...s.info }));
    // The lockout policy is the default realm's configuration, read again after each activation.
    let policy: { version: number; value: LockoutPolicy } | undefined;
    security.lockouts.policy = () => {
      if (policy?.version !== configService.version) policy = { version: configService.version, value: lockoutPolicy(catalog, this.config) };
      return policy.value;
    };
    // A removed user's edit locks are released; locks the server releases by itself are audited.
    security.onUserRemoved = (name) => configService.releaseLocksOf(name);
    configService.onLockEvent = (e) =>
      security.audit.record({
        user: null,
        address: '',
        action: e.event === 'lapsed' ? 'editLockLapsed' : 'editLockReleased',
        bean: 'edit/changeManager',
        outcome: 'success',
        detail: `${e.event === 'lapsed' ? 'The edit lock' : 'The edit lock of the removed user'} '${e.holder}' on the edit session '${e.session}' ${e.event === 'lapsed' ? 'lapsed' : 'was released'}; ${e.dropped} unactivated change${e.dropped === 1 ? '' : 's'} dropped.`,
      });
    configService.onSessionsChanged(() => runtime.refreshEditSessions());
    runtime.refreshEditSessions();
  }

  /** The activated configuration. */
  get config(): BeanTree {
    return this.configService.config;
  }

  static async open(catalog: Catalog, store: Store, opts: DomainOptions): Promise<OpenedDomain> {
    let creating = false;
    try {
      await store.open();
      const opened = await Domain.load(catalog, store, opts, () => (creating = true));
      creating = false;
      return opened;
    } catch (err) {
      // A domain this server began to create and did not finish may be created by the next start.
      if (creating && (await store.getMeta('created').catch(() => 'unknown')) === undefined) await store.replaceMeta({}, ['creating']).catch(() => undefined);
      await store.close().catch(() => undefined);
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('SQLITE_')) {
        throw new Error(`${store.description} cannot be read (${(err as Error).message}). The server did not start: restore the file from a backup.`);
      }
      throw err;
    }
  }

  private static async load(catalog: Catalog, store: Store, opts: DomainOptions, claim: () => void): Promise<OpenedDomain> {
    const now = opts.now ?? Date.now;
    const scheduler = opts.scheduler ?? new RealScheduler();
    const audit = new AuditLog(store, () => scheduler.now());
    const security = new SecurityService(store, new Lockouts(store, () => scheduler.now()), audit);
    // Alone on the store, nobody else will finish transitions or tasks left unfinished.
    const instance = randomUUID();
    const alone = !store.shared || (await store.liveInstances(Date.now() - HEARTBEAT_MS * 3)).length === 0;
    // Servers starting together on an empty shared store: one creates the domain, the others wait.
    let created = (await store.getMeta('created')) === undefined;
    if (created && store.shared) {
      const me = randomUUID();
      created = (await store.initMeta('creating', me)) === me;
      if (!created) await waitForMeta(store, 'created');
    }
    if (created && store.shared) claim();
    // The key is settled before anything else is written: a server given the wrong key changes nothing.
    const key = await settleSecretKey(store, opts.secretKey, opts.givenKey);
    if (store.shared) await store.heartbeat(instance, Date.now());
    let generatedPassword: string | undefined;
    let adminUser: string | undefined;
    let config: BeanTree;
    let state: RuntimeState;
    if (created) {
      const demo = opts.template === undefined || opts.template === 'demo';
      config = demo
        ? demoDomain(catalog, {
            domainName: opts.domainName ?? 'demo_domain',
            adminServerName: 'AdminServer',
            listenAddress: opts.listenAddress,
            listenPort: opts.listenPort || 7001,
          })
        : generateDomain(catalog, opts.template as DomainSize, opts.listenPort || 7001);
      await store.writeTree(CONFIG_TREE, { put: toStored(config), remove: [] });
      state = emptyRuntimeState();
      // The demo shows a partition at work: the first one runs, the second waits halted.
      if (demo) state.partitions.set('partition1', { state: 'RUNNING', subState: null });
      else if ((opts.template as DomainSize).running) for (const name of config.itemNames('servers')) state.servers.set(name, 'RUNNING');
      await store.writeRuntimeEntries(stateToEntries(state), []);
      await security.load();
      const user = (adminUser = opts.adminUser || 'admin');
      const password = opts.adminPassword || (generatedPassword = generatePassword());
      if (generatedPassword !== undefined) await opts.revealPassword?.(user, generatedPassword);
      await security.bootstrap(user, password);
      await store.setMeta('created', new Date(now()).toISOString());
    } else {
      config = fromStored(await store.loadTree(CONFIG_TREE));
      state = entriesToState(await store.runtimeEntries());
      if (alone) settleInterrupted(state);
      await security.load();
    }
    const secrets = new Secrets(key);
    const behaviours = standardBehaviours(catalog);
    const configService = await ConfigService.load(catalog, behaviours, store, config, secrets, scheduler);
    const runtime = new RuntimeEngine(catalog, behaviours, new Topology(config), state, () => scheduler.now());
    const domain = new Domain(catalog, behaviours, store, configService, runtime, security, scheduler, { ...DEFAULT_TIMINGS, ...opts.timings }, secrets);
    await domain.lifecycle.load(opts.listenAddress, opts.listenPort || 7001);
    // Tasks of earlier runs: a single server knows nobody still runs the unfinished ones.
    domain.tasks.load(await store.tasks(), alone);
    if (store.shared) domain.beat(instance);
    domain.tasks.executor = instance;
    if (store.shared) domain.tasks.numberFrom(Math.floor(Math.random() * 1e6) * 1000);
    domain.seen = await store.versions();
    return { domain, created, ...(generatedPassword ? { generatedPassword } : {}), ...(adminUser ? { adminUser } : {}) };
  }

  private heartbeat?: { timer: NodeJS.Timeout; instance: string };

  /** Says regularly that this server is alive (servers sharing a store). */
  private beat(instance: string): void {
    const timer = setInterval(() => {
      void this.store
        .heartbeat(instance, Date.now())
        .then(() => this.settleOrphans())
        .catch(() => undefined);
    }, HEARTBEAT_MS);
    timer.unref();
    this.heartbeat = { timer, instance };
  }

  private readonly taskSaves = new Map<string, Task>();
  private readonly taskDeletes = new Set<string>();

  /**
   * Tasks another server was running when it stopped (its heartbeat lapsed) are ended here: the
   * task fails and what it was acting on ends where it was going.
   */
  async settleOrphans(): Promise<void> {
    await this.sync();
    const live = new Set(await this.store.liveInstances(Date.now() - HEARTBEAT_MS * 3));
    const orphans = this.tasks.all().filter((t) => !t.local && !t.values.completed && typeof t.values.$executor === 'string' && t.values.$executor !== '' && !live.has(t.values.$executor));
    if (orphans.length === 0) return;
    for (const t of orphans) {
      settleTarget(this.runtime.state, t.values);
      this.tasks.abandon(t, 'The server running this task stopped before it completed.');
    }
    this.runtime.rebuild(this.topology());
    this.tasks.onSave(orphans);
    this.saveState();
    await this.flush();
  }

  /** Queues a write so that writes reach the store in the order they were made. */
  private queueWrite(write: () => Promise<void>): void {
    this.stateWrites = this.stateWrites.then(write).catch(() => undefined);
  }

  /**
   * A write run once for any number of requests made before it starts: it waits one turn of the
   * event loop, so that concurrent requests share it.
   */
  private coalesced(write: () => Promise<void>): () => void {
    let queued = false;
    return () => {
      if (queued) return;
      queued = true;
      this.queueWrite(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        queued = false;
        await write();
      });
    };
  }

  /** Writes the tasks changed since the last write. */
  private readonly saveTasks = this.coalesced(async () => {
    const saves = [...this.taskSaves.values()].map(storedTask);
    const deletes = [...this.taskDeletes];
    this.taskSaves.clear();
    this.taskDeletes.clear();
    if (deletes.length > 0) await this.store.deleteTasks(deletes);
    if (saves.length > 0) await this.store.putTasks(saves);
  });

  /** Writes the runtime state entries that changed. */
  private readonly saveState = this.coalesced(async () => {
    const now = stateToEntries(this.runtime.state);
    const put: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(now)) if (this.persisted.get(k) !== JSON.stringify(v)) put[k] = v;
    const remove = [...this.persisted.keys()].filter((k) => !(k in now));
    if (Object.keys(put).length === 0 && remove.length === 0) return;
    await this.store.writeRuntimeEntries(put, remove);
    for (const [k, v] of Object.entries(put)) this.persisted.set(k, JSON.stringify(v));
    for (const k of remove) this.persisted.delete(k);
  });

  /** Waits until every queued write reached the store. */
  async flush(): Promise<void> {
    await this.stateWrites;
  }

  /**
   * Catches up with other servers sharing the store: one query for the versions of every part of
   * the domain, then a reload of the parts that moved. Concurrent callers share one round.
   */
  sync(): Promise<void> {
    if (!this.store.shared) return Promise.resolve();
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.syncAgain = false;
          await this.catchUp();
        } while (this.syncAgain);
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  private async catchUp(): Promise<void> {
    // Our own queued writes first, so what is read back includes them.
    await this.flush();
    const versions = await this.store.versions();
    const moved = (c: Component) => versions[c] !== this.seen[c];
    // The runtime state first: the configuration's listeners then work from current states.
    if (moved('runtime')) await this.reloadRuntime();
    if (moved('config') || moved('sessions')) await this.configService.sync();
    if (moved('tasks')) this.tasks.load(await this.store.tasks(), false);
    if (moved('lifecycle')) await this.lifecycle.reload();
    if (moved('security')) {
      await this.security.load();
      this.configService.endWaitsOfRemoved((u) => this.security.hasUser(u));
    } else if (moved('lockouts')) await this.security.lockouts.load();
    for (const c of COMPONENTS) this.seen[c] = versions[c];
  }

  /** Takes in runtime state changed by other servers; trees are rebuilt only if something differs. */
  private async reloadRuntime(): Promise<void> {
    await this.stateWrites;
    const entries = await this.store.runtimeEntries();
    const incoming = new Map(Object.entries(entries).map(([k, v]) => [k, JSON.stringify(v)]));
    const same = incoming.size === this.persisted.size && [...incoming].every(([k, v]) => this.persisted.get(k) === v);
    if (same) return;
    this.persisted = incoming;
    const fresh = entriesToState(entries);
    const state = this.runtime.state;
    Object.assign(state, fresh);
    if (!state.servers.has(this.runtime.adminServerName)) state.servers.set(this.runtime.adminServerName, 'RUNNING');
    this.runtime.rebuild(this.topology());
  }

  topology(): Topology {
    return new Topology(this.config);
  }

  async close(): Promise<void> {
    await this.stateWrites;
    if (this.heartbeat) {
      clearInterval(this.heartbeat.timer);
      // A server that stops cleanly is no longer alive at once.
      await this.store.heartbeat(this.heartbeat.instance, 0).catch(() => undefined);
    }
    await this.store.close();
  }
}

async function waitForMeta(store: Store, key: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await store.getMeta(key)) !== undefined) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('another server began creating the domain in this store and did not finish within a minute');
}

/** A task as the store keeps it (its identity travels with its values). */
function storedTask(t: Task): StoredTask {
  return { key: t.key, collection: t.collection, ord: t.ord, type: t.type, values: { ...t.values, $identity: t.identity } };
}

/** Servers a restart-requiring activation concerns: the server or cluster changed, else all. */
function restartScope(result: ActivationResult, topology: Topology): string[] {
  const servers = new Set<string>();
  for (const c of result.changes) {
    if (!c.properties?.some((p) => p.restartRequired)) continue;
    const [collection, name] = c.identity;
    if (collection === 'servers' && name) servers.add(name);
    else if (collection === 'clusters' && name) for (const s of topology.serversOf(['clusters', name])) servers.add(s);
    else for (const s of topology.servers()) servers.add(s.name);
  }
  return [...servers];
}

/** A tree as store rows; items remember their collection and position. */
export function toStored(tree: BeanTree): StoredBean[] {
  const out: StoredBean[] = [];
  for (const [key, record] of tree.entries()) {
    const p = tree.placementOf(key);
    out.push({ key, collection: p?.[0] ?? null, name: p?.[1] ?? null, ord: p?.[2] ?? 0, type: record.type, values: record.values });
  }
  return out;
}

export function fromStored(rows: StoredBean[]): BeanTree {
  const tree = new BeanTree();
  const sorted = [...rows].sort((a, b) => a.ord - b.ord);
  for (const row of sorted) tree.putRaw(row.key, { type: row.type, values: row.values }, row.collection, row.name, row.ord);
  return tree;
}

/** The user lockout policy of the domain's default realm (its `userLockoutManager`, defaults where unset). */
export function lockoutPolicy(catalog: Catalog, config: BeanTree): LockoutPolicy {
  const realm = config.bean(childKey('', 'securityConfiguration'))?.values.defaultRealm;
  const key = Array.isArray(realm) ? childKey(keyOfIdentity(realm as string[]), 'userLockoutManager') : undefined;
  const values = (key !== undefined ? config.bean(key)?.values : undefined) ?? {};
  const type = catalog.type('appserver.management.security.authentication.UserLockoutManagerMBean');
  const value = (name: string): unknown => (Object.hasOwn(values, name) ? values[name] : type.prop.get(name)?.defaultValue);
  const number = (name: string, fallback: number, min: number): number => {
    const v = Number(value(name));
    return Number.isFinite(v) && v >= min ? v : fallback;
  };
  const MINUTE = 60_000;
  return {
    enabled: value('lockoutEnabled') !== false,
    threshold: Math.floor(number('lockoutThreshold', DEFAULT_LOCKOUT.threshold, 1)),
    durationMs: number('lockoutDuration', DEFAULT_LOCKOUT.durationMs / MINUTE, 0) * MINUTE,
    resetMs: number('lockoutResetDuration', DEFAULT_LOCKOUT.resetMs / MINUTE, 0) * MINUTE,
    gcThreshold: Math.floor(number('lockoutGCThreshold', DEFAULT_LOCKOUT.gcThreshold, 1)),
  };
}
