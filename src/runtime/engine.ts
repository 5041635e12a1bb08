// The runtime engine: keeps the runtime trees (the domain runtime and one server runtime tree per
// running server) consistent with the configuration and the durable runtime state. States that
// change often (server, partition, resource group, data source) are read live from the state, so
// a transition rewrites a tree only when beans appear or disappear.
import type { Catalog } from '../catalog/load.js';
import { productVersionText } from '../catalog/versions.js';
import { type FaultHooks, NO_FAULTS } from '../core/faults.js';
import type { ItemKind, NamedBean, Topology } from '../config/topology.js';
import type { PartitionStateView, RuntimeFigures } from '../behaviour/derived-values.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { type ActivationChange, placementOf, runtimeEffect } from '../behaviour/runtime-effects.js';
import { BeanTree } from '../tree/records.js';
import { childKey, keyOfIdentity } from '../core/identity.js';
import { type BeanRef, TreeBuilder } from '../tree/builder.js';
import { ApplicationArchives } from './archives/applications.js';
import { type ServerFacts, DEFAULT_HEAP_MIB, MUXER_QUEUE, WorkloadModel, heapFromArguments } from './figures.js';
import { Messaging, pauseKey } from './messaging.js';
import { channelBeans, moduleBeans, servedChannelOf, storeBeans } from './workload-beans.js';
import { ServerTrees } from './server-trees.js';
import { ConnectorPools } from './pools.js';
import { DataSources } from './data-sources/pools.js';
import { dataSourceSettings } from './data-sources/settings.js';
import { undisclosedFailure } from './data-sources/reasons.js';
import { type ServerEndpoints, configuredAdministrationPort, endpointOf, serverEndpoints } from './endpoints.js';
import { ServedRequests } from './served.js';
import {
  HALTED,
  type PartitionState,
  type Retirement,
  type RuntimeState,
  SERVER_STATE_VAL,
  type ServerState,
  highestPartitionState,
  partitionActive,
  partitionDetailed,
  partitionWire,
} from './state.js';
import { okHealth } from './health.js';

const R = 'appserver.management.runtime.';
const C = 'appserver.management.configuration.';
/** The domain's and a server's properties that say whether and where its administration port listens. */
const ADMIN_PORT_DOMAIN_PROPS: ReadonlySet<string> = new Set(['administrationPortEnabled', 'administrationPort']);
const ADMIN_PORT_SERVER_PROPS: ReadonlySet<string> = new Set(['administrationPort']);

export type { ActivationChange } from '../behaviour/runtime-effects.js';

export interface EditSessionView {
  name: string;
  partition: string | null;
  creator: string;
  description: string;
  owner: string | null;
}


/** States in which a server answers requests and has a runtime tree. */
export const REACHABLE: ReadonlySet<string> = new Set(['RUNNING', 'ADMIN', 'STANDBY', 'SUSPENDING', 'RESUMING', 'FORCE_SUSPENDING', 'SHUTTING_DOWN', 'FORCE_SHUTTING_DOWN']);

/** States of a server that does not run (nor is on its way up or down). */
const STOPPED: ReadonlySet<string> = new Set(['SHUTDOWN', 'FAILED']);

/** Module type of an application, from its configuration or the extension of its source. */
export function moduleTypeOf(app: NamedBean): string {
  const declared = app.values.moduleType;
  if (typeof declared === 'string' && declared !== '') return declared.toLowerCase();
  const source = String(app.values.sourcePath ?? '');
  const ext = source.slice(source.lastIndexOf('.') + 1).toLowerCase();
  return ['war', 'ear', 'jar', 'rar'].includes(ext) ? ext : 'war';
}

/** The resource adapters among applications. */
const ADAPTERS: ItemKind = { name: 'rar', accept: (app) => moduleTypeOf(app) === 'rar' };

/** What a running server's runtime shows of the configuration, as its placement and states say. */
interface ServerPlan {
  /** Applications targeted to it and meant to run (active or administration mode). */
  apps: NamedBean[];
  /** Shared libraries targeted to it and deployed (active). */
  libraries: NamedBean[];
  /** Domain-level data sources targeted to it. */
  dataSources: readonly NamedBean[];
  /** Partitions active on it, each with the data sources of its resource groups that run there. */
  partitions: { partition: NamedBean; dataSources: NamedBean[] }[];
}

/** The runtime's states and counters, as derived values read them. */
export class RuntimeEngine implements RuntimeFigures {
  domainTree = new BeanTree();
  /** The running servers' runtime trees, each made when first read after its last change. */
  readonly serverTrees = new ServerTrees((name) => {
    const server = this.topology.server(name);
    return server ? this.buildServerTree(server) : undefined;
  });
  readonly pools = new ConnectorPools();
  /** The JDBC data sources of the running servers, with their connections to their databases. */
  readonly dataSources = new DataSources((ds, server) => this.faults.dataSourceDown(ds, server));
  /** The named edit sessions, shown as edit session configurations. */
  editSessions: () => EditSessionView[] = () => [];
  /** Faults injected through the control interface (none unless it is enabled). */
  faults: FaultHooks = NO_FAULTS;
  /** Called after every change of the durable state (persists it). */
  onStateChange: () => void = () => {};
  /** Called when a server moves to another lifecycle state (logs it). */
  onServerState: (server: string, state: ServerState) => void = () => {};
  /** JMS servers and destinations of the running servers, and what is paused on them. */
  readonly messaging: Messaging;
  /** The workload model: figures of the running servers' beans, computed when read. */
  readonly workload: WorkloadModel;
  /** Requests each managed server's own listener answered (real work its figures include). */
  readonly served = new ServedRequests();
  /** Called after servers changed state, appeared or disappeared (the listeners follow). */
  private readonly serverWatchers: (() => void)[] = [];

  constructor(
    private readonly catalog: Catalog,
    private readonly behaviours: BehaviourRegistry,
    private topology: Topology,
    readonly state: RuntimeState,
    readonly now: () => number,
    /** Added to every managed server's ports (`serve --port-offset`). */
    readonly portOffset = 0,
    /** Where deployed archives are read from, to show their modules. */
    private readonly archives: ApplicationArchives = new ApplicationArchives(undefined),
  ) {
    this.messaging = new Messaging(state, () => this.onStateChange());
    this.messaging.onPause = (jmsServer, destination, kind, paused) => {
      if (kind === 'insertion') this.notePause(jmsServer, destination, paused);
    };
    this.workload = new WorkloadModel(now, (server) => (this.serverTrees.has(server) ? this.state.runningSince.get(server) : undefined), (server) => this.unhealthySubsystems(server));
    this.workload.inputs.served = (server) => this.served.of(server);
    // This process is the administration server: it is running whenever the engine exists, and
    // it has just started, so it runs the configuration as activated.
    this.state.servers.set(topology.adminServerName, 'RUNNING');
    this.state.restartRequired.delete(topology.adminServerName);
    this.state.runningSince.set(topology.adminServerName, now());
    this.openAdminChannel(topology.adminServerName, topology);
    this.rebuild(topology);
  }

