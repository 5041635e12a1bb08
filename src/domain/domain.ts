// The domain: its parts, each with one job (configuration and edit sessions, runtime and tasks, the
// Lifecycle Manager, security, persistence of the runtime, coordination with servers sharing the
// store), and the wiring between them. `openDomain` (bootstrap.ts) builds it.
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { SERVER_LIFECYCLE } from '../behaviour/state-machines.js';
import type { Catalog } from '../catalog/load.js';
import type { ActivationResult, ConfigService } from '../config/config-service.js';
import { Topology } from '../config/topology.js';
import type { ChangeSignal } from '../core/changes.js';
import type { Scheduler } from '../core/clock.js';
import type { Log } from '../core/log.js';
import type { LifecycleService } from '../lifecycle/service.js';
import type { Deployments } from '../runtime/deployments.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import type { Lifecycles } from '../runtime/lifecycle.js';
import type { RuntimePersistence } from '../runtime/persistence.js';
import type { Task, TaskEngine } from '../runtime/tasks.js';
import { storedOrTakenBack } from '../runtime/refusal.js';
import { lockoutPolicy } from '../security/lockout-policy.js';
import type { LockoutPolicy } from '../security/lockout.js';
import type { SecurityService } from '../security/service.js';
import type { DomainRows, Store } from '../store/store.js';
import { entriesToState, settleInterrupted, settleTarget, stateToEntries } from '../runtime/state.js';
import { failUnfinished } from '../runtime/tasks.js';

const RESTORED_TASK = 'The domain was restored from a snapshot saved while this task ran; nothing runs it any more.';
import type { BeanTree } from '../tree/records.js';
import type { ClusterCoordinator } from './coordinator.js';

export interface DomainParts {
  log: Log;
  catalog: Catalog;
  /** What each bean type does beyond its catalog data. */
  behaviours: BehaviourRegistry;
  store: Store;
  /** The clock the parts schedule on: what falls due on it tells `changes` when it ran. */
  scheduler: Scheduler;
  /** The same clock as given (a test's manual clock, the control interface's), without that. */
  clock: Scheduler;
  /** Told right after every change of the domain's state (see core/changes.ts). */
  changes: ChangeSignal;
  configService: ConfigService;
  runtime: RuntimeEngine;
  tasks: TaskEngine;
  lifecycles: Lifecycles;
  deployments: Deployments;
  lifecycle: LifecycleService;
  security: SecurityService;
  persistence: RuntimePersistence;
  coordinator: ClusterCoordinator;
  /** This process among the servers sharing the store (its heartbeats, tasks and leases). */
  instance: string;
}

/** The snapshot of the domain as it was created (never listed; names given by people cannot start with '#'). */
export const INITIAL_SNAPSHOT = '#initial';

export class Domain implements DomainParts {
  readonly log: Log;
  readonly catalog: Catalog;
  readonly behaviours: BehaviourRegistry;
  readonly store: Store;
  readonly scheduler: Scheduler;
  readonly clock: Scheduler;
  readonly changes: ChangeSignal;
  readonly configService: ConfigService;
  readonly runtime: RuntimeEngine;
  readonly tasks: TaskEngine;
  readonly lifecycles: Lifecycles;
  readonly deployments: Deployments;
  readonly lifecycle: LifecycleService;
  readonly security: SecurityService;
  readonly persistence: RuntimePersistence;
  readonly coordinator: ClusterCoordinator;
  readonly instance: string;

  constructor(parts: DomainParts) {
    this.log = parts.log;
    this.catalog = parts.catalog;
    this.behaviours = parts.behaviours;
    this.store = parts.store;
    this.scheduler = parts.scheduler;
    this.clock = parts.clock;
    this.changes = parts.changes;
    this.configService = parts.configService;
    this.runtime = parts.runtime;
    this.tasks = parts.tasks;
    this.lifecycles = parts.lifecycles;
    this.deployments = parts.deployments;
    this.lifecycle = parts.lifecycle;
    this.security = parts.security;
    this.persistence = parts.persistence;
    this.coordinator = parts.coordinator;
    this.instance = parts.instance;
    this.wire();
  }

