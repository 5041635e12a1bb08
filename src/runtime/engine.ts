// The runtime engine: keeps the runtime trees (the domain runtime and one server runtime tree per
// running server) consistent with the configuration and the durable runtime state.
import type { Catalog } from '../catalog/load.js';
import type { NamedBean, Topology } from '../config/topology.js';
import { BeanTree } from '../tree/records.js';
import { type BeanRef, TreeBuilder } from '../tree/builder.js';
import { HALTED, type RuntimeState, SERVER_STATE_VAL, type ServerState } from './state.js';

const R = 'appserver.management.runtime.';

/** What an activation changed, as far as the runtime needs to know. */
export interface ActivationChange {
  operation: 'create' | 'modify' | 'delete';
  identity: readonly string[];
  properties?: readonly { name: string }[];
}

/** Collections whose changes move servers, targets or deployments: the whole runtime follows. */
const TOPOLOGY = new Set(['clusters', 'machines', 'virtualTargets', 'migratableTargets', 'partitions', 'resourceGroups', 'appDeployments', 'libraries', 'JMSServers', 'fileStores']);
/** System resources: their own bean matters (targets), their descriptors do not. */
const RESOURCES = new Set(['JDBCSystemResources', 'JMSSystemResources']);
/** Server properties the runtime shows or depends on. */
const SERVER_PROPS = new Set(['listenAddress', 'listenPort', 'machine']);

/** The server whose runtime a change concerns, 'all' for a topology change, undefined for none. */
function runtimeEffect(c: ActivationChange): string | 'all' | undefined {
  const [collection, name] = c.identity;
  if (collection === undefined) {
    return c.properties?.some((p) => p.name === 'name' || p.name === 'adminServerName' || p.name === 'productionModeEnabled') ? 'all' : undefined;
  }
  if (collection === 'servers' && name !== undefined) {
    if (c.identity.length > 2) return undefined;
    if (c.operation !== 'modify') return name;
    if (c.properties?.some((p) => p.name === 'cluster')) return 'all';
    return c.properties?.some((p) => SERVER_PROPS.has(p.name)) ? name : undefined;
  }
  if (TOPOLOGY.has(collection)) return 'all';
  if (RESOURCES.has(collection)) return c.identity.length <= 2 ? 'all' : undefined;
  return undefined;
}

export interface EditSessionView {
  name: string;
  partition: string | null;
  creator: string;
  description: string;
  owner: string | null;
}
export const PRODUCT_VERSION = 'AppServer Server 12.2.1.3.0';
const OK_HEALTH = (subsystemName: string | null) => ({ state: 'ok', subsystemName, partitionName: null, symptoms: [] });

/** States in which a server answers requests and has a runtime tree. */
const REACHABLE: ReadonlySet<string> = new Set(['RUNNING', 'ADMIN', 'STANDBY', 'SUSPENDING', 'RESUMING', 'FORCE_SUSPENDING', 'SHUTTING_DOWN']);

export class RuntimeEngine {
  domainTree = new BeanTree();
  readonly serverTrees = new Map<string, BeanTree>();
  /** The named edit sessions, shown as edit session configurations. */
  editSessions: () => EditSessionView[] = () => [];
  /** When each running server reached a running state (epoch ms). */
  private readonly activationTimes = new Map<string, number>();

  constructor(
    private readonly catalog: Catalog,
    private topology: Topology,
    readonly state: RuntimeState,
    private readonly now: () => number,
  ) {
    // This process is the administration server: it is running whenever the engine exists, and
    // it has just started, so it runs the configuration as activated.
    this.state.servers[topology.adminServerName] = 'RUNNING';
    if (this.state.restartRequired) delete this.state.restartRequired[topology.adminServerName];
    this.rebuild(topology);
  }

  serverState(name: string): ServerState {
    return this.state.servers[name] ?? 'SHUTDOWN';
  }

