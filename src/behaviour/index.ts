// The behaviours of this product's bean types, every module registering what it knows.
import { registerConfigRules } from './config-rules.js';
import { registerConnectionSettings } from './connection-settings.js';
import { registerCreateOnly } from './create-only.js';
import { registerDeployables } from './deployables.js';
import { registerDerivedDefaults } from './derived-defaults.js';
import { registerDerivedReferences } from './derived-references.js';
import { registerDerivedValues } from './derived-values.js';
import { registerWorkloadValues } from './workload-values.js';
import { registerDynamicServers } from './dynamic-servers.js';
import { registerPartitionScope } from './partition-scope.js';
import { BehaviourRegistry, type TypeLookup } from './registry.js';
import { registerRuntimeEffects } from './runtime-effects.js';
import { registerStateMachines } from './state-machines.js';

/** A registry holding every behaviour, for the catalog given (built once, at start-up). */
export function standardBehaviours(types: TypeLookup): BehaviourRegistry {
  const registry = new BehaviourRegistry(types);
  registerCreateOnly(registry);
  registerDeployables(registry);
  registerPartitionScope(registry);
  registerConfigRules(registry);
  registerConnectionSettings(registry);
  registerRuntimeEffects(registry);
  registerDerivedValues(registry);
  registerWorkloadValues(registry);
  registerDerivedReferences(registry);
  registerDerivedDefaults(registry);
  registerDynamicServers(registry);
  registerStateMachines(registry);
  return registry;
}