  /** How the parts follow one another. */
  private wire(): void {
    const { configService, runtime, security, catalog, persistence, log, changes } = this;
    this.announceChanges();
    // The runtime follows every activation: new servers appear SHUTDOWN, removed ones disappear.
    configService.beforeApplying((changes) => runtime.noteActivation(changes));
    configService.onActivation(async (result) => {
      if (!result.remote) log.info({ version: result.version, changes: result.changes.length, restartRequired: result.restartRequired }, `activated configuration version ${result.version}`);
      const topology = this.topology();
      if (result.restartRequired) runtime.markRestartRequired(restartScope(result, topology));
      runtime.applyActivation(result.changes, topology);
      changes.changed();
      // The server that activated stores what its activation did to the runtime.
      if (result.remote) return;
      this.retireDynamicServers();
      changes.changed();
      persistence.saveState();
      await persistence.flush();
    });
    runtime.onServerState = (server, state) => log.info({ server, state }, `server ${server} is ${state}`);
    runtime.editSessions = () => configService.allSessions().map((s) => ({ ...s.info }));
    configService.onSessionsChanged(() => runtime.refreshEditSessions());
    runtime.refreshEditSessions();
    // The lockout policy is the default realm's configuration, read again after each activation.
    let policy: { version: number; value: LockoutPolicy } | undefined;
    security.lockouts.policy = () => {
      if (policy?.version !== configService.version) policy = { version: configService.version, value: lockoutPolicy(catalog, this.config) };
      return policy.value;
    };
    // A removed user's edit locks are released; locks the server releases by itself are audited.
    security.onUserRemoved = (name) => configService.releaseLocksOf(name);
    configService.onLockEvent = (e) => {
      const dropped = `${e.dropped} unactivated change${e.dropped === 1 ? '' : 's'} dropped.`;
      if (e.event === 'expired') {
        const minutes = Math.round(configService.sessionLimits.idleMs / 60_000);
        return security.audit.record({
          user: null,
          address: '',
          action: 'editSessionExpired',
          bean: 'domainRuntime/editSessionConfigurationManager',
          outcome: 'success',
          detail: `The named edit session '${e.session}' was unused for ${minutes} minute${minutes === 1 ? '' : 's'} and is discarded${e.holder ? `, with the edit lock of '${e.holder}'` : ''}; ${dropped}`,
        });
      }
      return security.audit.record({
        user: null,
        address: '',
        action: e.event === 'lapsed' ? 'editLockLapsed' : 'editLockReleased',
        bean: 'edit/changeManager',
        outcome: 'success',
        detail: `${e.event === 'lapsed' ? 'The edit lock' : 'The edit lock of the removed user'} '${e.holder}' on the edit session '${e.session}' ${e.event === 'lapsed' ? 'lapsed' : 'was released'}; ${dropped}`,
      });
    };
    // Named sessions nobody uses are discarded (their locks released).
    this.idleExpiry = configService.startIdleExpiry((err) => log.error({ err }, 'idle edit sessions not expired'));
  }

  /** The look for idle named edit sessions, stopped when the domain closes. */
  private idleExpiry: { stop(): void } | undefined;

  /**
   * Every part that changes state tells `changes` right after it did (the clock's callbacks tell it
   * themselves, see bootstrap): the runtime's states, tasks, the configuration and edit sessions,
   * activations once the runtime followed them, a restored snapshot.
   */
  private announceChanges(): void {
    const { configService, runtime, tasks, changes } = this;
    const changed = () => changes.changed();
    const stateChanged = runtime.onStateChange;
    runtime.onStateChange = () => {
      stateChanged();
      changed();
    };
    const saved = tasks.onSave;
    tasks.onSave = (list) => {
      saved(list);
      changed();
    };
    const deleted = tasks.onDelete;
    tasks.onDelete = (keys) => {
      deleted(keys);
      changed();
    };
    configService.onChanged = changed;
    configService.onSessionsChanged(changed);
    this.onRestored(changed);
  }

  /**
   * Shuts down the running servers that shrunk dynamic clusters dropped, each by a lifecycle task
   * of its own (they leave the runtime once stopped).
   */
  private retireDynamicServers(): void {
    for (const name of this.runtime.retiringServers()) {
      const state = this.runtime.serverState(name);
      if (state === 'SHUTTING_DOWN' || state === 'FORCE_SHUTTING_DOWN') continue;
      const op = SERVER_LIFECYCLE.transitions.get('shutdown')!.from.includes(state) ? 'shutdown' : 'forceShutdown';
      try {
        this.lifecycles.server(name, op);
        this.log.info({ server: name, state }, `server ${name} left its dynamic cluster: ${op} started`);
      } catch (err) {
        this.log.warn({ server: name, state, err }, `server ${name} left its dynamic cluster but could not be shut down`);
      }
    }
  }

  /** The activated configuration. */
  get config(): BeanTree {
    return this.configService.config;
  }

  topology(): Topology {
    return new Topology(this.config);
  }

  /** Catches up with what other servers sharing the store changed. */
  sync(): Promise<void> {
    return this.coordinator.sync();
  }

