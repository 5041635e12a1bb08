// The bean trees of a request: the five management trees seen from its partition scope, the
// version lists and versions of both interfaces, and the Lifecycle Manager's resources.
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion } from '../catalog/model.js';
import { LIFECYCLE_ROOT } from '../catalog/overlay/lifecycle.js';
import { ACTIVATION, AUDIT_RECORD, CHANGE_MANAGER } from '../catalog/overlay/rest-only.js';
import { CURRENT_USER, LIFECYCLE_VERSIONS, MANAGEMENT_VERSION, MANAGEMENT_VERSIONS } from '../catalog/overlay/versions.js';
import { LEGACY_VERSION, LIFECYCLE_VERSION } from '../catalog/versions.js';
import type { AuditView } from '../security/audit.js';
import type { ConfigService } from '../config/config-service.js';
import { BeanTree, type BeanRecord, type TreeSource } from '../tree/records.js';
import { DEFAULT_SESSION } from '../config/session.js';
import type { PropDef } from '../catalog/model.js';
import type { Domain } from '../domain/domain.js';
import { type DerivedContext, type ProcessFigures, type RuntimeFigures, derivedValues } from '../behaviour/derived-values.js';
import type { WorkloadFigures } from '../behaviour/workload-values.js';
import type { ReadWatch } from './read-cache.js';
import { ConfigIndex } from '../behaviour/config-view.js';
import { isPartitionCollection } from '../behaviour/partition-scope.js';
import { withDynamicServers } from '../config/dynamic-servers.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { type RequestStats, processFigures } from '../runtime/live.js';
import { WithConnections } from '../runtime/pools.js';
import { WithTasks, serverTaskPrefix } from '../runtime/tasks.js';
import type { LiveValues, Mount, TreeName, TreeRoot } from '../tree/resolve.js';
import { keyOfIdentity } from '../core/identity.js';
import { unavailable } from '../core/problems.js';
import { partitionsNeeded } from '../lifecycle/beans.js';

/** The trees of a management version, named by the first segment after it. */
export const TREE_NAMES = ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime'] as const satisfies readonly TreeName[];
export type ManagementTreeName = (typeof TREE_NAMES)[number];

/** The two interfaces: the management trees and the Lifecycle Manager. */
export type Api = 'appserver' | 'lifecycle';

export interface Scope {
  partition?: string;
  /** Edit session of the request (the `appserver.edit.session` header); `default` otherwise. */
  session?: string;
  /** The requester is not an administrator (admin-only children are hidden). */
  restricted?: boolean;
  /** Audit records read for this request (an administrator's request that shows them). */
  audit?: AuditView;
  /** The server answering, when not the administration server (its own `serverRuntime`). */
  server?: string;
  /** Told what the request's render looks at beyond the stored state (for the read cache). */
  watch?: ReadWatch;
}

export class Trees {
  private readonly process: ProcessFigures;
  private readonly behaviours: BehaviourRegistry;
  /** The domain runtime tree with its tasks. */
  private readonly domainSource: TreeSource;
  private readonly versionLists: Record<Api, TreeRoot>;
  private activatedView?: { config: TreeSource; version: number; source: TreeSource; index: ConfigIndex };

  constructor(
    private readonly catalog: Catalog,
    private readonly domain: Domain,
    stats: RequestStats,
  ) {
    this.process = processFigures(stats);
    this.behaviours = domain.behaviours;
    this.domainSource = new WithTasks(domain.tasks, () => domain.runtime.domainTree);
    this.versionLists = { appserver: versionListRoot(catalog, 'appserver'), lifecycle: versionListRoot(catalog, 'lifecycle') };
  }

  /** The version list of an interface. */
  versions(api: Api): TreeRoot {
    return this.versionLists[api];
  }

  /** A version of the management interface, for `user` in the request's partition. */
  version(version: ApiVersion, user: string, partition: string | undefined, roles: Iterable<string> = []): TreeRoot {
    const p = partition === undefined ? undefined : this.domain.topology().partitions().find((x) => x.name === partition);
    const held = ROLE_ORDER.filter((r) => new Set(roles).has(r));
    const caller = p ? { user, partitionId: String(p.values.partitionID ?? p.name), partitionName: p.name, roles: held } : { user, partitionId: '0', partitionName: 'DOMAIN', roles: held };
    return versionRoot(this.catalog, version, caller);
  }

