// The store tests run against: SQLite in each data directory by default; with APPSERVER_TEST_PG
// set to a PostgreSQL URL (as .ci/run does for its second pass), a database of its own for each
// data directory on that server.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

const created = new Set<string>();

/** The `--store` URL for a data directory, or undefined for SQLite. */
export async function storeFor(dataDir: string): Promise<string | undefined> {
  const base = process.env.APPSERVER_TEST_PG;
  if (!base) return undefined;
  const name = `t_${createHash('sha1').update(dataDir).digest('hex').slice(0, 20)}`;
  if (!created.has(name)) {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    created.add(name);
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** True when the tests run against PostgreSQL. */
export const onPostgres = () => Boolean(process.env.APPSERVER_TEST_PG);

/**
 * Runs one SQL statement (`?` placeholders) on the store of a data directory while no server uses
 * it: its SQLite file, or its PostgreSQL database (`url`, default the one `storeFor` gives). For
 * facts the REST interface does not show, and to make stores as older versions left them.
 */
export async function storeQuery<R = Record<string, unknown>>(dataDir: string, sql: string, params: unknown[] = [], url?: string): Promise<R[]> {
  const pgUrl = url ?? (await storeFor(dataDir));
  if (!pgUrl) {
    const db = new Database(join(dataDir, 'domain.db'), { fileMustExist: true });
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as R[];
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    let n = 0;
    return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as R[];
  } finally {
    await client.end();
  }
}