  isReachable(name: string): boolean {
    return REACHABLE.has(this.serverState(name)) && this.serverTrees.has(name);
  }

  runningServers(): string[] {
    return this.topology
      .servers()
      .map((s) => s.name)
      .filter((name) => this.serverTrees.has(name));
  }

  /** Rebuilds every runtime tree from the configuration and the durable state. */
  rebuild(topology: Topology): void {
    this.topology = topology;
    for (const s of topology.servers()) this.state.servers[s.name] ??= 'SHUTDOWN';
    for (const name of Object.keys(this.state.servers)) {
      if (!topology.servers().some((s) => s.name === name)) delete this.state.servers[name];
    }
    for (const p of topology.partitions()) this.state.partitions[p.name] ??= { ...HALTED };
    this.domainTree = this.buildDomainTree();
    this.serverTrees.clear();
    for (const s of topology.servers()) {
      if (!REACHABLE.has(this.serverState(s.name))) {
        this.activationTimes.delete(s.name);
        continue;
      }
      if (!this.activationTimes.has(s.name)) this.activationTimes.set(s.name, this.now());
      this.serverTrees.set(s.name, this.buildServerTree(s));
    }
  }

  /** Flags the running servers among `servers` as needing a restart. */
  markRestartRequired(servers: string[]): void {
    const flags = (this.state.restartRequired ??= {});
    for (const s of servers) {
      if (!REACHABLE.has(this.serverState(s))) continue;
      flags[s] = true;
      const root = this.serverTrees.get(s)?.bean('');
      if (root) root.values.restartRequired = true;
    }
  }

  private buildDomainTree(): BeanTree {
    const t = this.topology;
    const b = new TreeBuilder(this.catalog, new BeanTree());
    const root = b.root(`${R}DomainRuntimeMBean`, {
      name: t.domainName,
      activationTime: this.activationTimes.get(t.adminServerName) ?? this.now(),
      currentDomainPartitionRuntime: null,
    });
    for (const s of t.servers()) this.lifeCycleRuntime(b, root, s.name);
    const apps = t.appDeployments();
    const deployment = b.singleton(root, 'deploymentManager', {});
    for (const app of apps) {
      b.item(deployment, 'appDeploymentRuntimes', app.name, { applicationName: app.name, applicationVersion: null, modules: [app.name] });
    }
    b.singleton(root, 'appRuntimeStateRuntime', { applicationIds: apps.map((a) => a.name) });
    for (const p of t.partitions()) this.domainPartition(b, root, p);
    this.putEditSessions(b, root, null);
    return b.tree;
  }

  /** Rewrites the edit session configurations of the domain and of every partition. */
  refreshEditSessions(): void {
    const b = new TreeBuilder(this.catalog, this.domainTree);
    const root: BeanRef = { key: '', type: this.catalog.type(`${R}DomainRuntimeMBean`), identity: [] };
    this.putEditSessions(b, root, null);
    for (const p of this.topology.partitions()) {
      const dpr = b.refOf(root, 'domainPartitionRuntimes', p.name);
      if (dpr) this.putEditSessions(b, dpr, p.name);
    }
  }

  private putEditSessions(b: TreeBuilder, owner: BeanRef, partition: string | null): void {
    const manager = b.singleton(owner, 'editSessionConfigurationManager', {});
    b.tree.clearCollection(`${manager.key}/editSessionConfigurations`);
    for (const s of this.editSessions()) {
      if (s.partition !== partition || s.name === 'default') continue;
      b.item(manager, 'editSessionConfigurations', s.name, {
        editSessionName: s.name,
        description: s.description,
        creator: s.creator,
        currentEditor: s.owner,
        partitionName: s.partition,
        editSessionServerJndi: null,
      });
    }
  }