  /**
   * The Lifecycle Manager's resources for a request at `segments` below the version (`reading`:
   * GET or HEAD). The partitions of a runtime the request shows or names are fetched from it first.
   */
  async lifecycle(segments: readonly string[], reading: boolean): Promise<TreeRoot> {
    return lifecycleRoot(this.catalog, await this.domain.lifecycle.beans(partitionsNeeded(segments, reading)));
  }

  root(name: ManagementTreeName, scope: Scope): TreeRoot {
    const root = this.unrestricted(name, scope);
    return scope.restricted ? { ...root, restricted: true } : root;
  }

  private unrestricted(name: ManagementTreeName, scope: Scope): TreeRoot {
    const filter = this.scopeFilter(scope);
    switch (name) {
      case 'edit': {
        const service = this.domain.configService;
        const session = service.session(scope.session ?? DEFAULT_SESSION);
        // The edit tree derives its values from the session's view, pending changes included.
        const live = this.derived({ ...this.context(scope, session), changeManager: () => service.changeManagerValues(session) });
        return {
          name,
          source: withActivations(session, service),
          type: this.catalog.type('appserver.management.configuration.DomainMBean'),
          base: [name],
          editable: true,
          live,
          ...(filter ? { filter } : {}),
        };
      }
      case 'serverConfig':
      case 'domainConfig': {
        // The activated configuration with the dynamic clusters' servers.
        const { source } = this.activated();
        return {
          name,
          source,
          type: this.catalog.type('appserver.management.configuration.DomainMBean'),
          base: [name],
          editable: false,
          live: this.derived(this.context(scope)),
          ...(filter ? { filter } : {}),
        };
      }
      case 'domainRuntime':
        return this.domainRuntime(scope, filter);
      case 'serverRuntime': {
        const server = scope.server ?? this.domain.topology().adminServerName;
        const root = this.serverRoot(server, ['serverRuntime'], filter, this.derived(this.context(scope)), scope.watch);
        if (!root) throw unavailable(`The server '${server}' is ${this.domain.runtime.serverState(server)}: its runtime cannot be read.`, 5);
        return root;
      }
    }
  }

  /**
   * The activated configuration with its dynamic servers, and what is computed from it once (the
   * servers of each cluster...): kept until the configuration changes.
   */
  private activated(): { source: TreeSource; index: ConfigIndex } {
    const config = this.domain.config;
    const version = this.domain.configService.version;
    const held = this.activatedView;
    if (held && held.config === config && held.version === version) return held;
    const source = withDynamicServers(config);
    this.activatedView = { config, version, source, index: new ConfigIndex(source) };
    return this.activatedView;
  }

  /**
   * What derived values are read from, for a request of this scope; the configuration is the one
   * its tree shows (`view`: the edit session's view, else the activated configuration).
   */
  private context(scope: Scope, view?: TreeSource): DerivedContext {
    const config = this.domain.configService;
    const lockouts = this.domain.security.lockouts;
    const watch = scope.watch;
    return {
      runtime: watch ? watchedRuntime(this.domain.runtime, watch) : this.domain.runtime,
      adminServer: this.domain.topology().adminServerName,
      process: watch ? watchedProcess(this.process, watch) : this.process,
      lockouts: () => {
        if (watch) watch.volatile = true;
        return { ...lockouts.current() };
      },
      editSession: (name) => {
        const s = config.allSessions().find((x) => x.info.name === name);
        return s ? { currentEditor: s.info.owner, mergeNeeded: config.mergeNeeded(s) } : undefined;
      },
      ...(scope.partition ? { partition: scope.partition } : {}),
      ...(scope.restricted ? { restricted: true } : {}),
      config: view ? new ConfigIndex(view) : this.activated().index,
    };
  }

  private derived(ctx: DerivedContext): LiveValues {
    return (node, wanted) => derivedValues(this.behaviours, node, ctx, wanted);
  }

  /** Hides the other partitions from a partition-scoped request. */
  private scopeFilter(scope: Scope): ((prop: PropDef, name: string) => boolean) | undefined {
    const partition = scope.partition;
    if (!partition) return undefined;
    return (prop, name) => !isPartitionCollection(this.behaviours, prop) || name === partition;
  }