  get currentTopology(): Topology {
    return this.topology;
  }

  get adminServerName(): string {
    return this.topology.adminServerName;
  }

  // ---- servers ----

  serverState(name: string): ServerState {
    return this.state.servers.get(name) ?? 'SHUTDOWN';
  }

  hasServer(name: string): boolean {
    return this.topology.server(name) !== undefined;
  }

  runningServers(): string[] {
    return this.topology
      .servers()
      .map((s) => s.name)
      .filter((name) => this.serverTrees.has(name));
  }

  /** Calls `fn` after any server changed state, appeared or disappeared. */
  watchServers(fn: () => void): void {
    this.serverWatchers.push(fn);
  }

  private serversChanged(): void {
    for (const fn of this.serverWatchers) fn();
  }

  /** The port this process's administration server really listens on (`serve --port`), once known. */
  private adminListenPort: number | undefined;

  /**
   * Tells the runtime the port the administration server listens on, which may differ from its
   * configured listen port (`serve --port`): its runtime reports the port it is reached on.
   */
  setAdminListenPort(port: number): void {
    if (this.adminListenPort === port) return;
    this.adminListenPort = port;
    if (this.serverTrees.has(this.topology.adminServerName)) this.serverTrees.stale(this.topology.adminServerName);
    this.onStateChange();
  }

  /**
   * Where a server listens: its configured ports, shifted by the port offset for managed servers;
   * the administration server's plain port is the one this process listens on, when known.
   */
  endpoints(name: string): ServerEndpoints {
    const admin = name === this.topology.adminServerName;
    const found = serverEndpoints(this.topology, name, admin ? 0 : this.portOffset, this.state.sslChannels.get(name), this.state.adminChannels.get(name) ?? null);
    if (!admin) return found;
    // The administration server's plain port is the one this process listens on; its
    // administration port is shifted by the offset like the managed servers' ports, so several
    // domains with administration ports share one host.
    const port = this.adminListenPort;
    return {
      ...found,
      endpoints: found.endpoints.map((e) => (e.kind === 'default' && port !== undefined ? { ...e, port } : e.kind === 'administration' ? { ...e, port: e.port + this.portOffset } : e)),
    };
  }

  /**
   * Whether a running server's administration channel is open: management requests then go to its
   * administration port only, and its other ports refuse them.
   */
  administrationChannelOpen(name: string): boolean {
    return this.state.adminChannels.has(name);
  }

  /** Opens (or closes) a server's administration channel as the configuration now says. */
  private openAdminChannel(name: string, topology: Topology = this.topology): void {
    const port = configuredAdministrationPort(topology, name);
    if (port !== undefined) this.state.adminChannels.set(name, port);
    else this.state.adminChannels.delete(name);
  }

  /**
   * The administration server could not open its administration port: its channel stays closed,
   * so management goes on being served on its plain port (the domain is never left unreachable).
   */
  administrationPortFailed(name: string): void {
    if (!this.state.adminChannels.delete(name)) return;
    this.refreshServerTree(name);
    this.onStateChange();
  }

  /** Moves a server to a new state; it gains or loses its runtime tree as it becomes reachable or not. */
  setServerState(name: string, next: ServerState): void {
    const was = this.serverTrees.has(name);
    if (this.state.servers.get(name) !== next) this.onServerState(name, next);
    this.state.servers.set(name, next);
    const reachable = REACHABLE.has(next);
    if (reachable && !was) {
      const server = this.topology.server(name);
      if (server) {
        this.state.runningSince.set(name, this.now());
        this.state.restartRequired.delete(name);
        this.openSslChannel(name);
        this.openAdminChannel(name);
        this.serverTrees.stale(name);
        this.prepareServer(server);
      }
    } else if (!reachable && was) {
      this.serverTrees.delete(name);
      this.state.runningSince.delete(name);
      this.served.forget(name);
      this.state.sslChannels.delete(name);
      this.state.adminChannels.delete(name);
      for (const p of this.state.partitionServers.values()) p.delete(name);
      this.pools.dropServer(name);
      this.dataSources.dropServer(name);
      this.workload.dropServer(name);
      // What was paused on its JMS servers ends with them.
      const hosted = new Set(this.messaging.jmsServersOn(this.topology, name).map((j) => j.name));
      this.messaging.forget((jmsServer) => hosted.has(jmsServer));
      for (const j of hosted) this.workload.pauses.forget(JSON.stringify([j]).slice(0, -1));
    }
    if (STOPPED.has(next) && this.topology.retained.includes(name)) this.dropRetired(name);
    this.onStateChange();
    this.serversChanged();
  }

  /**
   * Opens (or closes) a managed server's SSL channel as its configuration now says (`SSL` enabled,
   * its listen port). The administration server is this process, which listens on plain HTTP only.
   */
  private openSslChannel(name: string): void {
    const ssl = this.topology.bean(['servers', name, 'SSL'])?.values;
    if (name !== this.topology.adminServerName && ssl?.enabled === true) this.state.sslChannels.set(name, Number(ssl.listenPort ?? 7002));
    else this.state.sslChannels.delete(name);
  }

  /** Restarts a running server's SSL channels: they take up the SSL configuration as it is now. */
  restartSslChannels(name: string): number | undefined {
    this.openSslChannel(name);
    this.refreshServerTree(name);
    this.onStateChange();
    this.serversChanged();
    return this.state.sslChannels.get(name);
  }

  /** Flags the running servers among `servers` as needing a restart. */
  markRestartRequired(servers: string[]): void {
    for (const s of servers) {
      if (!REACHABLE.has(this.serverState(s))) continue;
      this.state.restartRequired.add(s);
      // A tree not made yet is made from the state, which says it already.
      const root = this.serverTrees.ifMade(s)?.bean('');
      if (root) root.values.restartRequired = true;
    }
  }

  // ---- partitions and resource groups ----

  partition(name: string): NamedBean | undefined {
    return this.topology.byName('partitions', name);
  }

