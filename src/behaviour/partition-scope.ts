// Partition scoping. The beans of these types are partitions, or a partition seen from somewhere
// (the domain runtime, one server): a collection of them is partition-scoped. Everything reached
// through one of its items is in that partition's scope, and a partition-scoped request sees only
// its own partition's item.
import type { PropDef } from '../catalog/model.js';
import type { BeanScope } from './bean.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

const PARTITION = new BehaviourKind<true>('partition');

export function registerPartitionScope(registry: BehaviourRegistry): void {
  registry.register(PARTITION, 'appserver.management.configuration.PartitionMBean', true);
  registry.register(PARTITION, 'appserver.management.runtime.DomainPartitionRuntimeMBean', true);
  registry.register(PARTITION, 'appserver.management.runtime.PartitionRuntimeMBean', true);
}

/** Whether the collection `prop` is partition-scoped (its items are partitions, named as such). */
export function isPartitionCollection(registry: BehaviourRegistry, prop: PropDef): boolean {
  return prop.shape === 'collection' && registry.find(PARTITION, registry.types.type(prop.javaType)) === true;
}

/** The scope of the item `name` of the collection `prop` of a bean whose scope is `owner`. */
export function itemScope(registry: BehaviourRegistry, owner: BeanScope, prop: PropDef, name: string): BeanScope {
  if (!isPartitionCollection(registry, prop) || owner.partition === name) return owner;
  return { ...owner, partition: name };
}

/** `itemScope` for every item of one collection, with what the collection says judged once. */
export function itemScopes(registry: BehaviourRegistry, owner: BeanScope, prop: PropDef): (name: string) => BeanScope {
  if (!isPartitionCollection(registry, prop)) return () => owner;
  return (name) => (owner.partition === name ? owner : { ...owner, partition: name });
}
