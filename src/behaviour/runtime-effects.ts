// How configuration changes reach the runtime. A change concerns the runtime through the bean at
// the top of the domain that holds it (a server, a cluster, a deployment...): each such type says
// whether the change moves one server, the servers where that bean shows (before the change and
// after it: its members, its targets...), the whole runtime, or nothing. So an activation touching
// one cluster rebuilds what runs on that cluster, not the domain.
import type { TypeDef } from '../catalog/model.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

/** What an activation changed, as far as the runtime needs to know. */
export interface ActivationChange {
  operation: 'create' | 'modify' | 'delete';
  identity: readonly string[];
  properties?: readonly { name: string }[];
}

/**
 * Nothing the runtime shows, one server's runtime, the runtimes of the servers where the top-level
 * bean `placed` shows (as its type's placement says, before and after the change), or the whole
 * runtime (a rebuild).
 */
export type RuntimeEffect = 'none' | 'all' | { server: string } | { placed: readonly string[] };

/** What a placement reads of the activated configuration (with its dynamic servers). */
export interface PlacementView {
  bean(identity: readonly string[]): { values: Record<string, unknown> } | undefined;
  items(parent: readonly string[], collection: string): readonly { name: string; identity: readonly string[]; values: Record<string, unknown> }[];
  servers(): readonly { name: string; values: Record<string, unknown> }[];
  /** The servers a target (server, cluster, virtual target...) stands for. */
  serversOf(target: readonly string[]): readonly string[];
  /** The servers a list of target references stands for. */
  serversOfTargets(targets: unknown): readonly string[];
  /** The servers the partition named is targeted to through its resource groups. */
  partitionServersOf(name: string): readonly string[];
}

/** The servers whose runtime shows the top-level bean `identity` (none when it does not exist). */
type Placement = (view: PlacementView, identity: readonly string[]) => readonly string[];

const PLACEMENT = new BehaviourKind<Placement>('runtime placement');

/** Judges a change made to a top-level bean of the type, or to anything inside it. */
type EffectRule = (change: ActivationChange) => RuntimeEffect;

const EFFECT = new BehaviourKind<EffectRule>('runtime effect');

const C = 'appserver.management.configuration.';
const DOMAIN = `${C}DomainMBean`;

/** Domain properties the whole runtime shows or depends on. */
const DOMAIN_PROPS = new Set(['name', 'adminServerName', 'productionModeEnabled']);
/** Server properties its runtime shows or depends on. */
const SERVER_PROPS = new Set(['listenAddress', 'listenPort', 'machine']);
/** A server joining or leaving a cluster moves it onto (or off) what the cluster is targeted by. */
const CLUSTER_PROP = new Set(['cluster']);

const changes = (c: ActivationChange, names: ReadonlySet<string>) => c.properties?.some((p) => names.has(p.name)) === true;

