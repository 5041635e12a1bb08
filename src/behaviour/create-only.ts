// Create-only properties: read-only properties a create may still set. Where a deployment comes
// from, or a partition's id, is given when the bean is made and never changed afterwards.
import type { TypeDef } from '../catalog/model.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

const CREATE_ONLY = new BehaviourKind<readonly string[]>('create-only properties');

const C = 'appserver.management.configuration.';

export function registerCreateOnly(registry: BehaviourRegistry): void {
  registry.register(CREATE_ONLY, `${C}BasicDeploymentMBean`, ['sourcePath']);
  registry.register(CREATE_ONLY, `${C}PartitionMBean`, ['partitionID']);
  registry.register(CREATE_ONLY, `${C}AppDeploymentMBean`, [
    'sourcePath', 'planPath', 'planDir', 'installDir', 'stagingMode', 'planStagingMode', 'securityDDModel', 'altDescriptorPath', 'altDescriptorDir', 'versionIdentifier',
  ]);
}

/** Whether a create of a `type` bean may set the read-only property `name` (its own or its ancestors' rule). */
export function isCreateOnly(registry: BehaviourRegistry, type: TypeDef, name: string): boolean {
  return registry.all(CREATE_ONLY, type).some((names) => names.includes(name));
}
