// The stores a benchmark runs on: the embedded SQLite always, and PostgreSQL as well when
// APPSERVER_BENCH_PG names a server (each run gets a fresh database on it).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchStore {
  label: string;
  /** The `--store` URL for a new run, or undefined for SQLite in the data directory. */
  fresh(): Promise<string | undefined>;
}

export function benchStores(): BenchStore[] {
  const stores: BenchStore[] = [{ label: 'SQLite', fresh: async () => undefined }];
  const base = process.env.APPSERVER_BENCH_PG;
  if (base) {
    stores.push({
      label: 'PostgreSQL',
      fresh: async () => {
        const name = `bench_${randomBytes(6).toString('hex')}`;
        const admin = new pg.Client({ connectionString: base });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        const url = new URL(base);
        url.pathname = `/${name}`;
        return url.toString();
      },
    });
  }
  return stores;
}