  /** Servers a partition is targeted to. */
  partitionTargets(name: string): string[] {
    const p = this.partition(name);
    return p ? [...this.topology.partitionServers(p)] : [];
  }

  desiredPartition(name: string): string {
    return partitionDetailed(this.state.partitions.get(name) ?? HALTED);
  }

  /** Detailed state of a partition on a server (its desired state where nothing else was said). */
  partitionOn(name: string, server: string): string {
    return this.state.partitionServers.get(name)?.get(server) ?? this.desiredPartition(name);
  }

  /** The partition's state: the highest over the running servers it targets, else the desired one. */
  partitionState(name: string): PartitionState {
    const running = this.partitionTargets(name).filter((s) => this.serverTrees.has(s));
    const highest = highestPartitionState(running.map((s) => this.partitionOn(name, s)));
    return partitionWire(highest ?? this.desiredPartition(name));
  }

  /** Sets the partition's state on some servers (and, when `desired`, the state it returns to). */
  setPartition(name: string, servers: string[], detailed: string, desired: boolean): void {
    if (desired) this.state.partitions.set(name, partitionWire(detailed));
    const perServer = this.state.partitionServers.get(name) ?? new Map<string, string>();
    this.state.partitionServers.set(name, perServer);
    for (const s of servers) perServer.set(s, detailed);
    // Resource groups follow the partition as a whole.
    for (const key of [...this.state.resourceGroups.keys()]) if (key.startsWith(`${name}/`)) this.state.resourceGroups.delete(key);
    for (const s of servers) this.refreshServerTree(s);
    this.onStateChange();
  }

  resourceGroupState(partition: string, rg: string): string {
    const explicit = this.state.resourceGroups.get(`${partition}/${rg}`);
    if (explicit) return explicit;
    if (partition === '') return 'RUNNING';
    const p = partitionDetailed(this.partitionState(partition));
    if (p === 'RUNNING' || p === 'ADMIN') return p;
    const group = this.partition(partition) && this.topology.resourceGroups(this.partition(partition)!).find((g) => g.name === rg);
    return p === 'BOOTED' && group?.values.administrative === true ? 'RUNNING' : 'SHUTDOWN';
  }

  setResourceGroup(partition: string, rg: string, state: string): void {
    this.state.resourceGroups.set(`${partition}/${rg}`, state);
    const p = this.partition(partition);
    const groups = p ? this.topology.resourceGroups(p) : this.topology.items([], 'resourceGroups');
    const group = groups.find((g) => g.name === rg);
    if (group) for (const s of this.topology.resourceGroupServers(p, group)) this.refreshServerTree(s);
    this.onStateChange();
  }

  // ---- applications and data sources ----

  appIntendedState(app: string): string {
    return this.state.applications.get(app) ?? 'STATE_ACTIVE';
  }

  setAppState(app: string, state: string): void {
    this.state.applications.set(app, state);
    const deployment = this.topology.byName('appDeployments', app);
    if (deployment) for (const s of this.topology.serversOfTargets(deployment.values.targets)) this.refreshServerTree(s);
    this.onStateChange();
  }

  /** The application is gone: its runtime state is forgotten. */
  forgetApp(app: string): void {
    this.state.applications.delete(app);
    this.state.retirements.delete(app);
    this.onStateChange();
  }

  /** State of a shared library: STATE_ACTIVE once deployed (the default), STATE_NEW while its deployment runs. */
  libraryState(library: string): string {
    return this.state.libraries.get(library) ?? 'STATE_ACTIVE';
  }

  setLibraryState(library: string, state: string): void {
    this.state.libraries.set(library, state);
    const deployment = this.topology.byName('libraries', library);
    if (deployment) for (const s of this.topology.serversOfTargets(deployment.values.targets)) this.refreshServerTree(s);
    this.onStateChange();
  }

  /** The library is gone: its runtime state is forgotten. */
  forgetLibrary(library: string): void {
    this.state.libraries.delete(library);
    this.onStateChange();
  }

  /** When the version the application's last redeploy replaced retires, if that redeploy said. */
  retirement(app: string): Retirement | undefined {
    return this.state.retirements.get(app);
  }

  setRetirement(app: string, retirement: Retirement): void {
    this.state.retirements.set(app, retirement);
    this.onStateChange();
  }

  dataSourceState(server: string, partition: string, ds: string): string {
    return this.state.dataSources.get(`${server}/${partition}/${ds}`) ?? 'Running';
  }

  /** The data source's last asynchronous task (shown as its `lastTask` reference). */
  private readonly lastTasks = new Map<string, string[]>();

  setLastDataSourceTask(server: string, partition: string, ds: string, identity: string[]): void {
    this.lastTasks.set(`${server}/${partition}/${ds}`, identity);
  }

  setDataSourceState(server: string, partition: string, ds: string, state: string): void {
    this.state.dataSources.set(`${server}/${partition}/${ds}`, state);
    this.dataSources.setState(server, partition, ds, state);
    this.onStateChange();
  }

  // ---- figures read at request time (derived values) ----

  serverStateVal(server: string): number {
    return SERVER_STATE_VAL[this.serverState(server)] ?? 9;
  }

  partitionStateOn(partition: string, server: string): PartitionStateView {
    return partitionWire(this.partitionOn(partition, server));
  }

  /**
   * The data source's figures. Its state is the operator's (Running, Suspended, Shutdown), except
   * that a running data source whose database cannot be used is Unhealthy, one whose first attempt
   * to reach it has not ended is Unknown, and one whose every connection is taken while requests
   * wait is Overloaded.
   */
  dataSourceFigures(server: string, partition: string, ds: string): Record<string, unknown> {
    const operator = this.dataSourceState(server, partition, ds);
    const live = this.dataSources.figures(server, partition, ds) ?? {};
    const health = this.dataSources.health(server, partition, ds);
    let state = operator;
    // A data source that lost its database (an injected fault) is unhealthy until the database is back.
    if (operator === 'Running' && this.faults.dataSourceDown(ds, server) !== undefined) state = 'Unhealthy';
    else if (operator === 'Running' && health) {
      if (health.health === 'failed') state = 'Unhealthy';
      else if (health.health === 'pending') state = 'Unknown';
      else if (Number(live.waitingForConnectionCurrentCount ?? 0) > 0 && Number(live.numAvailable ?? 0) === 0) state = 'Overloaded';
    }
    // Connection figures: a real pool's are the pool's own; the workload model gives them only to a
    // running data source whose database answers and whose connections this process does not hold
    // (one checked by TCP). A data source that cannot reach its database shows no invented ones.
    const modelled = state === 'Running' && !this.dataSources.hasPool(server, partition, ds) ? this.workload.dataSource(server, partition, ds) : undefined;
    return { ...modelled, ...live, state, enabled: operator !== 'Shutdown', lastTask: this.lastTasks.get(`${server}/${partition}/${ds}`) ?? null };
  }

