// What a data source's descriptor says about reaching its database: the URL, the user, the sealed
// password (opened only when a connection is made), the pool's sizes, its test, and how long a
// connection attempt may take. Values out of range fall back to the product's defaults, so a
// descriptor can never make this server wait without end or open unbounded connections.
import { isSealed, type Sealed } from '../../config/secrets.js';
import type { Identity, Topology } from '../../config/topology.js';
import { type DatabaseAddress, parseJdbcUrl, type UnusableUrl } from '../../core/jdbc-url.js';

export interface DataSourceSettings {
  address: DatabaseAddress | UnusableUrl;
  driverName: string | null;
  user: string | undefined;
  /** Sealed as stored; a clear value only when an old store kept one so. */
  password: Sealed | string | undefined;
  initialCapacity: number;
  minCapacity: number;
  maxCapacity: number;
  /** The test run by testPool and the periodic test: `SQL ...` is a statement, anything else a table. */
  testTableName: string | null;
  /** Seconds between tests of a healthy pool (0: none). */
  testFrequencySeconds: number;
  /** Seconds between attempts to reach the database of an unhealthy pool (0: the test frequency). */
  retrySeconds: number;
  /** Seconds a connection attempt, a reservation or the test statement may take. */
  timeoutSeconds: number;
  /** Seconds an unused connection above the minimum is kept (0: kept until shrink). */
  shrinkFrequencySeconds: number;
}

/** The most connections one pool may open, whatever its descriptor says. */
export const MAX_POOL_SIZE = 256;
/** The longest wait for the database, whatever its descriptor says. */
export const MAX_TIMEOUT_SECONDS = 60;
export const DEFAULT_TIMEOUT_SECONDS = 10;

function int(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

/** The descriptor of the data source whose system resource is `identity`. */
export function dataSourceSettings(topology: Topology, identity: Identity): DataSourceSettings {
  const resource = [...identity, 'JDBCResource'];
  const driver = topology.bean([...resource, 'JDBCDriverParams'])?.values ?? {};
  const pool = topology.bean([...resource, 'JDBCConnectionPoolParams'])?.values ?? {};
  const props = new Map<string, Record<string, unknown>>();
  for (const p of topology.items([...resource, 'JDBCDriverParams', 'properties'], 'properties')) props.set(p.name, p.values);
  const text = (name: string): string | undefined => {
    const v = props.get(name)?.value;
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const secret = (value: unknown): Sealed | string | undefined => (isSealed(value) || (typeof value === 'string' && value !== '') ? value : undefined);
  const maxCapacity = int(pool.maxCapacity, 15, 1, MAX_POOL_SIZE);
  const initialCapacity = Math.min(int(pool.initialCapacity, 1, 0, MAX_POOL_SIZE), maxCapacity);
  // The product's minimum defaults to the initial capacity.
  const minCapacity = Math.min(int(pool.minCapacity, initialCapacity, 0, MAX_POOL_SIZE), maxCapacity);
  // The PostgreSQL driver's own properties (seconds) bound a connection attempt; the product's
  // reserve timeout bounds the wait for a connection (0 and -1 mean "no limit" and "no wait" there:
  // here both take the default).
  const connect = int(Number(text('connectTimeout') ?? text('loginTimeout') ?? NaN), 0, 1, MAX_TIMEOUT_SECONDS);
  const reserve = int(pool.connectionReserveTimeoutSeconds, DEFAULT_TIMEOUT_SECONDS, 1, MAX_TIMEOUT_SECONDS);
  const testTable = typeof pool.testTableName === 'string' && pool.testTableName.trim() !== '' ? pool.testTableName.trim() : null;
  return {
    address: parseJdbcUrl(driver.url),
    driverName: typeof driver.driverName === 'string' ? driver.driverName : null,
    user: text('user'),
    password: secret(driver.password) ?? secret(props.get('password')?.encryptedValue) ?? secret(props.get('password')?.value),
    initialCapacity,
    minCapacity,
    maxCapacity,
    testTableName: testTable,
    testFrequencySeconds: int(pool.testFrequencySeconds, 120, 0, 86_400),
    retrySeconds: int(pool.connectionCreationRetryFrequencySeconds, 0, 0, 86_400),
    timeoutSeconds: connect > 0 ? Math.min(connect, reserve) : reserve,
    shrinkFrequencySeconds: int(pool.shrinkFrequencySeconds, 900, 0, 86_400),
  };
}

/** What must not change for a pool to be kept: anything else recreates it. */
export function fingerprint(s: DataSourceSettings): string {
  return JSON.stringify(s);
}

/** The SQL of a test: `SQL <statement>` as given, a table name as a read of one of its rows. */
export function testStatement(testTableName: string | null): string {
  if (testTableName === null) return 'SELECT 1';
  if (/^sql\s/i.test(testTableName)) return testTableName.slice(4).trim();
  // A plain name is used as written (the database folds its case); anything else is quoted part
  // by part, so a table name never carries SQL of its own.
  const plain = /^[A-Za-z_][A-Za-z0-9_$]*$/;
  const name = testTableName
    .split('.')
    .map((part) => (plain.test(part) ? part : `"${part.replace(/"/g, '""')}"`))
    .join('.');
  return `SELECT 1 FROM ${name} LIMIT 1`;
}
