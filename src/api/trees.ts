// The five bean trees of a request, seen from its partition scope.
import type { Catalog } from '../catalog/load.js';
import { ACTIVATION, AUDIT_RECORD, CHANGE_MANAGER } from '../catalog/overlay/rest-only.js';
import type { AuditView } from '../security/audit.js';
import type { ConfigService } from '../config/config-service.js';
import type { BeanRecord, TreeSource } from '../tree/records.js';
import { DEFAULT_SESSION } from '../config/session.js';
import type { PropDef } from '../catalog/model.js';
import type { Domain } from '../domain/domain.js';
import { type RequestStats, adminServerLive } from '../runtime/live.js';
import { WithConnections } from '../runtime/pools.js';
import { WithTasks, serverTaskPrefix } from '../runtime/tasks.js';
import type { LiveValues, Mount, TreeName, TreeRoot } from '../tree/resolve.js';

export const TREE_NAMES: readonly TreeName[] = ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime'];

/** Collections whose items are partitions: a partition-scoped request sees only its own. */
const PARTITION_COLLECTIONS = new Set(['partitions', 'domainPartitionRuntimes', 'partitionRuntimes']);

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
  private readonly adminLive;
  /** The domain runtime tree with its tasks. */
  private readonly domainSource: TreeSource;

  constructor(
    private readonly catalog: Catalog,
    private readonly domain: Domain,
    stats: RequestStats,
  ) {
    this.adminLive = adminServerLive(stats);
    this.domainSource = new WithTasks(domain.tasks, () => domain.runtime.domainTree);
  }

  root(name: TreeName, scope: Scope): TreeRoot {
    const root = this.unrestricted(name, scope);
    return scope.restricted ? { ...root, restricted: true } : root;
  }

  private unrestricted(name: TreeName, scope: Scope): TreeRoot {
    const filter = scopeFilter(scope);
    switch (name) {
      case 'edit': {
        const service = this.domain.configService;
        const session = service.session(scope.session ?? DEFAULT_SESSION);
        return {
          name,
          source: new WithActivations(session, service),
          type: this.catalog.type('appserver.management.configuration.DomainMBean'),
          base: [name],
          editable: true,
          live: (node) => (node.type.name === CHANGE_MANAGER ? service.changeManagerValues(session) : undefined),
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
        return this.serverRoot(this.domain.topology().adminServerName, ['serverRuntime'], filter)!;
    }
  }

  private domainRuntime(scope: Scope, filter: TreeRoot['filter']): TreeRoot {
    const runtime = this.domain.runtime;
    const servers: Mount = {
      names: () => runtime.runningServers(),
      root: (server) => {
        const root = this.serverRoot(server, ['domainRuntime', 'serverRuntimes', server], filter);
        return root && scope.restricted ? { ...root, restricted: true } : root;
      },
    };
    const partition = scope.partition;
    const config = this.domain.configService;
    const states = runtime.live(null);
    const live: LiveValues = (node) => {
      if (node.key === '' && partition) return { currentDomainPartitionRuntime: ['domainPartitionRuntimes', partition] };
      if (node.type.short !== 'EditSessionConfigurationRuntime') return states(node);
      const s = config.allSessions().find((x) => x.info.name === node.record?.values.name);
      return s ? { currentEditor: s.info.owner, mergeNeeded: config.mergeNeeded(s) } : undefined;
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

  private serverRoot(server: string, base: string[], filter: TreeRoot['filter']): TreeRoot | undefined {
    const tree = this.domain.runtime.serverTrees.get(server);
    if (!tree) return undefined;
    const admin = server === this.domain.topology().adminServerName;
    const runtime = this.domain.runtime.live(server);
    // The realm's lockouts are the domain's: every server's user lockout manager shows them.
    const lockouts = this.domain.security.lockouts;
    const states: LiveValues = (node) => (node.type.short === 'UserLockoutManagerRuntime' ? { ...lockouts.current() } : runtime(node));
    const live: LiveValues = admin ? (node) => merge(states(node), this.adminLive(node)) : states;
    return {
      name: 'serverRuntime',
      source: new WithTasks(this.domain.tasks, () => new WithConnections(tree, this.domain.runtime.pools, server), serverTaskPrefix(server)),
      type: this.catalog.type('appserver.management.runtime.ServerRuntimeMBean'),
      base,
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

function merge(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return a && b ? { ...a, ...b } : (a ?? b);
}

function scopeFilter(scope: Scope): ((prop: PropDef, name: string) => boolean) | undefined {
  const partition = scope.partition;
  if (!partition) return undefined;
  return (prop, name) => !PARTITION_COLLECTIONS.has(prop.name) || name === partition;
}
