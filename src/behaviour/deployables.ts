// Deployables: collections whose items deployments make and remove. The type data gives them no
// creators, yet their items can be deleted; the domain's application deployments are made and
// removed by the deployment service itself (uploads, a progress object), not as plain configuration.
import type { TypeDef } from '../catalog/model.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

export interface Deployable {
  /** A POST to the collection deploys and a DELETE of an item undeploys, through the deployment service. */
  deploys: boolean;
}

/** Collection name -> how its items come and go, for the owner type. */
const DEPLOYABLES = new BehaviourKind<ReadonlyMap<string, Deployable>>('deployables');

const C = 'appserver.management.configuration.';

export function registerDeployables(registry: BehaviourRegistry): void {
  registry.register(DEPLOYABLES, `${C}DomainMBean`, new Map([['appDeployments', { deploys: true }], ['libraries', { deploys: false }]]));
  // Resource groups are resource group templates: both hold deployments of their own.
  registry.register(DEPLOYABLES, `${C}ResourceGroupTemplateMBean`, new Map([['appDeployments', { deploys: false }], ['libraries', { deploys: false }]]));
}

/** How deployments treat the items of the collection `collection` of an `owner` bean; undefined when they do not. */
export function deployable(registry: BehaviourRegistry, owner: TypeDef, collection: string): Deployable | undefined {
  for (const table of registry.all(DEPLOYABLES, owner)) {
    const found = table.get(collection);
    if (found) return found;
  }
  return undefined;
}

/** Whether the items of the collection are made and removed by the deployment service. */
export function deploysThrough(registry: BehaviourRegistry, owner: TypeDef, collection: string): boolean {
  return deployable(registry, owner, collection)?.deploys === true;
}
