// Deployables: collections whose items deployments make and remove. The type data gives them no
// creators, yet their items can be deleted; the domain's applications and shared libraries are made
// and removed by the deployment service itself (uploads, a progress object), not as plain configuration.
import type { TypeDef } from '../catalog/model.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

export interface Deployable {
  /** A POST to the collection deploys and a DELETE of an item undeploys, through the deployment service. */
  deploys: boolean;
  /** What an item is, in messages: 'application', 'library'. */
  what: string;
}

/** Collection name -> how its items come and go, for the owner type. */
const DEPLOYABLES = new BehaviourKind<ReadonlyMap<string, Deployable>>('deployables');

const C = 'appserver.management.configuration.';

export function registerDeployables(registry: BehaviourRegistry): void {
  // The domain's shared libraries are deployed as its applications are (a model naming a path on the
  // server, or an upload), each with a progress object.
  registry.register(DEPLOYABLES, `${C}DomainMBean`, new Map([['appDeployments', { deploys: true, what: 'application' }], ['libraries', { deploys: true, what: 'library' }]]));
  // Resource groups are resource group templates: both hold deployments of their own.
  registry.register(DEPLOYABLES, `${C}ResourceGroupTemplateMBean`, new Map([['appDeployments', { deploys: false, what: 'application' }], ['libraries', { deploys: false, what: 'library' }]]));
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
