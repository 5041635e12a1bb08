// Derived references: the read-only references of configuration beans that no one sets (and a
// dynamic cluster's server names, computed alike), each
// computed from the configuration the request sees (the edit session's view in `edit`, with its
// pending changes; the activated configuration, dynamic servers included, elsewhere): a cluster's
// servers and migratable targets, the domain's deployments, system resources and targets, a store's
// JMS server, who hosts a singleton service, a provider's realm, a destination's template...
import type { TypeDef } from '../catalog/model.js';
import { type BeanView } from './bean.js';
import { type ConfigIndex, refOf, refsOf } from './config-view.js';
import { keyOfIdentity, sameIdentity } from '../core/identity.js';
import { dynamicServerNames } from './dynamic-servers.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

type DeriveReferences = (bean: BeanView, view: ConfigIndex) => Record<string, unknown>;

const REFERENCES = new BehaviourKind<DeriveReferences>('derived references');

const C = 'appserver.management.configuration.';
const SECURITY = 'appserver.management.security.';
const JMS = 'appserver.j2ee.descriptor.wl.';
const WLDF = 'appserver.diagnostics.descriptor.';

/** Servers by the name of the cluster they belong to. */
function clusterMembers(view: ConfigIndex): Map<string, string[][]> {
  return view.once('cluster-members', () => {
    const out = new Map<string, string[][]>();
    for (const s of view.items([], 'servers')) {
      const c = refOf(s.values.cluster);
      if (c?.length === 2 && c[0] === 'clusters') out.set(c[1]!, [...(out.get(c[1]!) ?? []), s.identity]);
    }
    return out;
  });
}

/** The servers of a cluster, as the view sees the configuration (dynamic servers included there). */
export function membersOf(view: ConfigIndex, cluster: string): string[][] {
  return clusterMembers(view).get(cluster) ?? [];
}

/** Identities of the beans of the domain's collections whose declared type is a kind of `base`. */
function domainItemsOf(registry: BehaviourRegistry, view: ConfigIndex, domain: TypeDef, base: string): string[][] {
  return view.once(`domain-items:${base}`, () => {
    const out: string[][] = [];
    for (const child of domain.children) {
      if (child.shape !== 'collection') continue;
      const t = registry.types.type(child.javaType);
      if (t.name === base || t.ancestors.has(base)) out.push(...view.items([], child.name).map((i) => i.identity));
    }
    return out;
  });
}

/** Identities of the items of the bean's own collections whose declared type is a kind of `base`. */
function ownItemsOf(registry: BehaviourRegistry, view: ConfigIndex, bean: BeanView, base: string, only?: string): string[][] {
  const out: string[][] = [];
  for (const child of bean.type.children) {
    if (child.shape !== 'collection' || (only !== undefined && child.name !== only)) continue;
    const t = registry.types.type(child.javaType);
    if (t.name === base || t.ancestors.has(base)) out.push(...view.items(bean.identity, child.name).map((i) => i.identity));
  }
  return out;
}

/** The first bean of a domain collection whose reference `prop` names the bean. */
function referrer(view: ConfigIndex, collection: string, prop: string, target: readonly string[]): string[] | null {
  const index = view.once(`referrers:${collection}:${prop}`, () => {
    const out = new Map<string, string[]>();
    for (const item of view.items([], collection)) {
      const r = refOf(item.values[prop]);
      if (r && !out.has(keyOfIdentity(r))) out.set(keyOfIdentity(r), item.identity);
    }
    return out;
  });
  return index.get(keyOfIdentity(target)) ?? null;
}

/** Who hosts a singleton service or migratable target: its preferred server, else its first candidate. */
function hostingServer(view: ConfigIndex, bean: BeanView): string[] | null {
  const values = bean.record?.values ?? {};
  const preferred = refOf(values.userPreferredServer);
  if (preferred) return preferred;
  // A server's own migratable target for its transactions is hosted by that server.
  const id = bean.identity;
  if (id.length === 3 && id[0] === 'servers') return [id[0], id[1]!];
  const candidates = refsOf(values.constrainedCandidateServers);
  if (candidates.length > 0) return candidates[0]!;
  const cluster = refOf(values.cluster);
  if (cluster?.length === 2) return membersOf(view, cluster[1]!)[0] ?? null;
  return null;
}

