// How configuration changes reach the runtime. A change concerns the runtime through the bean at
// the top of the domain that holds it (a server, a cluster, a deployment...): each such type says
// whether the change moves one server, the whole runtime (servers, targets, deployments), or nothing.
import type { TypeDef } from '../catalog/model.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

/** What an activation changed, as far as the runtime needs to know. */
export interface ActivationChange {
  operation: 'create' | 'modify' | 'delete';
  identity: readonly string[];
  properties?: readonly { name: string }[];
}

/** Nothing the runtime shows, one server's runtime, or the whole runtime (a rebuild). */
export type RuntimeEffect = 'none' | 'all' | { server: string };

/** Judges a change made to a top-level bean of the type, or to anything inside it. */
type EffectRule = (change: ActivationChange) => RuntimeEffect;

const EFFECT = new BehaviourKind<EffectRule>('runtime effect');

const C = 'appserver.management.configuration.';
const DOMAIN = `${C}DomainMBean`;

/** Domain properties the whole runtime shows or depends on. */
const DOMAIN_PROPS = new Set(['name', 'adminServerName', 'productionModeEnabled']);
/** Server properties its runtime shows or depends on. */
const SERVER_PROPS = new Set(['listenAddress', 'listenPort', 'machine']);
/** A server joining or leaving a cluster changes the cluster's servers, and so every target. */
const CLUSTER_PROP = new Set(['cluster']);

const changes = (c: ActivationChange, names: ReadonlySet<string>) => c.properties?.some((p) => names.has(p.name)) === true;

export function registerRuntimeEffects(registry: BehaviourRegistry): void {
  registry.register(EFFECT, DOMAIN, (c) => (c.identity.length === 0 && changes(c, DOMAIN_PROPS) ? 'all' : 'none'));
  registry.register(EFFECT, `${C}ServerMBean`, (c) => {
    const name = c.identity[1];
    // What lies below a server (its logs, its SSL...) is not shown by the runtime.
    if (name === undefined || c.identity.length > 2) return 'none';
    if (c.operation !== 'modify') return { server: name };
    if (changes(c, CLUSTER_PROP)) return 'all';
    return changes(c, SERVER_PROPS) ? { server: name } : 'none';
  });
  // These move servers, targets or deployments (a template makes a dynamic cluster's servers): the
  // whole runtime follows.
  for (const t of ['ClusterMBean', 'ServerTemplateMBean', 'MachineMBean', 'VirtualTargetMBean', 'MigratableTargetMBean', 'PartitionMBean', 'ResourceGroupMBean', 'AppDeploymentMBean', 'JMSServerMBean', 'FileStoreMBean']) {
    registry.register(EFFECT, `${C}${t}`, () => 'all');
  }
  // A data source: its own bean matters (its targets), its descriptor does not.
  registry.register(EFFECT, `${C}JDBCSystemResourceMBean`, (c) => (c.identity.length <= 2 ? 'all' : 'none'));
  // A JMS module: its destinations and sub-deployments place destinations on JMS servers too.
  registry.register(EFFECT, `${C}JMSSystemResourceMBean`, () => 'all');
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
