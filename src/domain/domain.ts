// The domain: its activated configuration, its runtime and its security realm, loaded from the
// store (or created from the demo template on first start).
import type { Catalog } from '../catalog/load.js';
import { type ActivationResult, ConfigService } from '../config/config-service.js';
import { Secrets } from '../config/secrets.js';
import { Topology } from '../config/topology.js';
import { LifecycleService } from '../lifecycle/service.js';
import { Deployments } from '../runtime/deployments.js';
import { RuntimeEngine } from '../runtime/engine.js';
import { DEFAULT_TIMINGS, type LifecycleTimings, Lifecycles } from '../runtime/lifecycle.js';
import { RealScheduler, type Scheduler } from '../runtime/scheduler.js';
import { TaskEngine } from '../runtime/tasks.js';
import { type RuntimeState, RUNTIME_STATE_KEY, emptyRuntimeState } from '../runtime/state.js';
import { generatePassword } from '../security/passwords.js';
import { SecurityService } from '../security/service.js';
import type { Store, StoredBean } from '../store/store.js';
import { BeanTree } from '../tree/records.js';
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

export class Domain {
  readonly tasks: TaskEngine;
  readonly lifecycles: Lifecycles;
  readonly deployments: Deployments;
  readonly lifecycle: LifecycleService;
  private stateWrites: Promise<void> = Promise.resolve();
  private stateDirty = false;

  private constructor(
    readonly catalog: Catalog,
    readonly store: Store,
    readonly configService: ConfigService,
    readonly runtime: RuntimeEngine,
    readonly security: SecurityService,
    readonly scheduler: Scheduler,
    timings: LifecycleTimings,
    secrets: Secrets,
  ) {
    this.lifecycle = new LifecycleService(store, secrets, configService, () => this.topology(), () => scheduler.now());
    this.tasks = new TaskEngine(scheduler);
    this.lifecycles = new Lifecycles(runtime, this.tasks, scheduler, timings);
    this.deployments = new Deployments(runtime, this.tasks, scheduler, configService, timings.deployment);
    runtime.onStateChange = () => this.saveState();
    // The runtime follows every activation: new servers appear SHUTDOWN, removed ones disappear.
    configService.onActivation(async (result) => {
      const topology = this.topology();
      if (result.restartRequired) runtime.markRestartRequired(restartScope(result, topology));
      runtime.applyActivation(result.changes, topology);
      this.saveState();
      await this.stateWrites;
    });
    runtime.editSessions = () => configService.allSessions().map((s) => ({ ...s.info }));
    configService.onSessionsChanged(() => runtime.refreshEditSessions());
    runtime.refreshEditSessions();
  }

  /** The activated configuration. */
  get config(): BeanTree {
    return this.configService.config;
  }

  static async open(catalog: Catalog, store: Store, opts: DomainOptions): Promise<OpenedDomain> {
    const now = opts.now ?? Date.now;
    await store.open();
    const security = new SecurityService(store);
    await security.load();
    const created = (await store.getMeta('created')) === undefined;
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
      if (demo) state.partitions.partition1 = { state: 'RUNNING', subState: null };
      await store.setState(RUNTIME_STATE_KEY, state);
      const user = (adminUser = opts.adminUser || 'admin');
      const password = opts.adminPassword || (generatedPassword = generatePassword());
      await security.bootstrap(user, password);
      await store.setMeta('created', new Date(now()).toISOString());
    } else {
      config = fromStored(await store.loadTree(CONFIG_TREE));
      state = (await store.getState<RuntimeState>(RUNTIME_STATE_KEY)) ?? emptyRuntimeState();
    }
    let key = await store.getMeta('secretKey');
    if (!key) await store.setMeta('secretKey', (key = Secrets.newKey()));
    const secrets = new Secrets(Buffer.from(key, 'base64'));
    const configService = await ConfigService.load(catalog, store, config, secrets);
    const scheduler = opts.scheduler ?? new RealScheduler();
    const runtime = new RuntimeEngine(catalog, new Topology(config), state, () => scheduler.now());
    const domain = new Domain(catalog, store, configService, runtime, security, scheduler, { ...DEFAULT_TIMINGS, ...opts.timings }, secrets);
    await domain.lifecycle.load(opts.listenAddress, opts.listenPort || 7001);
    return { domain, created, ...(generatedPassword ? { generatedPassword } : {}), ...(adminUser ? { adminUser } : {}) };
  }

  /** Writes the runtime state, coalescing bursts of changes into one write at a time. */
  private saveState(): void {
    if (this.stateDirty) return;
    this.stateDirty = true;
    this.stateWrites = this.stateWrites.then(async () => {
      this.stateDirty = false;
      await this.store.setState(RUNTIME_STATE_KEY, this.runtime.state);
    });
  }

  topology(): Topology {
    return new Topology(this.config);
  }

  async close(): Promise<void> {
    await this.stateWrites;
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
