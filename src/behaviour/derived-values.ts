// Derived values: properties whose values live outside the stored records (states, counters,
// figures of this process, the change manager), read at request time. Each type says which of
// its values are derived and from what; the services that hold them are reached through a
// context given at call time, so this module stays below them.
import { CHANGE_MANAGER } from '../catalog/overlay/rest-only.js';
import { type BeanView, itemName } from './bean.js';
import { type ConfigIndex, refOf } from './config-view.js';
import { derivedDefaults } from './derived-defaults.js';
import { derivedReferences, membersOf } from './derived-references.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';
import { type WorkloadFigures, workloadValues } from './workload-values.js';

/** A partition's state as the wire shows it. */
export interface PartitionStateView {
  state: string;
  subState: string | null;
}

/** States and counters the runtime engine keeps. */
export interface RuntimeFigures {
  serverState(server: string): string;
  /** The server's state as the number `stateVal` reports. */
  serverStateVal(server: string): number;
  /** The partition's state over the servers it runs on. */
  partitionState(partition: string): PartitionStateView;
  partitionStateOn(partition: string, server: string): PartitionStateView;
  /** `partition` is '' for a resource group of the domain. */
  resourceGroupState(partition: string, group: string): string;
  dataSourceFigures(server: string, partition: string, dataSource: string): Record<string, unknown>;
  /**
   * The JDBC service of a server: its health, which names the data sources that cannot use their
   * database; why, only when `detailed` (for administrators: the reason can tell a database's open
   * port from a closed one).
   */
  jdbcServiceFigures(server: string, detailed: boolean): Record<string, unknown>;
  poolFigures(server: string, pool: string, adapter: string): Record<string, unknown> | undefined;
  adapterFigures(server: string, adapter: string): Record<string, unknown>;
  /** What is paused on a JMS server, or on one of its destinations. */
  jmsFigures(jmsServer: string, destination?: string): Record<string, unknown>;
  /** The workload model: figures of running servers' beans, computed when read. */
  readonly workload?: WorkloadFigures;
}

/** Figures of this process, which is the administration server. */
export interface ProcessFigures {
  jvm(): Record<string, unknown>;
  threadPool(): Record<string, unknown>;
  openSockets(): number;
}

export interface DerivedContext {
  runtime: RuntimeFigures;
  /** Name of the administration server: its runtime tree shows this process's own figures. */
  adminServer: string;
  process: ProcessFigures;
  /** The realm's lockout figures (the domain's: every server shows them). */
  lockouts(): Record<string, unknown>;
  /** The edit session named, as its configuration runtime shows it. */
  editSession(name: string): { currentEditor: string | null; mergeNeeded: boolean } | undefined;
  /** The change manager of the request's edit session (given for the edit tree only). */
  changeManager?: () => Record<string, unknown>;
  /** The request's partition scope. */
  partition?: string;
  /** The caller is not an administrator: figures that tell more than states (why a database fails) are kept general. */
  restricted?: boolean;
  /**
   * The configuration as the request's tree sees it (the edit session's view in `edit`, the
   * activated configuration with its dynamic servers elsewhere): derived references and defaults
   * of configuration beans, and cluster memberships, are computed from it.
   */
  config?: ConfigIndex;
}

type Derive = (bean: BeanView, ctx: DerivedContext) => Record<string, unknown> | undefined;

const DERIVED = new BehaviourKind<Derive>('derived values');

const R = 'appserver.management.runtime.';

/** States in which a server counts among its cluster's alive members. */
const ALIVE: ReadonlySet<string> = new Set(['RUNNING', 'ADMIN', 'STANDBY', 'SUSPENDING', 'FORCE_SUSPENDING', 'RESUMING']);

/** Whether the bean is in the administration server's runtime tree. */
const onAdminServer = (bean: BeanView, ctx: DerivedContext) => bean.scope.server !== undefined && bean.scope.server === ctx.adminServer;