  private lifeCycleRuntime(b: TreeBuilder, root: BeanRef, server: string): void {
    b.item(root, 'serverLifeCycleRuntimes', server, {
      state: this.serverState(server),
      nodeManagerRestartCount: 0,
      middlewareHome: '/opt/appserver',
      appserverHome: '/opt/appserver/server',
    });
  }

  /**
   * Follows an activation. Most changes concern one server or nothing the runtime shows, and cost
   * only that; changes to the topology (clusters, targets, partitions, deployments) rebuild all.
   */
  applyActivation(changes: readonly ActivationChange[], topology: Topology): void {
    const servers = new Set<string>();
    for (const c of changes) {
      const effect = runtimeEffect(c);
      if (effect === 'all') return this.rebuild(topology);
      if (effect) servers.add(effect);
    }
    this.topology = topology;
    for (const name of servers) this.refreshServer(name);
  }

  /** Brings one server's lifecycle runtime and runtime tree in line with its configuration. */
  private refreshServer(name: string): void {
    const server = this.topology.servers().find((s) => s.name === name);
    const lifecycles = 'serverLifeCycleRuntimes';
    const b = new TreeBuilder(this.catalog, this.domainTree);
    const root: BeanRef = { key: '', type: this.catalog.type(`${R}DomainRuntimeMBean`), identity: [] };
    if (!server) {
      delete this.state.servers[name];
      const ref = b.refOf(root, lifecycles, name);
      if (ref) this.domainTree.remove(ref.key);
      this.serverTrees.delete(name);
      this.activationTimes.delete(name);
      return;
    }
    this.state.servers[name] ??= 'SHUTDOWN';
    this.lifeCycleRuntime(b, root, name);
    if (this.serverTrees.has(name)) this.serverTrees.set(name, this.buildServerTree(server));
  }

  private domainPartition(b: TreeBuilder, root: BeanRef, p: NamedBean): void {
    const dpr = b.item(root, 'domainPartitionRuntimes', p.name, { partitionID: p.values.partitionID ?? null });
    const desired = this.state.partitions[p.name] ?? HALTED;
    const plc = b.singleton(dpr, 'partitionLifeCycleRuntime', { name: p.name, state: desired.state, subState: desired.subState });
    for (const rg of this.topology.resourceGroups(p)) {
      b.item(plc, 'resourceGroupLifeCycleRuntimes', rg.name, { state: this.resourceGroupState(p.name, rg.name) });
    }
    b.singleton(dpr, 'appRuntimeStateRuntime', { applicationIds: [] });
    this.putEditSessions(b, dpr, p.name);
  }

  resourceGroupState(partition: string, rg: string): string {
    const explicit = this.state.resourceGroups[`${partition}/${rg}`];
    if (explicit) return explicit;
    const p = this.state.partitions[partition];
    return p?.state === 'RUNNING' || p?.state === 'ADMIN' ? p.state : 'SHUTDOWN';
  }

