// The five bean trees of a request, seen from its partition scope.
import type { Catalog } from '../catalog/load.js';
import { ACTIVATION, AUDIT_RECORD } from '../catalog/overlay/rest-only.js';
import type { AuditView } from '../security/audit.js';
import type { ConfigService } from '../config/config-service.js';
import type { BeanRecord, TreeSource } from '../tree/records.js';
import { DEFAULT_SESSION } from '../config/session.js';
import type { PropDef } from '../catalog/model.js';
import type { Domain } from '../domain/domain.js';
import { type DerivedContext, type ProcessFigures, derivedValues } from '../behaviour/derived-values.js';
import { isPartitionCollection } from '../behaviour/partition-scope.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { type RequestStats, processFigures } from '../runtime/live.js';
import { WithConnections } from '../runtime/pools.js';
import { WithTasks, serverTaskPrefix } from '../runtime/tasks.js';
import type { LiveValues, Mount, TreeName, TreeRoot } from '../tree/resolve.js';

export const TREE_NAMES: readonly TreeName[] = ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime'];

export interface Scope {
  partition?: string;
  /** Edit session of the request (the `appserver.edit.session` header); `default` otherwise. */
  session?: string;
  /** The requester is not an administrator (admin-only children are hidden). */
  restricted?: boolean;
  /** Audit records read for this request (an administrator's request that shows them). */
  audit?: AuditView;
}

export class Trees {
  private readonly process: ProcessFigures;
  private readonly behaviours: BehaviourRegistry;
  /** The domain runtime tree with its tasks. */
  private readonly domainSource: TreeSource;

  constructor(
    private readonly catalog: Catalog,
    private readonly domain: Domain,
    stats: RequestStats,
  ) {
    this.process = processFigures(stats);
    this.behaviours = domain.behaviours;
    this.domainSource = new WithTasks(domain.tasks, () => domain.runtime.domainTree);
  }

  root(name: TreeName, scope: Scope): TreeRoot {
    const root = this.unrestricted(name, scope);
    return scope.restricted ? { ...root, restricted: true } : root;
  }

  private unrestricted(name: TreeName, scope: Scope): TreeRoot {
    const filter = this.scopeFilter(scope);
    switch (name) {
      case 'edit': {
        const service = this.domain.configService;
        const session = service.session(scope.session ?? DEFAULT_SESSION);
        const live = this.derived({ ...this.context(scope), changeManager: () => service.changeManagerValues(session) });
        return {
          name,
          source: new WithActivations(session, service),
          type: this.catalog.type('appserver.management.configuration.DomainMBean'),
          base: [name],
          editable: true,
          live,
          ...(filter ? { filter } : {}),
        };
      }
      case 'serverConfig':
      case 'domainConfig':
        return {
          name,
          source: this.domain.config,
          type: this.catalog.type('appserver.management.configuration.DomainMBean'),
          base: [name],
          editable: false,
          ...(filter ? { filter } : {}),
        };
      case 'domainRuntime':
        return this.domainRuntime(scope, filter);
      case 'serverRuntime':
        return this.serverRoot(this.domain.topology().adminServerName, ['serverRuntime'], filter, this.derived(this.context(scope)))!;
    }
  }

  /** What derived values are read from, for a request of this scope. */
  private context(scope: Scope): DerivedContext {
    const config = this.domain.configService;
    const lockouts = this.domain.security.lockouts;
    return {
      runtime: this.domain.runtime,
      adminServer: this.domain.topology().adminServerName,
      process: this.process,
      lockouts: () => ({ ...lockouts.current() }),
      editSession: (name) => {
        const s = config.allSessions().find((x) => x.info.name === name);
        return s ? { currentEditor: s.info.owner, mergeNeeded: config.mergeNeeded(s) } : undefined;
      },
      ...(scope.partition ? { partition: scope.partition } : {}),
    };
  }

  private derived(ctx: DerivedContext): LiveValues {
    return (node) => derivedValues(this.behaviours, node, ctx);
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
        const root = this.serverRoot(server, ['domainRuntime', 'serverRuntimes', server], filter, live);
        return root && scope.restricted ? { ...root, restricted: true } : root;
      },
    };
    return {
      name: 'domainRuntime',
      source: scope.audit ? new WithAudit(this.domainSource, scope.audit) : this.domainSource,
      type: this.catalog.type('appserver.management.runtime.DomainRuntimeMBean'),
      base: ['domainRuntime'],
      mounts: new Map([['serverRuntimes', servers]]),
      editable: false,
      ...(filter ? { filter } : {}),
      live,
    };
  }

  private serverRoot(server: string, base: string[], filter: TreeRoot['filter'], live: LiveValues): TreeRoot | undefined {
    const tree = this.domain.runtime.serverTrees.get(server);
    if (!tree) return undefined;
    return {
      name: 'serverRuntime',
      source: new WithTasks(this.domain.tasks, () => new WithConnections(tree, this.domain.runtime.pools, server), serverTaskPrefix(server)),
      type: this.catalog.type('appserver.management.runtime.ServerRuntimeMBean'),
      base,
      server,
      editable: false,
      live,
      ...(filter ? { filter } : {}),
    };
  }
}

const ACTIVATIONS = 'changeManager/activations';

/** The edit tree's view plus the activation records under the change manager. */
class WithActivations implements TreeSource {
  constructor(
    private readonly inner: TreeSource,
    private readonly config: ConfigService,
  ) {}

  bean(key: string): BeanRecord | undefined {
    if (!key.startsWith(`${ACTIVATIONS}/`)) return this.inner.bean(key);
    const id = Number(key.slice(ACTIVATIONS.length + 1));
    const r = this.config.records.find((x) => x.id === id);
    if (!r) return undefined;
    const { id: _id, ...values } = r;
    return { type: ACTIVATION, values: { ...values, name: String(r.id) } };
  }

  itemNames(collectionKey: string): readonly string[] {
    if (collectionKey !== ACTIVATIONS) return this.inner.itemNames(collectionKey);
    return this.config.records.map((r) => String(r.id));
  }
}

const AUDIT = 'auditRecords';

/** The domain runtime tree plus the audit records read for the request. */
class WithAudit implements TreeSource {
  constructor(
    private readonly inner: TreeSource,
    private readonly audit: AuditView,
  ) {}

  bean(key: string): BeanRecord | undefined {
    if (!key.startsWith(`${AUDIT}/`)) return this.inner.bean(key);
    const name = key.slice(AUDIT.length + 1);
    if (!/^[1-9][0-9]{0,15}$/.test(name)) return undefined;
    const id = Number(name);
    const r = this.audit.page.find((x) => x.id === id) ?? (this.audit.extra?.id === id ? this.audit.extra : undefined);
    if (!r) return undefined;
    const { id: _id, ...values } = r;
    return { type: AUDIT_RECORD, values: { ...values, name } };
  }

  itemNames(collectionKey: string): readonly string[] {
    if (collectionKey !== AUDIT) return this.inner.itemNames(collectionKey);
    return this.audit.page.map((r) => String(r.id));
  }
}