  /**
   * The JDBC service's health on a server: a warning naming each data source that cannot use its
   * database, with the reason when `detailed` (administrators), a general sentence otherwise.
   */
  jdbcServiceFigures(server: string, detailed = true): Record<string, unknown> {
    const failing = this.dataSources.failing(server);
    const symptoms = failing.map((f) => ({
      type: 'jdbc',
      severity: 'medium',
      instanceId: f.partition === '' ? f.name : `${f.partition}/${f.name}`,
      info: detailed ? f.reason : undisclosedFailure(f.name),
    }));
    // `warn`, the token this product version uses (as the thread pool's health does).
    return { healthState: { state: failing.length > 0 ? 'warn' : 'ok', subsystemName: 'JDBC', partitionName: null, symptoms } };
  }

  poolFigures(server: string, pool: string, adapter: string): Record<string, unknown> | undefined {
    return this.pools.live(server, pool, adapter);
  }

  jmsFigures(jmsServer: string, destination?: string): Record<string, unknown> {
    const live = this.messaging.live(this.topology, jmsServer, destination);
    const server = this.jmsHost(jmsServer);
    if (server === undefined) return live;
    if (destination !== undefined) return { ...this.destinationFigures(server, jmsServer, destination, live.insertionPaused === true), ...live };
    // A JMS server that is down (an injected fault) says so in its health.
    const down = this.faults.jmsServerDown(jmsServer);
    if (down !== undefined) live.healthState = { state: 'critical', subsystemName: 'JMSServer', partitionName: null, symptoms: [{ severity: 'critical', info: down }] };
    // A JMS server's figures are those of its destinations added up.
    const hosted = this.messaging.destinationsOf(this.topology, jmsServer);
    const sums: Record<string, number> = {};
    const summed = ['messagesCurrentCount', 'messagesHighCount', 'messagesPendingCount', 'messagesReceivedCount', 'bytesCurrentCount', 'bytesHighCount', 'bytesPendingCount', 'bytesReceivedCount'];
    for (const name of summed) sums[name] = 0;
    for (const d of hosted) {
      const paused = this.messaging.live(this.topology, jmsServer, d.name).insertionPaused === true;
      const f = this.destinationFigures(server, jmsServer, d.name, paused) ?? {};
      for (const name of summed) sums[name]! += Number(f[name] ?? 0);
    }
    return { ...sums, destinationsCurrentCount: hosted.length, destinationsHighCount: hosted.length, destinationsTotalCount: hosted.length, ...live };
  }

  /** The running server a JMS server runs on. */
  private jmsHost(jmsServer: string): string | undefined {
    return this.topology.serversOfTargets(this.topology.bean(['JMSServers', jmsServer])?.values.targets).find((s) => this.serverTrees.has(s));
  }

  private destinationFigures(server: string, jmsServer: string, destination: string, paused: boolean): Record<string, unknown> | undefined {
    const keys = [pauseKey(jmsServer, undefined, 'insertion'), pauseKey(jmsServer, destination, 'insertion')];
    return this.workload.destination(server, jmsServer, destination, keys, paused);
  }

  /** Keeps when insertion stood still, so destinations receive nothing meanwhile. */
  private notePause(jmsServer: string, destination: string | undefined, paused: boolean): void {
    const server = this.jmsHost(jmsServer);
    const since = server === undefined ? undefined : this.state.runningSince.get(server);
    if (since === undefined) return;
    const key = pauseKey(jmsServer, destination, 'insertion');
    // Paused since the server started (as configured) and not noted yet: the pause began then.
    if (!this.workload.pauses.known(key) && this.messaging.paused(this.topology, jmsServer, destination, 'insertion')) this.workload.pauses.note(key, true, since);
    this.workload.pauses.note(key, paused, this.now());
  }

  adapterFigures(server: string, adapter: string): Record<string, unknown> {
    return this.pools.adapterLive(server, adapter);
  }

  // ---- building ----

  /**
   * Rebuilds the runtime from the configuration and the durable state: every server's runtime, or
   * only those of the servers in `only` (and of servers that appeared, or began to run meanwhile).
   * The domain runtime lists servers, applications, partitions and resource groups by name: it is
   * made again when one of those lists changed, or on a whole rebuild.
   */
  rebuild(topology: Topology, only?: ReadonlySet<string>, changes?: readonly ActivationChange[]): void {
    this.topology = this.followDynamicServers(topology, changes);
    // States of beans the configuration does not (yet) show are kept: another server sharing the
    // store may have written them ahead of the activation that makes those beans.
    for (const s of topology.servers()) if (!this.state.servers.has(s.name)) this.state.servers.set(s.name, 'SHUTDOWN');
    for (const p of topology.partitions()) if (!this.state.partitions.has(p.name)) this.state.partitions.set(p.name, { ...HALTED });
    // Changes that can move none of the domain runtime's lists leave its shape as it was.
    const shape = changes && this.domainShape && this.topology.carriedFrom && !changes.some(movesDomainShape) ? undefined : domainShape(this.topology);
    const same = shape === undefined || sameShape(shape, this.domainShape);
    if (only === undefined || !same) this.domainTree = this.buildDomainTree();
    if (shape && !same) this.domainShape = keptShape(shape);
    if (only === undefined) this.serverTrees.clear();
    this.runningApps = new Map();
    try {
      this.prepareServers(topology, only);
    } finally {
      this.runningApps = undefined;
    }
    for (const name of [...this.serverTrees.keys()]) if (!topology.server(name)) this.serverTrees.delete(name);
    this.dataSources.keepServers(new Set(this.serverTrees.keys()));
    this.serversChanged();
  }

  /** Each running server's runtime prepared (only those of `only` and those without one yet, when given). */
  private prepareServers(topology: Topology, only: ReadonlySet<string> | undefined): void {
    for (const s of topology.servers()) {
      if (!REACHABLE.has(this.serverState(s.name))) {
        this.state.runningSince.delete(s.name);
        if (this.serverTrees.has(s.name)) this.serverTrees.delete(s.name);
        continue;
      }
      if (!this.state.runningSince.has(s.name)) this.state.runningSince.set(s.name, this.now());
      if (only !== undefined && this.serverTrees.has(s.name) && !only.has(s.name)) continue;
      this.serverTrees.stale(s.name);
      this.prepareServer(s);
    }
  }

