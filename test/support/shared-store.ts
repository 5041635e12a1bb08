// Two servers in this process sharing one PostgreSQL store, each on its own manual clock (moved
// together), for tests of what servers sharing a store must agree on. PostgreSQL only.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { ADMIN, type Client, client } from './runtime-server.js';
import { onPostgres, storeFor } from './store.js';

export interface SharedPair {
  /** Clients of the two servers (administrator credentials). */
  a: Client;
  b: Client;
  /** Moves both clocks. */
  advance(ms: number): void;
  schedulers: [ManualScheduler, ManualScheduler];
  stop(): Promise<void>;
}

/** Whether the pair can run (tests skip otherwise). */
export const sharedStoreAvailable = onPostgres;

export async function startSharedPair(): Promise<SharedPair> {
  const dirs = [mkdtempSync(join(tmpdir(), 'appserver-pair-a-')), mkdtempSync(join(tmpdir(), 'appserver-pair-b-'))];
  const store = await storeFor(dirs[0]!);
  if (!store) throw new Error('a shared store needs APPSERVER_TEST_PG');
  const schedulers: [ManualScheduler, ManualScheduler] = [new ManualScheduler(), new ManualScheduler()];
  const servers: RunningServer[] = [];
  // Servers sharing a store share its secret key.
  const secretKey = randomBytes(32).toString('base64');
  try {
    for (const [i, dir] of dirs.entries()) {
      servers.push(
        await startServer({
          host: '127.0.0.1',
          port: 0,
          dataDir: dir,
          store,
          logLevel: 'silent',
          quiet: true,
          adminUser: ADMIN.user,
          adminPassword: ADMIN.password,
          scheduler: schedulers[i]!,
          secretKey,
          listeners: false,
        }),
      );
    }
  } catch (err) {
    // A pair that does not start leaves nothing running (an open server would keep the test alive).
    for (const s of servers) await s.close();
    throw err;
  }
  const latest = (s: RunningServer) => `http://127.0.0.1:${s.port}/management/appserver/latest`;
  return {
    a: client(() => latest(servers[0]!)),
    b: client(() => latest(servers[1]!)),
    advance: (ms) => {
      for (const s of schedulers) s.advance(ms);
    },
    schedulers,
    stop: async () => {
      for (const s of servers) await s.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
