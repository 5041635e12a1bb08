// Picks the store: SQLite in the data directory by default, PostgreSQL for a postgres:// URL.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PostgresDriver } from './postgres/postgres-driver.js';
import { SqlStore } from './sql-store.js';
import { SqliteDriver } from './sqlite/sqlite-driver.js';
import type { Store } from './store.js';

export interface StoreOptions {
  /** PostgreSQL: how long one statement may run before it is cancelled (ms; 0: no bound; default 30 000). */
  statementTimeoutMs?: number;
}

export function openStore(dataDir: string, url?: string, opts: StoreOptions = {}): Store {
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const safe = url.replace(/\/\/([^:@/]+)(:[^@/]*)?@/, '//$1@');
    return new SqlStore(new PostgresDriver(url, opts.statementTimeoutMs), true, `PostgreSQL ${safe}`);
  }
  if (url && url !== 'sqlite') throw new Error(`unsupported store '${url}': use a postgres:// URL, or leave it out for SQLite`);
  // Only this account may read the data directory: it holds the store and uploaded archives.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'domain.db');
  return new SqlStore(new SqliteDriver(file), false, `SQLite ${file}`);
}