  /** Waits until every queued runtime and task write reached the store. */
  flush(): Promise<void> {
    return this.persistence.flush();
  }

  /** Like `flush`, but throws when the last write failed (the store out of reach or full). */
  flushStored(since?: number): Promise<void> {
    return this.persistence.flushStored(since);
  }

  /** Writes of the runtime state and tasks begun so far (see `flushStored`). */
  get writesBegun(): number {
    return this.persistence.writesBegun;
  }

  /**
   * Runs an action on the runtime and waits until its writes reached the store; when the store
   * refuses them, what the action changed in memory (states, the tasks `tasksOf` names) is taken
   * back before the store's problem is thrown.
   */
  refusable<T>(action: () => Promise<T> | T, tasksOf: (result: T) => Task[]): Promise<T> {
    return storedOrTakenBack({ runtime: this.runtime, tasks: this.tasks, persistence: this.persistence, topology: () => this.topology(), changed: () => this.changes.changed() }, action, tasksOf);
  }

  /** Ends tasks that servers which stopped left running (servers sharing a store). */
  settleOrphans(): Promise<void> {
    return this.coordinator.settleOrphans();
  }

  /** The whole domain state as the store holds it (what a snapshot keeps), once queued writes are in. */
  async captureRows(): Promise<DomainRows> {
    await this.persistence.flush();
    return this.store.domainRows();
  }

  /**
   * Puts the domain back in a captured state: configuration (as a new configuration version),
   * edit sessions, runtime, tasks and the Lifecycle Manager's records; users, the audit trail and
   * activation records stay. What was on its way (a server starting) in the captured state ends
   * where it was going, and its unfinished tasks are failed: nothing runs them any more.
   */
  private readonly restoredListeners: (() => void)[] = [];

  /** Called after the whole domain was replaced by saved rows (a snapshot restored). */
  onRestored(fn: () => void): void {
    this.restoredListeners.push(fn);
  }

  async restoreRows(rows: DomainRows): Promise<void> {
    await this.persistence.flush();
    const state = entriesToState(Object.fromEntries(rows.runtime.map(([k, data]) => [k, JSON.parse(data) as unknown])));
    settleInterrupted(state);
    const runtime = Object.entries(stateToEntries(state)).map(([k, v]) => [k, JSON.stringify(v)] as [string, string]);
    // Unfinished tasks fail before they are written, so the store and this server agree at once.
    const tasks = rows.tasks.map(([key, collection, ord, type, data]) => ({ key, collection, ord, type, values: JSON.parse(data) as Record<string, unknown> }));
    for (const t of tasks) if (!t.values.completed) failUnfinished(t.values, RESTORED_TASK);
    const taskRows = tasks.map((t) => [t.key, t.collection, t.ord, t.type, JSON.stringify(t.values)] as DomainRows['tasks'][number]);
    const version = this.configService.version + 1;
    await this.store.replaceDomainRows({ ...rows, runtime, tasks: taskRows }, version);
    const beans = rows.beans.map(([key, collection, name, ord, type, data]) => ({ key, collection, name, ord, type, values: JSON.parse(data) as Record<string, unknown> }));
    await this.configService.replaceAll(beans, version);
    await this.persistence.reload();
    this.runtime.rebuild(this.topology());
    this.tasks.replace(tasks);
    await this.lifecycle.reload();
    this.runtime.refreshEditSessions();
    this.persistence.saveState();
    await this.persistence.flush();
    await this.coordinator.settle();
    for (const fn of this.restoredListeners) fn();
  }

  /**
   * Ends the tasks this server runs (a stop): each fails with `reason`, what it acted on ends where
   * it was going (as for a server that stopped without warning), and both are stored. Returns how
   * many ended.
   */
  async endRunningTasks(reason: string): Promise<number> {
    const running = this.tasks.all().filter((t) => t.local && !t.values.completed);
    if (running.length === 0) return 0;
    for (const t of running) {
      settleTarget(this.runtime.state, t.values);
      this.tasks.abandon(t, reason);
    }
    this.runtime.rebuild(this.topology());
    this.tasks.onSave(running);
    this.persistence.saveState();
    await this.persistence.flush();
    return running.length;
  }

  async close(): Promise<void> {
    this.idleExpiry?.stop();
    // Audit records asked for are stored before the store closes.
    await this.security.audit.close();
    // Every connection to a data source's database closes with the domain.
    await this.runtime.dataSources.closeAll();
    await this.persistence.flush();
    this.persistence.stop();
    await this.coordinator.stop();
    await this.store.close();
  }
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