export function registerDerivedReferences(registry: BehaviourRegistry): void {
  const derive = (type: string, fn: DeriveReferences) => registry.register(REFERENCES, type, fn);

  derive(`${C}DomainMBean`, (bean, view) =>
    bean.key === ''
      ? {
          deployments: domainItemsOf(registry, view, bean.type, `${C}DeploymentMBean`),
          systemResources: domainItemsOf(registry, view, bean.type, `${C}SystemResourceMBean`),
          targets: domainItemsOf(registry, view, bean.type, `${C}TargetMBean`),
        }
      : {},
  );
  derive(`${C}ClusterMBean`, (bean, view) => {
    const name = bean.identity[1];
    if (bean.identity.length !== 2 || name === undefined) return {};
    const migratable = view.items([], 'migratableTargets').filter((m) => sameIdentity(refOf(m.values.cluster) ?? [], bean.identity));
    return { servers: membersOf(view, name), migratableTargets: migratable.map((m) => m.identity) };
  });
  // Not a reference, but computed the same way: the names of a dynamic cluster's servers.
  derive(`${C}DynamicServersMBean`, (bean, view) => (bean.identity[0] === 'clusters' && bean.identity.length === 3 ? { dynamicServerNames: dynamicServerNames(view, bean.identity[1]!) } : {}));
  // A JMS store's JMS server: the one that keeps its messages there.
  derive(`${C}JMSStoreMBean`, (bean, view) => ({ JMSServer: referrer(view, 'JMSServers', 'persistentStore', bean.identity) }));
  // A system resource's descriptor: its one child of a descriptor type (JDBCResource, JMSResource...).
  derive(`${C}SystemResourceMBean`, (bean) => {
    const descriptor = bean.type.children.find((c) => c.shape !== 'collection' && c.javaType === bean.type.prop.get('resource')?.javaType);
    return { resource: descriptor ? [...bean.identity, descriptor.name] : null };
  });
  derive(`${C}SingletonServiceBaseMBean`, (bean, view) => ({ hostingServer: hostingServer(view, bean) }));
  // A component is active where it is targeted once its targets are activated.
  derive(`${C}ComponentMBean`, (bean) => ({ activatedTargets: refsOf(bean.record?.values.targets) }));
  derive(`${C}LifecycleManagerConfigMBean`, (bean, view) => ({ endPoints: view.items(bean.identity, 'configuredEndPoints').map((e) => e.identity) }));
  derive(`${C}WLDFServerDiagnosticMBean`, (bean, view) => ({ WLDFDataRetirements: ownItemsOf(registry, view, bean, `${C}WLDFDataRetirementMBean`) }));
  derive(`${WLDF}WLDFWatchNotificationBean`, (bean, view) => ({ notifications: ownItemsOf(registry, view, bean, `${WLDF}WLDFNotificationBean`) }));

  // A security provider, store or lockout manager belongs to the realm it is configured in.
  const realm: DeriveReferences = (bean) => {
    const at = bean.identity.lastIndexOf('realms');
    return { realm: at >= 0 && at + 1 < bean.identity.length ? bean.identity.slice(0, at + 2) : null };
  };
  for (const t of ['ProviderMBean', 'RDBMSSecurityStoreMBean', 'authentication.UserLockoutManagerMBean']) derive(`${SECURITY}${t}`, realm);

  // The parameters of a JMS destination (or template) come from its template: the one they
  // belong to, or the one their destination names.
  const template: DeriveReferences = (bean, view) => {
    const owner = bean.identity.slice(0, -1);
    const record = view.bean(owner);
    if (!record) return { templateBean: null };
    const t = registry.types.type(record.type);
    if ((t.name === `${JMS}TemplateBean` || t.ancestors.has(`${JMS}TemplateBean`))) return { templateBean: owner };
    return { templateBean: refOf(record.values.template) ?? null };
  };
  for (const t of ['DeliveryFailureParamsBean', 'DeliveryParamsOverridesBean', 'MessageLoggingParamsBean', 'MulticastParamsBean', 'ThresholdParamsBean', 'TopicSubscriptionParamsBean']) {
    derive(`${JMS}${t}`, template);
  }
}

/** The derived references of a configuration bean (every registration along its lineage). */
export function derivedReferences(registry: BehaviourRegistry, bean: BeanView, view: ConfigIndex): Record<string, unknown> | undefined {
  const all = registry.all(REFERENCES, bean.type);
  if (all.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  // The nearest registration wins: ancestors first, then closer types over them.
  for (let i = all.length - 1; i >= 0; i--) Object.assign(out, all[i]!(bean, view));
  return out;
}