export function registerDerivedValues(registry: BehaviourRegistry): void {
  const derive = (type: string, fn: Derive) => registry.register(DERIVED, type, fn);

  // ---- the edit tree ----
  derive(CHANGE_MANAGER, (_bean, ctx) => ctx.changeManager?.());

  // ---- the domain runtime ----
  derive(`${R}DomainRuntimeMBean`, (bean, ctx) =>
    bean.key === '' && ctx.partition !== undefined ? { currentDomainPartitionRuntime: ['domainPartitionRuntimes', ctx.partition] } : undefined,
  );
  derive(`${R}EditSessionConfigurationRuntimeMBean`, (bean, ctx) => {
    const s = ctx.editSession(String(bean.record?.values.name));
    return s ? { currentEditor: s.currentEditor, mergeNeeded: s.mergeNeeded } : undefined;
  });
  derive(`${R}ServerLifeCycleRuntimeMBean`, (bean, ctx) => ({ state: ctx.runtime.serverState(itemName(bean)) }));
  derive(`${R}PartitionLifeCycleRuntimeMBean`, (bean, ctx) => {
    const p = bean.scope.partition;
    return p === undefined ? undefined : { ...ctx.runtime.partitionState(p) };
  });
  derive(`${R}ResourceGroupLifeCycleRuntimeMBean`, (bean, ctx) => ({ state: ctx.runtime.resourceGroupState(bean.scope.partition ?? '', itemName(bean)) }));

  // ---- a server's runtime ----
  derive(`${R}ServerRuntimeMBean`, (bean, ctx) => {
    const server = bean.scope.server;
    if (server === undefined || bean.key !== '') return undefined;
    const values: Record<string, unknown> = { state: ctx.runtime.serverState(server), stateVal: ctx.runtime.serverStateVal(server) };
    if (onAdminServer(bean, ctx)) values.openSocketsCurrentCount = ctx.process.openSockets();
    return values;
  });
  derive(`${R}PartitionRuntimeMBean`, (bean, ctx) => {
    const { server, partition } = bean.scope;
    return server === undefined || partition === undefined ? undefined : { ...ctx.runtime.partitionStateOn(partition, server) };
  });
  derive(`${R}JDBCServiceRuntimeMBean`, (bean, ctx) => (bean.scope.server === undefined ? undefined : ctx.runtime.jdbcServiceFigures(bean.scope.server, ctx.restricted !== true)));
  derive(`${R}JDBCDataSourceRuntimeMBean`, (bean, ctx) => {
    const server = bean.scope.server;
    return server === undefined ? undefined : ctx.runtime.dataSourceFigures(server, bean.scope.partition ?? '', itemName(bean));
  });
  derive(`${R}ConnectorConnectionPoolRuntimeMBean`, (bean, ctx) => {
    const server = bean.scope.server;
    if (server === undefined) return undefined;
    // A pool is listed under its resource adapter: the item just above its collection.
    const id = bean.identity;
    const adapter = id[id.lastIndexOf('connectionPools') - 1] ?? '';
    return ctx.runtime.poolFigures(server, String(bean.record?.values.poolName ?? ''), adapter);
  });
  derive(`${R}ConnectorComponentRuntimeMBean`, (bean, ctx) => {
    const server = bean.scope.server;
    return server === undefined ? undefined : ctx.runtime.adapterFigures(server, itemName(bean));
  });
  derive(`${R}JMSServerRuntimeMBean`, (bean, ctx) => (bean.scope.server === undefined ? undefined : ctx.runtime.jmsFigures(itemName(bean))));
  derive(`${R}JMSDestinationRuntimeMBean`, (bean, ctx) => {
    // A destination is listed under its JMS server: the item two segments above its collection.
    const id = bean.identity;
    const jmsServer = id[id.lastIndexOf('destinations') - 1];
    return bean.scope.server === undefined || jmsServer === undefined ? undefined : ctx.runtime.jmsFigures(jmsServer, itemName(bean));
  });
  derive(`${R}UserLockoutManagerRuntimeMBean`, (bean, ctx) => (bean.scope.server === undefined ? undefined : ctx.lockouts()));
  // A clustered server's cluster runtime: the cluster and its members alive now.
  derive(`${R}ClusterRuntimeMBean`, (bean, ctx) => {
    const server = bean.scope.server;
    const config = ctx.config;
    if (server === undefined || !config || bean.key !== 'clusterRuntime') return undefined;
    const cluster = refOf(config.bean(['servers', server])?.values.cluster);
    if (cluster?.length !== 2) return undefined;
    const alive = membersOf(config, cluster[1]!)
      .map((m) => m[1]!)
      .filter((m) => ALIVE.has(ctx.runtime.serverState(m)));
    return { name: cluster[1], serverNames: alive, aliveServerCount: alive.length };
  });
  derive(`${R}JVMRuntimeMBean`, (bean, ctx) => (onAdminServer(bean, ctx) ? ctx.process.jvm() : undefined));
  derive(`${R}ThreadPoolRuntimeMBean`, (bean, ctx) => (onAdminServer(bean, ctx) ? ctx.process.threadPool() : undefined));
}

/**
 * The bean's derived values (undefined when its type has none, or none here). `wanted`: the only
 * properties the caller reads (a field list); the model's figures are computed only if it names one.
 */
export function derivedValues(registry: BehaviourRegistry, bean: BeanView, ctx: DerivedContext, wanted?: readonly { name: string }[]): Record<string, unknown> | undefined {
  const derived = registry.find(DERIVED, bean.type)?.(bean, ctx);
  // The model's figures, under what is known for real (states, this process's own figures).
  const modelled = workloadValues(registry, ctx.runtime?.workload, bean, wanted);
  const own = modelled && derived ? { ...modelled, ...derived } : (derived ?? modelled);
  const config = ctx.config;
  if (!config) return own;
  const computed = configurationValues(registry, bean, config);
  return computed && own ? { ...computed, ...own } : (computed ?? own);
}

/**
 * What a configuration bean shows beyond its stored values, computed from the configuration:
 * its derived defaults, then its derived references (undefined for other beans, or none).
 */
export function configurationValues(registry: BehaviourRegistry, bean: BeanView, config: ConfigIndex): Record<string, unknown> | undefined {
  if (bean.type.kind === 'runtime' || bean.type.kind === 'rest') return undefined;
  const defaults = derivedDefaults(registry, bean, config);
  const references = derivedReferences(registry, bean, config);
  return defaults && references ? { ...defaults, ...references } : (defaults ?? references);
}
