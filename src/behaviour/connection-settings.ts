// Connection settings: the properties that decide where a bean connects and what it runs there once
// connected. A data source's URL, driver, driver properties, test and initial SQL are such settings:
// whoever changes them can send the stored password to a listener of their own, or run statements
// as the database user. They change only with the Admin role, whatever the bean type's roles say.
// And a data source whose URL is pointed at another database (host, port or database name) loses
// its stored passwords, unless the same change gives a new one: a password set for one database is
// never offered to another.
import { childKey, itemKey } from '../core/identity.js';
import { parseJdbcUrl } from '../core/jdbc-url.js';
import type { TypeDef } from '../catalog/model.js';
import type { ConfigView } from './config-rules.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

type Values = Record<string, unknown>;

/** Secrets of other beans to drop: the properties `unset` of the bean at `key`. */
export interface DroppedSecrets {
  key: string;
  unset: string[];
}

export interface ConnectionSettings {
  /** The properties only an administrator may change; 'all': the bean is made, changed and removed by administrators only. */
  readonly adminOnly: readonly string[] | 'all';
  /** What they are, in the words of a refusal ("the connection settings of a data source"). */
  readonly what: string;
  /**
   * The secrets an update leaves behind when it points the bean elsewhere: `before` and `after` are
   * the bean's values around the update, `given` the properties the request itself set.
   */
  moved?(view: ConfigView, key: string, before: Values, after: Values, given: ReadonlySet<string>): DroppedSecrets[];
}

const SETTINGS = new BehaviourKind<ConnectionSettings>('connection settings');

const J = 'appserver.j2ee.descriptor.wl.';
const WHAT = 'the connection settings of a data source';
/** Names of driver properties that hold a password. */
const PASSWORD_PROPERTY = /password/i;

/** Where a JDBC URL leads: the vendor, host, port and database; the URL itself when it cannot be read. */
function target(url: unknown): string {
  if (url === undefined || url === null || url === '') return '';
  const a = parseJdbcUrl(url);
  if ('problem' in a) return `url:${String(url)}`;
  return JSON.stringify([a.vendor, a.host.toLowerCase(), a.port, a.database ?? null]);
}

export function registerConnectionSettings(registry: BehaviourRegistry): void {
  registry.register(SETTINGS, `${J}JDBCDriverParamsBean`, {
    adminOnly: ['url', 'driverName', 'useXaDataSourceInterface', 'usePasswordIndirection'],
    what: WHAT,
    moved(view, key, before, after, given) {
      // A first URL points the data source nowhere it was before: a password set ahead of it stays.
      const was = target(before.url);
      if (was === '' || was === target(after.url)) return [];
      const dropped: DroppedSecrets[] = [];
      if (!given.has('password') && before.password !== undefined && before.password !== null) dropped.push({ key, unset: ['password'] });
      // A password among the driver's properties goes too (the data source would offer it as well).
      const items = childKey(childKey(key, 'properties'), 'properties');
      for (const name of view.itemNames?.(items) ?? []) {
        if (!PASSWORD_PROPERTY.test(name)) continue;
        const k = itemKey(items, name);
        const v = view.bean(k)?.values ?? {};
        const unset = ['value', 'encryptedValue', 'sysPropValue'].filter((p) => v[p] !== undefined && v[p] !== null);
        if (unset.length > 0) dropped.push({ key: k, unset });
      }
      return dropped;
    },
  });
  // A partition's override of a data source: where it connects, as whom, and with which password.
  registry.register(SETTINGS, 'appserver.management.configuration.JDBCSystemResourceOverrideMBean', {
    adminOnly: ['URL', 'user'],
    what: `${WHAT} (a partition's override of it)`,
    moved(_view, key, before, after, given) {
      const was = target(before.URL);
      if (was === '' || was === target(after.URL) || given.has('password') || before.password === undefined || before.password === null) return [];
      return [{ key, unset: ['password'] }];
    },
  });
  // The driver's properties (user, password, connection options) and the data source's own.
  registry.register(SETTINGS, `${J}JDBCPropertyBean`, { adminOnly: 'all', what: `${WHAT} (its driver properties)` });
  registry.register(SETTINGS, `${J}JDBCConnectionPoolParamsBean`, {
    adminOnly: ['testTableName', 'initSql', 'driverInterceptor', 'connectionLabelingCallback'],
    what: `${WHAT} (the statements it runs on its connections)`,
  });
}

/** The connection settings of a type (its own or its closest ancestor's), if it has any. */
export function connectionSettings(registry: BehaviourRegistry, type: TypeDef): ConnectionSettings | undefined {
  return registry.find(SETTINGS, type);
}

/** The properties of a `type` bean, among `changed`, that only an administrator may change. */
export function adminOnlyChanges(registry: BehaviourRegistry, type: TypeDef, changed: readonly string[]): { names: string[]; what: string } | undefined {
  const s = connectionSettings(registry, type);
  if (!s) return undefined;
  const names = s.adminOnly === 'all' ? [...changed] : changed.filter((n) => s.adminOnly.includes(n));
  return names.length > 0 ? { names, what: s.what } : undefined;
}

/** Whether only an administrator may make or remove a `type` bean. */
export function adminOnlyBean(registry: BehaviourRegistry, type: TypeDef): string | undefined {
  const s = connectionSettings(registry, type);
  return s?.adminOnly === 'all' ? s.what : undefined;
}