  /** What the domain runtime was last made from (its lists of names), to know when to make it again. */
  private domainShape: DomainShape | undefined;

  /** Servers where the beans of the activation under way showed before it ('all': not known). */
  private shownBefore: Set<string> | 'all' | undefined;

  /**
   * Told of an activation's changes before the configuration takes them: notes the servers where
   * the beans they touch show now (an application's servers before it moves, a cluster's members
   * before one leaves), so that the activation rebuilds those servers' runtimes too.
   */
  noteActivation(changes: readonly ActivationChange[]): void {
    try {
      this.noteShown(changes);
    } catch {
      // Called in the middle of an activation, it never stops one: the runtime is then rebuilt whole.
      this.shownBefore = 'all';
    }
  }

  private noteShown(changes: readonly ActivationChange[]): void {
    for (const c of changes) {
      const effect = runtimeEffect(this.behaviours, c);
      if (typeof effect !== 'object' || !('placed' in effect)) continue;
      const servers = this.shownBefore === 'all' ? undefined : placementOf(this.behaviours, this.topology, effect.placed);
      if (!servers) {
        this.shownBefore = 'all';
        return;
      }
      const noted = this.shownBefore instanceof Set ? this.shownBefore : new Set<string>();
      for (const s of servers) noted.add(s);
      this.shownBefore = noted;
    }
  }

  /**
   * Follows an activation. Most changes concern one server or nothing the runtime shows, and cost
   * only that; changes that place things on servers (clusters, targets, partitions, deployments)
   * rebuild the runtimes of the servers where those things showed before and show now.
   */
  applyActivation(changes: readonly ActivationChange[], topology: Topology): void {
    this.applyChanges(changes, topology);
    this.followAdministrationPort(changes);
  }

  /**
   * The administration port's settings (the domain's switch and port, a server's own port): where
   * the version's types say a change takes effect at once, every running server takes it up now
   * (opening or closing its administration channel); where they say it needs a restart, running
   * servers keep the channel they started with and are flagged as needing a restart.
   */
  private followAdministrationPort(changes: readonly ActivationChange[]): void {
    const domainType = this.catalog.types.get(`${C}DomainMBean`);
    const serverType = this.catalog.types.get(`${C}ServerMBean`);
    let dynamic = false;
    let touched = false;
    for (const c of changes) {
      const type = c.identity.length === 0 ? domainType : c.identity.length === 2 && c.identity[0] === 'servers' ? serverType : undefined;
      const names = c.identity.length === 0 ? ADMIN_PORT_DOMAIN_PROPS : ADMIN_PORT_SERVER_PROPS;
      for (const p of c.properties ?? []) {
        if (!type || !names.has(p.name)) continue;
        touched = true;
        if (type.prop.get(p.name)?.restartNeeded !== true) dynamic = true;
      }
    }
    if (!touched || !dynamic) return;
    let moved = false;
    for (const { name } of this.topology.servers()) {
      if (!REACHABLE.has(this.serverState(name))) continue;
      const before = this.state.adminChannels.get(name);
      this.openAdminChannel(name);
      if (this.state.adminChannels.get(name) === before) continue;
      moved = true;
      this.refreshServerTree(name);
    }
    if (!moved) return;
    this.onStateChange();
    this.serversChanged();
  }

  private applyChanges(changes: readonly ActivationChange[], topology: Topology): void {
    // What the changes cannot have moved is taken over from the topology followed so far, before
    // anything is asked of the new one (a cluster's members, the servers' list).
    if (topology.retained.length === 0) topology.carry(this.topology, changes);
    const before = this.shownBefore;
    this.shownBefore = undefined;
    // Removed servers and partitions take their states with them.
    for (const c of changes) {
      if (c.operation !== 'delete' || c.identity.length !== 2) continue;
      const [collection, name] = c.identity as [string, string];
      if (collection === 'servers') this.state.servers.delete(name);
      if (collection === 'partitions') {
        this.state.partitions.delete(name);
        this.state.partitionServers.delete(name);
      }
    }
    const servers = new Set<string>();
    const placed: (readonly string[])[] = [];
    for (const c of changes) {
      const effect = runtimeEffect(this.behaviours, c);
      if (effect === 'all') return this.rebuild(topology);
      if (effect === 'none') continue;
      if ('server' in effect) servers.add(effect.server);
      else placed.push(effect.placed);
    }
    if (placed.length > 0) {
      // Where those beans showed (noted before the configuration changed) and where they show now.
      if (before === undefined || before === 'all') return this.rebuild(topology);
      const touched = new Set([...before, ...servers]);
      for (const identity of placed) {
        const now = placementOf(this.behaviours, topology, identity);
        if (!now) return this.rebuild(topology);
        for (const s of now) touched.add(s);
      }
      for (const name of servers) this.refreshServer(name, topology);
      this.rebuild(topology, touched, changes);
    } else {
      this.topology = this.followDynamicServers(topology, changes);
      for (const name of servers) this.refreshServer(name);
    }
    // A data source's descriptor (its URL, user, password, pool sizes) shows in no tree, but its
    // pools follow it: the servers running data sources take the new descriptor up.
    if (changes.some((c) => c.identity.includes('JDBCSystemResources'))) {
      for (const name of [...this.serverTrees.keys()]) {
        const server = servers.has(name) ? undefined : this.topology.server(name);
        if (server) this.prepareServer(server);
      }
    }
    // Ports may have moved: the listeners look again.
    if (servers.size > 0 && placed.length === 0) this.serversChanged();
  }

  /**
   * Dynamic servers a shrunk cluster dropped: one still running stays listed until it has stopped;
   * the state of the others goes with them.
   */
  /** `changes`: what changed since the current topology (what it knew of the rest is taken over). */
  private followDynamicServers(next: Topology, changes?: readonly ActivationChange[]): Topology {
    const base = next.retaining([]);
    // What the changes cannot have moved is taken over first (the servers' list among it, mostly).
    if (changes) base.carry(this.topology, changes);
    const keep: string[] = [];
    for (const [name, state] of this.state.servers) if (!STOPPED.has(state) && !base.server(name) && base.couldBeDynamic(name)) keep.push(name);
    // A servers' list taken over is the same list: no dynamic server left it; nor did one when the
    // runtime follows the topology it was made with (at start-up: nothing to compare).
    const sameServers = base.carriedFrom === this.topology || (next === this.topology && next.retained.length === 0);
    if (!sameServers) {
      for (const s of this.topology.servers()) {
        if (s.values.dynamicallyCreated === true && !base.server(s.name) && !keep.includes(s.name)) this.state.servers.delete(s.name);
      }
    }
    if (keep.length === 0) return base;
    const followed = base.retaining(keep);
    return changes ? followed.carry(this.topology, changes) : followed;
  }

