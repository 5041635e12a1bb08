// A private PostgreSQL server for chaos tests: made with initdb in a temporary directory, started,
// stopped (fast or immediate), started again on the same port, and removed at the end. Tests stop
// it under a running appserver, end its connections, or restart it; the shared test database of
// APPSERVER_TEST_PG is never touched.
//
// As root (CI, this sandbox) the server runs as the `postgres` account through `su`, because
// PostgreSQL refuses to run as root; as any other user it runs as that user.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { portFree } from '../../support/ports.js';

const exec = promisify(execFile);

/** The newest PostgreSQL binaries of the Debian layout (/usr/lib/postgresql/N/bin), if installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Why a private server cannot be made here (tests skip with it), or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  return postgresBin() ? undefined : 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin';
}

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** The URL of another database of this server (created by `createDatabase`). */
  urlOf(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** Whether the server is running. */
  running(): boolean;
  /** Stops the server: `fast` ends sessions cleanly, `immediate` is like a crash (the next start recovers). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Ends every client connection but this call's own (as an administrator's pg_terminate_backend would); returns how many. */
  terminateAll(database?: string): Promise<number>;
  /** Stops the server and removes its directory. */
  remove(): Promise<void>;
}

/** Runs a PostgreSQL program as the account that owns the cluster. */
async function asOwner(bin: string, args: string[]): Promise<string> {
  if (process.getuid?.() !== 0) return (await exec(bin, args, { timeout: 60_000 })).stdout;
  const quoted = [bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return (await exec('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { timeout: 60_000 })).stdout;
}

async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (await portFree(port)) return port;
  }
  throw new Error('no free port for a private PostgreSQL server');
}

/** Makes and starts a private PostgreSQL server. */
export async function startPostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql/*/bin');
  const root = mkdtempSync(join(tmpdir(), 'appserver-chaos-pg-'));
  const data = join(root, 'data');
  if (process.getuid?.() === 0) {
    const { stdout } = await exec('id', ['-u', 'postgres']);
    const { stdout: gid } = await exec('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
  }
  await asOwner(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  let up = false;
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=100 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await asOwner(join(bin, 'pg_ctl'), ['-D', data, '-l', join(root, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
    up = true;
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (!up) return;
    await asOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    up = false;
  };
  await start();
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> => {
    const c = new pg.Client({ connectionString: urlOf(database) });
    c.on('error', () => undefined);
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  return {
    url: urlOf('postgres'),
    port,
    urlOf,
    createDatabase: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await admin((c) => c.query(`CREATE DATABASE ${name}`));
      return urlOf(name);
    },
    running: () => up,
    stop,
    start,
    terminateAll: (database) =>
      admin(async (c) => {
        const r = await c.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = $1 AND ($2::text IS NULL OR datname = $2)',
          ['client backend', database ?? null],
        );
        return r.rowCount ?? 0;
      }),
    remove: async () => {
      await stop('immediate').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