  private buildServerTree(server: NamedBean): BeanTree {
    const t = this.topology;
    const b = new TreeBuilder(this.catalog, new BeanTree());
    const admin = server.name === t.adminServerName;
    const adminServer = t.servers().find((s) => s.name === t.adminServerName);
    const host = String(server.values.listenAddress || 'localhost');
    const port = Number(server.values.listenPort ?? 7001);
    const state = this.serverState(server.name);
    const root = b.root(`${R}ServerRuntimeMBean`, {
      name: server.name,
      state,
      stateVal: SERVER_STATE_VAL[state] ?? 9,
      activationTime: this.activationTimes.get(server.name) ?? this.now(),
      adminServer: admin,
      adminServerHost: String(adminServer?.values.listenAddress || 'localhost'),
      adminServerListenPort: Number(adminServer?.values.listenPort ?? 7001),
      adminServerListenPortSecure: false,
      administrationURL: `t3://${host}:${port}`,
      defaultURL: `t3://${host}:${port}`,
      listenPortEnabled: true,
      SSLListenPortEnabled: false,
      currentDirectory: process.cwd(),
      middlewareHome: '/opt/appserver',
      appserverHome: '/opt/appserver/server',
      appserverVersion: PRODUCT_VERSION,
      currentMachine: Array.isArray(server.values.machine) ? String(server.values.machine[1]) : '',
      healthState: OK_HEALTH('ServerRuntime'),
      overallHealthState: OK_HEALTH(null),
      patchList: [],
      restartRequired: this.state.restartRequired?.[server.name] === true,
    });
    b.singleton(root, 'threadPoolRuntime', { healthState: OK_HEALTH('threadpool') });
    b.item(root, 'serverChannelRuntimes', 'Default[http]', {
      channelName: 'Default[http]',
      publicURL: `http://${host}:${port}`,
    });
    b.item(root, 'workManagerRuntimes', 'default', { healthState: OK_HEALTH('workmanager') });
    for (const app of t.appDeployments()) {
      if (!t.serversOfTargets(app.values.targets).includes(server.name)) continue;
      this.applicationRuntime(b, root, server.name, app);
    }
    const jdbc = b.singleton(root, 'JDBCServiceRuntime', { healthState: OK_HEALTH('JDBC') });
    for (const ds of t.items([], 'JDBCSystemResources')) {
      if (t.serversOfTargets(ds.values.targets).includes(server.name)) this.dataSourceRuntime(b, jdbc, ds);
    }
    for (const p of t.partitions()) this.partitionRuntime(b, root, server.name, p);
    return b.tree;
  }

  private applicationRuntime(b: TreeBuilder, parent: BeanRef, server: string, app: NamedBean): void {
    const rt = b.item(parent, 'applicationRuntimes', app.name, {
      applicationName: app.name,
      applicationVersion: null,
      internal: false,
      activeVersionState: 2,
      healthState: OK_HEALTH(null),
      overallHealthState: OK_HEALTH(null),
    });
    b.item(
      rt,
      'componentRuntimes',
      `${server}_/${app.name}`,
      {
        moduleId: app.name,
        componentName: app.name,
        applicationIdentifier: app.name,
        contextRoot: `/${app.name}`,
        status: 'DEPLOYED',
        deploymentState: 2,
      },
      `${R}WebAppComponentRuntimeMBean`,
    );
  }

  private dataSourceRuntime(b: TreeBuilder, parent: BeanRef, ds: NamedBean): void {
    b.item(parent, 'JDBCDataSourceRuntimeMBeans', ds.name, {
      state: 'Running',
      enabled: true,
      deploymentState: 2,
      moduleId: ds.name,
      currCapacity: 1,
      numAvailable: 1,
      highestNumAvailable: 1,
      connectionsTotalCount: 1,
      databaseProductName: 'PostgreSQL',
      driverName: 'org.postgresql.Driver',
      properties: {},
    });
  }

  /** A partition has a runtime on a server when it is targeted there and is not shut down. */
  private partitionRuntime(b: TreeBuilder, root: BeanRef, server: string, p: NamedBean): void {
    const desired = this.state.partitions[p.name] ?? HALTED;
    if (desired.state === 'SHUTDOWN' || !this.topology.partitionServers(p).includes(server)) return;
    const pr = b.item(root, 'partitionRuntimes', p.name, {
      state: desired.state,
      subState: desired.subState,
      partitionID: p.values.partitionID ?? null,
      serverName: server,
      overallHealthState: OK_HEALTH(null),
    });
    const jdbc = b.singleton(pr, 'JDBCPartitionRuntime', {});
    for (const rg of this.topology.resourceGroups(p)) {
      if (!this.topology.resourceGroupServers(p, rg).includes(server)) continue;
      if (this.resourceGroupState(p.name, rg.name) === 'SHUTDOWN') continue;
      for (const ds of this.topology.items(rg.identity, 'JDBCSystemResources')) this.dataSourceRuntime(b, jdbc, ds);
    }
  }
}