export function registerRuntimeEffects(registry: BehaviourRegistry): void {
  registry.register(EFFECT, DOMAIN, (c) => (c.identity.length === 0 && changes(c, DOMAIN_PROPS) ? 'all' : 'none'));
  registry.register(EFFECT, `${C}ServerMBean`, (c) => {
    const name = c.identity[1];
    // What lies below a server (its logs, its SSL...) is not shown by the runtime.
    if (name === undefined || c.identity.length > 2) return 'none';
    if (c.operation !== 'modify') return { server: name };
    if (changes(c, CLUSTER_PROP)) return { placed: c.identity.slice(0, 2) };
    return changes(c, SERVER_PROPS) ? { server: name } : 'none';
  });
  registry.register(PLACEMENT, `${C}ServerMBean`, (v, id) => (v.bean(id) ? [id[1]!] : []));
  // These place things on servers, or make servers (a dynamic cluster's, from a template): the
  // servers where they show, before and after, follow.
  const placed: EffectRule = (c) => ({ placed: c.identity.slice(0, 2) });
  for (const t of ['ClusterMBean', 'ServerTemplateMBean', 'VirtualTargetMBean', 'PartitionMBean', 'ResourceGroupMBean', 'AppDeploymentMBean', 'JMSServerMBean', 'FileStoreMBean', 'JDBCStoreMBean', 'JMSSystemResourceMBean']) {
    registry.register(EFFECT, `${C}${t}`, placed);
  }
  // A machine made or removed may move dynamic servers between machines: the whole runtime follows.
  registry.register(EFFECT, `${C}MachineMBean`, (c) => (c.identity.length === 2 && c.operation !== 'modify' ? 'all' : placed(c)));
  // A migratable target stands for servers through properties the runtime does not follow yet.
  registry.register(EFFECT, `${C}MigratableTargetMBean`, () => 'all');
  // A data source: its own bean matters (its targets), its descriptor does not.
  registry.register(EFFECT, `${C}JDBCSystemResourceMBean`, (c) => (c.identity.length <= 2 ? placed(c) : 'none'));

  // Where each shows. A cluster: its members (its dynamic servers among them).
  registry.register(PLACEMENT, `${C}ClusterMBean`, (v, id) => v.serversOf(id));
  registry.register(PLACEMENT, `${C}VirtualTargetMBean`, (v, id) => v.serversOf(id));
  // A machine or a server template: the servers that name it.
  registry.register(PLACEMENT, `${C}MachineMBean`, (v, id) => namedBy(v, 'machine', id));
  registry.register(PLACEMENT, `${C}ServerTemplateMBean`, (v, id) => namedBy(v, 'serverTemplate', id));
  registry.register(PLACEMENT, `${C}PartitionMBean`, (v, id) => v.partitionServersOf(id[1]!));
  // Anything targeted (deployments, data sources, JMS servers, stores, domain resource groups).
  registry.register(PLACEMENT, `${C}TargetInfoMBean`, (v, id) => v.serversOfTargets(v.bean(id)?.values.targets));
  registry.register(PLACEMENT, `${C}ResourceGroupMBean`, (v, id) => v.serversOfTargets(v.bean(id)?.values.targets));
  registry.register(PLACEMENT, `${C}JMSServerMBean`, (v, id) => v.serversOfTargets(v.bean(id)?.values.targets));
  registry.register(PLACEMENT, `${C}PersistentStoreMBean`, (v, id) => v.serversOfTargets(v.bean(id)?.values.targets));
  // A JMS module: its own targets, and the JMS servers its sub-deployments place destinations on.
  registry.register(PLACEMENT, `${C}JMSSystemResourceMBean`, (v, id) => [
    ...v.serversOfTargets(v.bean(id)?.values.targets),
    ...v.items(id, 'subDeployments').flatMap((sd) => v.serversOfTargets(sd.values.targets)),
  ]);
}

/** Servers whose property `prop` refers to the bean `id`. */
function namedBy(v: PlacementView, prop: string, id: readonly string[]): string[] {
  return v.servers().filter((s) => {
    const ref = s.values[prop];
    return Array.isArray(ref) && ref.length === id.length && ref.every((x, i) => x === id[i]);
  }).map((s) => s.name);
}

/**
 * The servers whose runtime shows the top-level bean `identity`, as its type says (undefined when
 * its type says nothing: the whole runtime is then concerned).
 */
export function placementOf(registry: BehaviourRegistry, view: PlacementView, identity: readonly string[]): readonly string[] | undefined {
  const domain = registry.types.type(DOMAIN);
  const top = topLevelType(registry, domain, identity[0]);
  const placement = top && registry.find(PLACEMENT, top);
  return placement ? placement(view, identity) : undefined;
}

/** What the change does to the runtime, as the type of the top-level bean holding it says. */
export function runtimeEffect(registry: BehaviourRegistry, change: ActivationChange): RuntimeEffect {
  const domain = registry.types.type(DOMAIN);
  const top = topLevelType(registry, domain, change.identity[0]);
  const rule = top && registry.find(EFFECT, top);
  return rule ? rule(change) : 'none';
}

/** The declared type of the domain's child `prop` (the domain itself when there is none). */
function topLevelType(registry: BehaviourRegistry, domain: TypeDef, prop: string | undefined): TypeDef | undefined {
  if (prop === undefined) return domain;
  const p = domain.prop.get(prop);
  return p && (p.shape === 'collection' || p.shape === 'singleton') ? registry.types.type(p.javaType) : undefined;
}
