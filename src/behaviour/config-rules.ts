// Rules of the domain configuration that span beans: the administration server cannot be deleted,
// and the domain must name an administration server it has. Each is registered on the type whose
// beans it guards, and checked by the configuration service before a change is recorded.
import { badRequest, invalid } from '../core/problems.js';
import { itemKey } from '../core/identity.js';
import type { TypeDef } from '../catalog/model.js';
import type { BeanLookup } from './config-view.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

/** The configuration as an edit session sees it: beans by key, and the items of a collection. */
export interface ConfigView extends BeanLookup {
  itemNames?(collectionKey: string): readonly string[];
}

export interface ConfigRule {
  /** Throws a problem when the update `body` of the bean at `key` would break the rule. */
  update?(view: ConfigView, key: string, body: Record<string, unknown>): void;
  /** Throws a problem when the bean at `key` may not be deleted. */
  delete?(view: ConfigView, key: string): void;
}

const RULES = new BehaviourKind<ConfigRule>('configuration rules');

const C = 'appserver.management.configuration.';

export function registerConfigRules(registry: BehaviourRegistry): void {
  registry.register(RULES, `${C}DomainMBean`, {
    update(view, key, body) {
      const admin = body.adminServerName;
      if (key === '' && typeof admin === 'string' && !view.bean(itemKey('servers', admin))) {
        throw invalid([{ path: 'adminServerName', detail: `There is no server named '${admin}' to be the administration server.` }]);
      }
    },
  });
  registry.register(RULES, `${C}ServerMBean`, {
    delete(view, key) {
      const admin = view.bean('')?.values.adminServerName;
      if (typeof admin === 'string' && key === itemKey('servers', admin)) {
        throw badRequest(`'${admin}' is the administration server of the domain and cannot be deleted.`);
      }
    },
  });
}

/** Registers a rule of the configuration on a type (and its subtypes). */
export function configRule(registry: BehaviourRegistry, type: string, rule: ConfigRule): void {
  registry.register(RULES, type, rule);
}

/** Checks an update of a `type` bean against the rules of its type and its ancestors. */
export function checkUpdate(registry: BehaviourRegistry, type: TypeDef, view: ConfigView, key: string, body: Record<string, unknown>): void {
  for (const rule of registry.all(RULES, type)) rule.update?.(view, key, body);
}

/** Checks that a `type` bean may be deleted. */
export function checkDelete(registry: BehaviourRegistry, type: TypeDef, view: ConfigView, key: string): void {
  for (const rule of registry.all(RULES, type)) rule.delete?.(view, key);
}
