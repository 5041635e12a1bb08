// Queries of the configuration trees (edit, serverConfig, domainConfig): the lookups of the domain
// and partition beans (spec root actions; findConfigBeansWithTags inputs spec, other argument names
// chosen, api), and the sub-deployment of a JMS destination (spec deliveryFailureParams).
import type { Catalog } from '../catalog/load.js';
import { Topology } from '../config/topology.js';
import { fieldValue } from '../render/values.js';
import type { BeanNode, Resolver } from '../tree/resolve.js';
import { type Invocation, defineOperation, returns } from './define.js';
import { BOOL, CFG, STRING, ov, ovArray, p, query, str } from './declare.js';

const DOMAIN = CFG + 'DomainMBean';
const PARTITION = CFG + 'PartitionMBean';
const DELIVERY_FAILURE = 'appserver.j2ee.descriptor.wl.DeliveryFailureParamsBean';

/** Every bean of a configuration tree below `node`, depth first (a query, so O(tree) is fine). */
function* walk(resolver: Resolver, node: BeanNode): Generator<BeanNode> {
  yield node;
  for (const child of node.type.children) {
    if (child.onlyIn) continue;
    if (child.shape === 'singleton') {
      const bean = resolver.singleton(node, child);
      if (bean) yield* walk(resolver, bean);
    } else {
      for (const item of resolver.items(node, child)) yield* walk(resolver, item);
    }
  }
}

/** Items of the root collections whose item type is a kind of `base` (targets, system resources). */
function rootItemsOf(catalog: Catalog, resolver: Resolver, root: BeanNode, base: string): BeanNode[] {
  return root.type.children
    .filter((c) => c.shape === 'collection' && catalog.isA(catalog.type(c.javaType), base))
    .flatMap((c) => resolver.items(root, c));
}

const topology = (call: Invocation) => new Topology(call.node.root.source);

export const configurationQueries = [
  defineOperation(query(DOMAIN, 'arePartitionsPresent', [ov(BOOL)]), (call) => returns(topology(call).partitions().length > 0)),
  defineOperation(
    query(DOMAIN, 'findConfigBeansWithTags', [
      ovArray(CFG + 'ConfigurationMBean', str('type'), p('tags', STRING, true)),
      ovArray(CFG + 'ConfigurationMBean', str('type'), p('tags', STRING, true), p('matchAll', BOOL)),
    ]),
    (call, use) => {
      const typeName = String(call.args.type ?? '');
      const wanted = ((call.args.tags as string[] | null) ?? []).filter((t) => typeof t === 'string');
      const all = call.args.matchAll !== false;
      const found: string[][] = [];
      for (const n of walk(use.resolver, use.resolver.rootNode(call.node.root))) {
        if (typeName !== '' && n.type.short !== typeName && ![...n.type.ancestors].some((a) => use.catalog.types.get(a)?.short === typeName)) continue;
        const tags = (n.record?.values.tags as string[] | undefined) ?? [];
        if (tags.length === 0 || wanted.length === 0) continue;
        const match = all ? wanted.every((t) => tags.includes(t)) : wanted.some((t) => tags.includes(t));
        if (match) found.push([...n.identity]);
      }
      return returns(found);
    },
  ),
  defineOperation(query(DOMAIN, 'findPartitionByID', [ov(PARTITION, str('partitionID'))]), (call) => {
    const found = topology(call).partitions().find((x) => x.values.partitionID === call.args.partitionID);
    return returns(found ? found.identity : null);
  }),
  defineOperation(query(DOMAIN, 'listTags', [ovArray(STRING)]), (call, use) => {
    const tags = new Set<string>();
    for (const n of walk(use.resolver, use.resolver.rootNode(call.node.root))) for (const t of (n.record?.values.tags as string[] | undefined) ?? []) tags.add(t);
    return returns([...tags].sort());
  }),
  defineOperation(query(DOMAIN, 'lookupSystemResource', [ov(CFG + 'SystemResourceMBean', str('name'))]), (call, use) => {
    const hit = rootItemsOf(use.catalog, use.resolver, use.resolver.rootNode(call.node.root), `${CFG}SystemResourceMBean`).find((n) => n.record?.values.name === call.args.name);
    return returns(hit ? [...hit.identity] : null);
  }),
  defineOperation(query(DOMAIN, 'lookupTarget', [ov(CFG + 'TargetMBean', str('name'))]), (call, use) => {
    const hit = rootItemsOf(use.catalog, use.resolver, use.resolver.rootNode(call.node.root), `${CFG}TargetMBean`).find((n) => n.record?.values.name === call.args.name);
    return returns(hit ? [...hit.identity] : null);
  }),

  defineOperation(query(PARTITION, 'findEffectiveServerNames', [ovArray(STRING)]), (call) => {
    const t = topology(call);
    const found = t.partitions().find((x) => x.name === call.node.record?.values.name);
    return returns(found ? [...t.partitionServers(found)].sort() : []);
  }),
  defineOperation(query(PARTITION, 'lookupAvailableTarget', [ov(CFG + 'TargetMBean', str('name'))]), (call) => {
    const available = (call.node.record?.values.availableTargets as string[][] | undefined) ?? [];
    return returns(available.find((id) => id[id.length - 1] === call.args.name) ?? null);
  }),

  // The sub-deployment the destination holding these parameters is targeted through (its error
  // destination must be reachable there): the destination's `subDeploymentName`, null when unset.
  defineOperation(query(DELIVERY_FAILURE, 'findSubDeploymentName', [ov(STRING)]), (call, use) => {
    const owner = use.resolver.resolve(call.node.root, call.node.identity.slice(0, -1), 'legacy');
    if (owner.kind !== 'bean') return returns(null);
    const prop = owner.node.type.prop.get('subDeploymentName');
    return returns(prop ? fieldValue(prop, owner.node, undefined, false) : null);
  }),
];