  /** Dropped dynamic servers that are still running (they are to be shut down). */
  retiringServers(): string[] {
    return [...this.topology.retained];
  }

  /** A dropped dynamic server has stopped: it leaves the runtime. */
  private dropRetired(name: string): void {
    this.topology = this.topology.retaining(this.topology.retained.filter((n) => n !== name));
    this.refreshServer(name);
  }

  /** Rewrites the edit session configurations of the domain and of every partition. */
  refreshEditSessions(): void {
    const b = new TreeBuilder(this.catalog, this.domainTree);
    const root = this.domainRoot();
    this.putEditSessions(b, root, null);
    for (const p of this.topology.partitions()) {
      const dpr = b.refOf(root, 'domainPartitionRuntimes', p.name);
      if (dpr) this.putEditSessions(b, dpr, p.name);
    }
  }

  private domainRoot(): BeanRef {
    return { key: '', type: this.catalog.type(`${R}DomainRuntimeMBean`), identity: [] };
  }

  /** Brings one server's lifecycle runtime and runtime tree in line with its configuration. */
  private refreshServer(name: string, topology: Topology = this.topology): void {
    const server = topology.server(name);
    // The domain runtime changes here without being made again: the next rebuild looks afresh.
    this.domainShape = undefined;
    const b = new TreeBuilder(this.catalog, this.domainTree);
    const root = this.domainRoot();
    if (!server) {
      this.state.servers.delete(name);
      const ref = b.refOf(root, 'serverLifeCycleRuntimes', name);
      if (ref) this.domainTree.remove(ref.key);
      this.serverTrees.delete(name);
      this.state.runningSince.delete(name);
      this.dataSources.dropServer(name);
      return;
    }
    if (!this.state.servers.has(name)) this.state.servers.set(name, 'SHUTDOWN');
    this.lifeCycleRuntime(b, root, name);
    this.refreshServerTree(name);
  }

  /** A running server's tree is made again when next read (beans appeared or disappeared on it). */
  refreshServerTree(name: string): void {
    if (!this.serverTrees.has(name)) return;
    const server = this.topology.server(name);
    if (!server) return;
    this.serverTrees.stale(name);
    this.prepareServer(server);
  }

  /**
   * While servers are prepared one after the other (nothing changes meanwhile), the applications
   * meant to run among those placed alike (a cluster's members share one list), found once.
   */
  private runningApps: Map<readonly NamedBean[], NamedBean[]> | undefined;

  /** The applications among `placed` meant to run (active or in administration mode). */
  private runningAmong(placed: readonly NamedBean[]): NamedBean[] {
    let apps = this.runningApps?.get(placed);
    if (!apps) {
      apps = placed.filter((app) => {
        const intended = this.appIntendedState(app.name);
        return intended === 'STATE_ACTIVE' || intended === 'STATE_ADMIN';
      });
      this.runningApps?.set(placed, apps);
    }
    return apps;
  }

  /** What the server's runtime shows of the configuration now. */
  private planOf(server: NamedBean): ServerPlan {
    const t = this.topology;
    const apps = this.runningAmong(t.placedOn('appDeployments', server.name));
    // A library runs where it is targeted once deployed; applications name it, nothing here resolves it.
    const libraries = t.placedOn('libraries', server.name).filter((lib) => this.libraryState(lib.name) === 'STATE_ACTIVE');
    return { apps, libraries, dataSources: t.placedOn('JDBCSystemResources', server.name), partitions: this.partitionsOf(server) };
  }

  /** The partitions with a runtime on the server, and the data sources each has there. */
  private partitionsOf(server: NamedBean): ServerPlan['partitions'] {
    const t = this.topology;
    const partitions: ServerPlan['partitions'] = [];
    for (const p of t.partitionsOn(server.name)) {
      // A partition has a runtime on a server when it is targeted there and active on it.
      if (!partitionActive(this.partitionOn(p.name, server.name))) continue;
      const dataSources: NamedBean[] = [];
      for (const rg of t.resourceGroups(p)) {
        if (!t.resourceGroupServers(p, rg).includes(server.name)) continue;
        if (this.resourceGroupState(p.name, rg.name) === 'SHUTDOWN') continue;
        dataSources.push(...t.items(rg.identity, 'JDBCSystemResources'));
      }
      partitions.push({ partition: p, dataSources });
    }
    return partitions;
  }

  /**
   * What a running server does at once, whether or not its tree is read: its data sources reach
   * their databases, its resource adapters have their pools, the workload model knows its facts.
   */
  private prepareServer(server: NamedBean): void {
    const t = this.topology;
    // Only the resource adapters placed on it count here: the whole list of its applications (tens
    // of thousands in a large domain) is made when its runtime tree is first read.
    const adapters = this.runningAmong(t.placedOn('appDeployments', server.name, ADAPTERS));
    const facts: ServerFacts = {
      heapMaxMiB: heapFromArguments(t.bean([...server.identity, 'serverStart'])?.values.arguments) ?? DEFAULT_HEAP_MIB,
      servedChannel: servedChannelOf(endpointOf(this.endpoints(server.name), 'default')?.port),
      pools: new Map(),
    };
    for (const app of adapters) this.pools.ensure(server.name, `eis/${app.name}`);
    this.dataSources.beginServer(server.name);
    for (const ds of t.placedOn('JDBCSystemResources', server.name)) this.wantDataSource(ds, server.name, facts, '');
    for (const { partition, dataSources } of this.partitionsOf(server)) for (const ds of dataSources) this.wantDataSource(ds, server.name, facts, partition.name);
    this.dataSources.endServer(server.name);
    this.workload.setFacts(server.name, facts);
  }

  private wantDataSource(ds: NamedBean, server: string, facts: ServerFacts, partition: string): void {
    const settings = dataSourceSettings(this.topology, ds.identity);
    this.dataSources.want(server, partition, ds.name, settings, this.dataSourceState(server, partition, ds.name));
    facts.pools.set(`${partition}/${ds.name}`, { initial: settings.initialCapacity, max: settings.maxCapacity });
  }

