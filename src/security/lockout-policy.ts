// The user lockout policy of the domain's default realm: its `userLockoutManager` configuration,
// with the type's defaults where a property is unset.
import type { Catalog } from '../catalog/load.js';
import { childKey, keyOfIdentity } from '../core/identity.js';
import type { BeanTree } from '../tree/records.js';
import { DEFAULT_LOCKOUT, type LockoutPolicy } from './lockout.js';

const MINUTE = 60_000;

export function lockoutPolicy(catalog: Catalog, config: BeanTree): LockoutPolicy {
  const realm = config.bean(childKey('', 'securityConfiguration'))?.values.defaultRealm;
  const key = Array.isArray(realm) ? childKey(keyOfIdentity(realm as string[]), 'userLockoutManager') : undefined;
  const values = (key !== undefined ? config.bean(key)?.values : undefined) ?? {};
  const type = catalog.type('appserver.management.security.authentication.UserLockoutManagerMBean');
  const value = (name: string): unknown => (Object.hasOwn(values, name) ? values[name] : type.prop.get(name)?.defaultValue);
  const number = (name: string, fallback: number, min: number): number => {
    const v = Number(value(name));
    return Number.isFinite(v) && v >= min ? v : fallback;
  };
  return {
    enabled: value('lockoutEnabled') !== false,
    threshold: Math.floor(number('lockoutThreshold', DEFAULT_LOCKOUT.threshold, 1)),
    durationMs: number('lockoutDuration', DEFAULT_LOCKOUT.durationMs / MINUTE, 0) * MINUTE,
    resetMs: number('lockoutResetDuration', DEFAULT_LOCKOUT.resetMs / MINUTE, 0) * MINUTE,
    gcThreshold: Math.floor(number('lockoutGCThreshold', DEFAULT_LOCKOUT.gcThreshold, 1)),
  };
}