  private domainRuntime(scope: Scope, filter: TreeRoot['filter']): TreeRoot {
    const runtime = this.domain.runtime;
    const live = this.derived(this.context(scope));
    const servers: Mount = {
      names: () => runtime.runningServers(),
      root: (server) => {
        const root = this.serverRoot(server, ['domainRuntime', 'serverRuntimes', server], filter, live, scope.watch);
        return root && scope.restricted ? { ...root, restricted: true } : root;
      },
    };
    return {
      name: 'domainRuntime',
      source: scope.audit ? withAudit(this.domainSource, scope.audit) : this.domainSource,
      type: this.catalog.type('appserver.management.runtime.DomainRuntimeMBean'),
      base: ['domainRuntime'],
      mounts: new Map([['serverRuntimes', servers]]),
      editable: false,
      ...(filter ? { filter } : {}),
      live,
    };
  }

  private serverRoot(server: string, base: string[], filter: TreeRoot['filter'], live: LiveValues, watch?: ReadWatch): TreeRoot | undefined {
    const tree = this.domain.runtime.serverTrees.get(server);
    if (!tree) return undefined;
    // One layered view per root, not one per bean looked up. A pool's connections come and go,
    // and their figures move, outside any change told: a read that looks at them is not kept.
    const view = new WithConnections(tree, this.domain.runtime.pools, server, watch ? () => (watch.volatile = true) : undefined);
    return {
      name: 'serverRuntime',
      source: new WithTasks(this.domain.tasks, () => view, serverTaskPrefix(server)),
      type: this.catalog.type('appserver.management.runtime.ServerRuntimeMBean'),
      base,
      server,
      editable: false,
      live,
      ...(filter ? { filter } : {}),
    };
  }
}

/** The versions each interface lists: name, `isLatest`, `lifecycle`; the first is the current one (the domain's product version). */
function listedVersions(api: Api, productVersion: string): { type: string; itemType: string; versions: [string, boolean, string][] } {
  if (api === 'lifecycle') return { type: LIFECYCLE_VERSIONS, itemType: LIFECYCLE_ROOT, versions: [[LIFECYCLE_VERSION, true, 'active']] };
  return {
    type: MANAGEMENT_VERSIONS,
    itemType: MANAGEMENT_VERSION,
    versions: [
      [productVersion, true, 'active'],
      [LEGACY_VERSION, false, 'deprecated'],
    ],
  };
}

/**
 * The runtime's figures as a request's render reads them, telling `watch` what it looked at: states
 * move only with changes told, the model's figures with the clock, the rest by themselves.
 */