  private buildDomainTree(): BeanTree {
    const t = this.topology;
    const b = new TreeBuilder(this.catalog, new BeanTree());
    const root = b.root(`${R}DomainRuntimeMBean`, {
      name: t.domainName,
      activationTime: this.state.runningSince.get(t.adminServerName) ?? this.now(),
      currentDomainPartitionRuntime: null,
    });
    // The two lists that grow with the domain are made when first read: a start of a domain of
    // 10,000 servers and 50,000 applications answers without making 60,000 beans first.
    // A read of one server's lifecycle runtime makes that one alone.
    const servers = t.servers().map((s) => s.name);
    let named: Set<string> | undefined;
    b.tree.defer(
      childKey(root.key, 'serverLifeCycleRuntimes'),
      () => {
        for (const name of servers) this.lifeCycleRuntime(b, root, name);
      },
      (name) => ((named ??= new Set(servers)).has(name) ? b.itemRecord(root, 'serverLifeCycleRuntimes', name, lifeCycleFacts()) : undefined),
    );
    const apps = t.appDeployments();
    const deployment = b.singleton(root, 'deploymentManager', {});
    const appNames = apps.map((a) => a.name);
    let appNamed: Set<string> | undefined;
    b.tree.defer(
      childKey(deployment.key, 'appDeploymentRuntimes'),
      () => {
        for (const name of appNames) b.item(deployment, 'appDeploymentRuntimes', name, appDeploymentFacts(name));
      },
      (name) => ((appNamed ??= new Set(appNames)).has(name) ? b.itemRecord(deployment, 'appDeploymentRuntimes', name, appDeploymentFacts(name)) : undefined),
    );
    for (const lib of t.items([], 'libraries')) b.item(deployment, 'libDeploymentRuntimes', lib.name, libraryFacts(lib.name));
    b.singleton(root, 'appRuntimeStateRuntime', { applicationIds: appNames });
    for (const p of t.partitions()) this.domainPartition(b, root, p);
    for (const rg of t.items([], 'resourceGroups')) b.item(root, 'resourceGroupLifeCycleRuntimes', rg.name, {});
    this.putEditSessions(b, root, null);
    return b.tree;
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
    b.item(root, 'serverLifeCycleRuntimes', server, lifeCycleFacts());
  }

  private domainPartition(b: TreeBuilder, root: BeanRef, p: NamedBean): void {
    const dpr = b.item(root, 'domainPartitionRuntimes', p.name, { partitionID: p.values.partitionID ?? null });
    const plc = b.singleton(dpr, 'partitionLifeCycleRuntime', { name: p.name });
    for (const rg of this.topology.resourceGroups(p)) b.item(plc, 'resourceGroupLifeCycleRuntimes', rg.name, {});
    b.singleton(dpr, 'appRuntimeStateRuntime', { applicationIds: [] });
    this.putEditSessions(b, dpr, p.name);
  }

  /** A running server's runtime tree (its side effects were done by `prepareServer`). */
  private buildServerTree(server: NamedBean): BeanTree {
    const t = this.topology;
    const plan = this.planOf(server);
    // Never stored, and a hundred of them may live at once: no order index, lists trimmed at the end.
    const b = new TreeBuilder(this.catalog, new BeanTree({ stored: false }));
    const admin = server.name === t.adminServerName;
    const adminServer = t.server(t.adminServerName);
    const endpoints = this.endpoints(server.name);
    const host = endpoints.host;
    const plain = endpointOf(endpoints, 'default');
    const ssl = endpointOf(endpoints, 'ssl');
    const administration = endpointOf(endpoints, 'administration');
    // The default URL is the plain port's, else the SSL port's (as the product picks it).
    const main = plain ?? ssl;
    const defaultURL = main ? `${main.protocol === 'https' ? 't3s' : 't3'}://${host}:${main.port}` : null;
    const root = b.root(`${R}ServerRuntimeMBean`, {
      name: server.name,
      activationTime: this.state.runningSince.get(server.name) ?? this.now(),
      adminServer: admin,
      adminServerHost: String(adminServer?.values.listenAddress || 'localhost'),
      adminServerListenPort: this.adminListenPort ?? Number(adminServer?.values.listenPort ?? 7001),
      adminServerListenPortSecure: false,
      administrationURL: administration ? `t3s://${host}:${administration.port}` : defaultURL,
      administrationPortEnabled: administration !== undefined,
      defaultURL,
      listenPortEnabled: plain !== undefined,
      SSLListenPortEnabled: this.state.sslChannels.has(server.name),
      currentDirectory: process.cwd(),
      middlewareHome: '/opt/appserver',
      appserverHome: '/opt/appserver/server',
      appserverVersion: productVersionText(this.catalog.productVersion),
      currentMachine: Array.isArray(server.values.machine) ? String(server.values.machine[1]) : '',
      healthState: okHealth('ServerRuntime'),
      overallHealthState: okHealth(null),
      patchList: [],
      restartRequired: this.state.restartRequired.has(server.name),
    });
    b.singleton(root, 'threadPoolRuntime', { healthState: okHealth('threadpool') });
    // The self-tuning pool replaces the execute queues: only the socket muxer's is left to show.
    b.item(root, 'executeQueueRuntimes', MUXER_QUEUE);
    channelBeans(b, root, t, server, { host, port: plain?.port, sslPort: ssl?.port, adminPort: administration?.port, offset: this.portOffset });
    b.item(root, 'workManagerRuntimes', 'default', { healthState: okHealth('workmanager') });
    const connectors = b.singleton(root, 'connectorServiceRuntime', {});
    const baseURL = main ? `${main.protocol}://${host}:${main.port}` : `http://${host}`;
    for (const app of plan.apps) this.applicationRuntime(b, root, connectors, server.name, app, baseURL);
    // Nothing deployed here refers to a library: none is referenced.
    for (const lib of plan.libraries) b.item(root, 'libraryRuntimes', lib.name, { ...libraryFacts(lib.name), referenced: false });
    const jdbc = b.singleton(root, 'JDBCServiceRuntime', { healthState: okHealth('JDBC') });
    for (const ds of plan.dataSources) this.dataSourceRuntime(b, jdbc, ds);
    for (const { partition, dataSources } of plan.partitions) this.partitionRuntime(b, root, server.name, partition, dataSources);
    this.messaging.build(b, root, t, server.name);
    storeBeans(b, root, t, server.name);
    b.tree.compact();
    return b.tree;
  }

