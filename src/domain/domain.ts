// The domain: its parts, each with one job (configuration and edit sessions, runtime and tasks, the
// Lifecycle Manager, security, persistence of the runtime, coordination with servers sharing the
// store), and the wiring between them. `openDomain` (bootstrap.ts) builds it.
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { SERVER_LIFECYCLE } from '../behaviour/state-machines.js';
import type { Catalog } from '../catalog/load.js';
import type { ActivationResult, ConfigService } from '../config/config-service.js';
import { Topology } from '../config/topology.js';
import type { Scheduler } from '../core/clock.js';
import type { Log } from '../core/log.js';
import type { LifecycleService } from '../lifecycle/service.js';
import type { Deployments } from '../runtime/deployments.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import type { Lifecycles } from '../runtime/lifecycle.js';
import type { RuntimePersistence } from '../runtime/persistence.js';
import type { TaskEngine } from '../runtime/tasks.js';
import { lockoutPolicy } from '../security/lockout-policy.js';
import type { LockoutPolicy } from '../security/lockout.js';
import type { SecurityService } from '../security/service.js';
import type { Store } from '../store/store.js';
import type { BeanTree } from '../tree/records.js';
import type { ClusterCoordinator } from './coordinator.js';

export interface DomainParts {
  log: Log;
  catalog: Catalog;
  /** What each bean type does beyond its catalog data. */
  behaviours: BehaviourRegistry;
  store: Store;
  scheduler: Scheduler;
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

export class Domain implements DomainParts {
  readonly log: Log;
  readonly catalog: Catalog;
  readonly behaviours: BehaviourRegistry;
  readonly store: Store;
  readonly scheduler: Scheduler;
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
    const { configService, runtime, security, catalog, persistence, log } = this;
    // The runtime follows every activation: new servers appear SHUTDOWN, removed ones disappear.
    configService.onActivation(async (result) => {
      if (!result.remote) log.info({ version: result.version, changes: result.changes.length, restartRequired: result.restartRequired }, `activated configuration version ${result.version}`);
      const topology = this.topology();
      if (result.restartRequired) runtime.markRestartRequired(restartScope(result, topology));
      runtime.applyActivation(result.changes, topology);
      // The server that activated stores what its activation did to the runtime.
      if (result.remote) return;
      this.retireDynamicServers();
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
    configService.onLockEvent = (e) =>
      security.audit.record({
        user: null,
        address: '',
        action: e.event === 'lapsed' ? 'editLockLapsed' : 'editLockReleased',
        bean: 'edit/changeManager',
        outcome: 'success',
        detail: `${e.event === 'lapsed' ? 'The edit lock' : 'The edit lock of the removed user'} '${e.holder}' on the edit session '${e.session}' ${e.event === 'lapsed' ? 'lapsed' : 'was released'}; ${e.dropped} unactivated change${e.dropped === 1 ? '' : 's'} dropped.`,
      });
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

  /** Ends tasks that servers which stopped left running (servers sharing a store). */
  settleOrphans(): Promise<void> {
    return this.coordinator.settleOrphans();
  }

  async close(): Promise<void> {
    // Every connection to a data source's database closes with the domain.
    await this.runtime.dataSources.closeAll();
    await this.persistence.flush();
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