function watchedRuntime(runtime: RuntimeFigures, watch: ReadWatch): RuntimeFigures {
  const moving = <A extends unknown[], R>(read: (...args: A) => R) => (...args: A): R => {
    watch.volatile = true;
    return read(...args);
  };
  const model = runtime.workload;
  const figures = model
    ? (new Proxy(model, {
        get(target, name) {
          const value = Reflect.get(target, name, target) as unknown;
          if (typeof value !== 'function') return value;
          // A server's own health follows its data sources' databases, which move by themselves.
          const moves = name === 'server';
          return (...args: unknown[]) => {
            if (moves) watch.volatile = true;
            else watch.figures = true;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as WorkloadFigures)
    : undefined;
  return {
    serverState: (server) => runtime.serverState(server),
    serverStateVal: (server) => runtime.serverStateVal(server),
    partitionState: (partition) => runtime.partitionState(partition),
    partitionStateOn: (partition, server) => runtime.partitionStateOn(partition, server),
    resourceGroupState: (partition, group) => runtime.resourceGroupState(partition, group),
    dataSourceFigures: moving((server: string, partition: string, ds: string) => runtime.dataSourceFigures(server, partition, ds)),
    jdbcServiceFigures: moving((server: string, detailed: boolean) => runtime.jdbcServiceFigures(server, detailed)),
    poolFigures: moving((server: string, pool: string, adapter: string) => runtime.poolFigures(server, pool, adapter)),
    adapterFigures: moving((server: string, adapter: string) => runtime.adapterFigures(server, adapter)),
    jmsFigures: moving((jmsServer: string, destination?: string) => runtime.jmsFigures(jmsServer, destination)),
    ...(figures ? { workload: figures } : {}),
  };
}

/** This process's figures move with every request: a read showing them is never kept. */
function watchedProcess(process: ProcessFigures, watch: ReadWatch): ProcessFigures {
  return {
    jvm: () => ((watch.volatile = true), process.jvm()),
    threadPool: () => ((watch.volatile = true), process.threadPool()),
    openSockets: () => ((watch.volatile = true), process.openSockets()),
  };
}

/** The version list of an interface; its URLs are relative to the list itself (nothing is above it). */
export function versionListRoot(catalog: Catalog, api: Api): TreeRoot {
  const { type, itemType, versions } = listedVersions(api, catalog.productVersion);
  const tree = new BeanTree();
  tree.setRoot({ type, values: { current: [versions[0]![0]] } });
  // Each version sits right below the list (the collection's address is `*`).
  for (const [version, isLatest, lifecycle] of versions) tree.putRaw(keyOfIdentity([version]), { type: itemType, values: { version, isLatest, lifecycle } }, 'versions', version);
  return { name: 'versions', source: tree, type: catalog.type(type), base: [], editable: false, search: false };
}

/** The caller as `currentUser` shows it. */
/** Roles in the order people name them. */
const ROLE_ORDER = ['Admin', 'Deployer', 'Operator', 'Monitor'];

export interface Caller {
  user: string;
  partitionId: string;
  partitionName: string;
  /** The caller's roles (ours: the product does not say them; a console needs them to offer only what is allowed). */
  roles: string[];
}

/**
 * A version of the management interface: links to its trees, and `currentUser`. Every spelling of
 * a version in URLs shows the version's own name (`latest` shows the domain's product version).
 */
export function versionRoot(catalog: Catalog, version: ApiVersion, caller: Caller): TreeRoot {
  const current = version === 'current';
  const tree = new BeanTree();
  tree.setRoot({
    type: MANAGEMENT_VERSION,
    values: { version: current ? catalog.productVersion : LEGACY_VERSION, isLatest: current, lifecycle: current ? 'active' : 'deprecated' },
  });
  tree.putSingleton('', 'currentUser', { type: CURRENT_USER, values: { ...caller } });
  return { name: 'version', source: tree, type: catalog.type(MANAGEMENT_VERSION), base: [], editable: false, search: false };
}

/** The Lifecycle Manager's resources over a source of its records. */
export function lifecycleRoot(catalog: Catalog, source: TreeSource): TreeRoot {
  return { name: 'lifecycle', source, type: catalog.type(LIFECYCLE_ROOT), base: [], editable: true, search: false };
}

/** Records kept outside the bean tree (activations, audit records), numbered by id. */
interface NumberedRecords {
  /** The records listed in the collection, in order. */
  listed(): readonly { id: number }[];
  /** A record by id, listed or not. */
  byId(id: number): ({ id: number } & Record<string, unknown>) | undefined;
}

/** A tree's view plus a collection of numbered records at `collectionKey`, each a bean of `type` named by its id. */
class WithRecords implements TreeSource {
  constructor(
    private readonly inner: TreeSource,
    private readonly collectionKey: string,
    private readonly type: string,
    private readonly records: NumberedRecords,
  ) {}

  bean(key: string): BeanRecord | undefined {
    if (!key.startsWith(`${this.collectionKey}/`)) return this.inner.bean(key);
    const name = key.slice(this.collectionKey.length + 1);
    if (!/^[1-9][0-9]{0,15}$/.test(name)) return undefined;
    const r = this.records.byId(Number(name));
    if (!r) return undefined;
    const { id: _id, ...values } = r;
    return { type: this.type, values: { ...values, name } };
  }

  itemNames(collectionKey: string): readonly string[] {
    if (collectionKey !== this.collectionKey) return this.inner.itemNames(collectionKey);
    return this.records.listed().map((r) => String(r.id));
  }
}

/** The edit tree's view plus the activation records under the change manager. */
function withActivations(inner: TreeSource, config: ConfigService): TreeSource {
  return new WithRecords(inner, 'changeManager/activations', ACTIVATION, {
    listed: () => config.records,
    byId: (id) => config.records.find((x) => x.id === id) as ({ id: number } & Record<string, unknown>) | undefined,
  });
}

/** The domain runtime tree plus the audit records read for the request. */
function withAudit(inner: TreeSource, audit: AuditView): TreeSource {
  return new WithRecords(inner, 'auditRecords', AUDIT_RECORD, {
    listed: () => audit.page,
    byId: (id) => (audit.page.find((x) => x.id === id) ?? (audit.extra?.id === id ? audit.extra : undefined)) as ({ id: number } & Record<string, unknown>) | undefined,
  });
}