  /** Subsystems of a running server that are not healthy: its data sources that failed or are overloaded. */
  private unhealthySubsystems(server: string): Record<string, unknown>[] {
    const jdbc = this.jdbcServiceFigures(server).healthState as { state: string };
    return jdbc.state === 'ok' ? [] : [jdbc];
  }

  private applicationRuntime(b: TreeBuilder, parent: BeanRef, connectors: BeanRef, server: string, app: NamedBean, baseURL: string): void {
    const rt = b.item(parent, 'applicationRuntimes', app.name, {
      name: app.name,
      applicationName: app.name,
      applicationVersion: null,
      internal: false,
      activeVersionState: 2,
      healthState: okHealth(null),
      overallHealthState: okHealth(null),
    });
    const module = moduleTypeOf(app);
    const admin = this.appIntendedState(app.name) === 'STATE_ADMIN';
    const common = { moduleId: app.name, componentName: app.name, deploymentState: admin ? 5 : 2 };
    if (module !== 'rar') {
      const described = this.archives.modules({ name: app.name, moduleType: module, sourcePath: String(app.values.sourcePath ?? '') });
      moduleBeans(b, rt, server, app.name, described.modules, { admin, standalone: module !== 'ear', baseURL });
      return;
    }
    // A resource adapter: its component runtime, listed by the connector service too, with its pool.
    const jndi = `eis/${app.name}`;
    const values = {
      ...common,
      jndiName: jndi,
      state: 'Activated',
      EISType: 'Demo EIS',
      specVersion: '1.7',
      vendorName: 'appserver-admin',
      version: '1.0',
      versioned: false,
      activeVersion: true,
      connectionPoolCount: 1,
      inboundConnectionsCount: 0,
      healthState: okHealth('connector'),
    };
    const type = `${R}ConnectorComponentRuntimeMBean`;
    const component = b.item(rt, 'componentRuntimes', app.name, values, type);
    for (const owner of [component, b.item(connectors, 'RAs', app.name, values, type), b.item(connectors, 'activeRAs', app.name, values, type)]) {
      b.item(owner, 'connectionPools', jndi, {
        poolName: jndi,
        key: jndi,
        connectionFactoryName: jndi,
        connectorEisType: 'Demo EIS',
        managedConnectionFactoryClassName: 'appserver.demo.DemoManagedConnectionFactory',
        MCFClassName: 'appserver.demo.DemoManagedConnectionFactory',
        transactionSupport: 'NoTransaction',
        runtimeTransactionSupport: 'NoTransaction',
        testable: true,
        shrinkingEnabled: true,
        shrinkPeriodMinutes: 15,
        loggingEnabled: false,
        healthState: okHealth('connector'),
      });
    }
  }

  private dataSourceRuntime(b: TreeBuilder, parent: BeanRef, ds: NamedBean): void {
    b.item(parent, 'JDBCDataSourceRuntimeMBeans', ds.name, {
      deploymentState: 2,
      moduleId: ds.name,
    });
  }

  /** The runtime of a partition active on the server, with the data sources of its running resource groups. */
  private partitionRuntime(b: TreeBuilder, root: BeanRef, server: string, p: NamedBean, dataSources: readonly NamedBean[]): void {
    const pr = b.item(root, 'partitionRuntimes', p.name, {
      partitionID: p.values.partitionID ?? null,
      serverName: server,
      overallHealthState: okHealth(null),
    });
    const jdbc = b.singleton(pr, 'JDBCPartitionRuntime', {});
    for (const ds of dataSources) this.dataSourceRuntime(b, jdbc, ds);
  }
}

/** What a server's lifecycle runtime holds beside its state (which the behaviours give). */
function lifeCycleFacts(): Record<string, unknown> {
  return { nodeManagerRestartCount: 0, middlewareHome: '/opt/appserver', appserverHome: '/opt/appserver/server' };
}

/** What an application's deployment runtime holds. */
function appDeploymentFacts(name: string): Record<string, unknown> {
  return { applicationName: name, applicationVersion: null, modules: [name] };
}

/**
 * What a library's runtimes show of it, read from its name as the product names libraries:
 * `name#specification@implementation`, both versions optional.
 */
function libraryFacts(name: string): Record<string, unknown> {
  const m = /^([^#@]*)(?:#([^@]*))?(?:@(.*))?$/.exec(name);
  return {
    libraryIdentifier: name,
    libraryName: m?.[1] || name,
    specificationVersion: m?.[2] || null,
    implementationVersion: m?.[3] || null,
    partitionName: null,
  };
}

/** The lists of names the domain runtime is made from: when they are the same, so is it. */
interface DomainShape {
  lists: readonly (readonly string[])[];
  /** The partitions with their IDs and resource groups (a few hundred names at most). */
  partitions: string;
}

function domainShape(t: Topology): DomainShape {
  return {
    lists: [[t.domainName], t.source.itemNames('servers'), t.source.itemNames('appDeployments'), t.source.itemNames('libraries'), t.source.itemNames('resourceGroups')],
    partitions: JSON.stringify(t.partitions().map((p) => [p.name, p.values.partitionID ?? null, t.source.itemNames(childKey(keyOfIdentity(p.identity), 'resourceGroups'))])),
  };
}

/**
 * Whether a change may move the domain runtime's lists (the servers' list aside, which a topology
 * that took it over has not moved): the domain's name, servers, applications, libraries or resource groups
 * coming or going, anything of a partition.
 */
function movesDomainShape(c: ActivationChange): boolean {
  const [collection] = c.identity;
  if (collection === undefined || collection === 'partitions') return true;
  return c.identity.length <= 2 && c.operation !== 'modify' && (collection === 'servers' || collection === 'appDeployments' || collection === 'libraries' || collection === 'resourceGroups');
}

/** Whether two shapes are the same (name by name: tens of thousands of names cost a fraction of a millisecond). */
function sameShape(a: DomainShape, b: DomainShape | undefined): boolean {
  if (!b || a.partitions !== b.partitions || a.lists.length !== b.lists.length) return false;
  return a.lists.every((list, i) => {
    const other = b.lists[i]!;
    if (list.length !== other.length) return false;
    for (let j = 0; j < list.length; j++) if (list[j] !== other[j]) return false;
    return true;
  });
}

/** A shape kept to compare later ones with: its lists copied (the configuration's lists change in place). */
function keptShape(shape: DomainShape): DomainShape {
  return { lists: shape.lists.map((l) => [...l]), partitions: shape.partitions };
}
