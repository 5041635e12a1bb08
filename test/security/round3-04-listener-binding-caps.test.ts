// Round 3, item 4: a managed server without a listen address bound every interface, whatever
// `--host` said, and 21,000 idle sockets on one managed port used up the process's descriptors until
// the administration port answered with empty replies. Now managed listeners bind no wider than
// `--host` unless `--managed-host` widens it; each managed port keeps a capped number of connections
// (more are closed as they arrive), all of them together leave descriptors for the administration
// port, and idle connections are closed. Here: 20 connections per port, idle after 1.5 s.
// (127.0.0.2 is a loopback address too on Linux: a port bound to 127.0.0.1 refuses it, one bound to
// every interface takes it.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { freePortOffset, refused } from '../support/ports.js';
import { ASYNC, assertAccepted, client, job, pollUntil, testServerOptions } from '../support/runtime-server.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const dirs: string[] = [];
const running: RunningServer[] = [];

after(async () => {
  for (const s of running) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A server whose ms1 has no listen address, started (ms1 running on its own port); ms1's port. */
async function withRunningMs1(managedHost?: string): Promise<{ server: RunningServer; admin: ReturnType<typeof client>; port: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-round3-04-'));
  dirs.push(dataDir);
  const offset = await freePortOffset([7003]);
  const scheduler = new ManualScheduler();
  const server = await startServer({
    ...(await testServerOptions(dataDir)),
    scheduler,
    portOffset: offset,
    listeners: true,
    ...(managedHost !== undefined ? { managedHost } : {}),
    managedConnections: { perListener: 20, idleMs: 1500 },
  });
  running.push(server);
  const admin = client(() => `http://127.0.0.1:${server.port}/management/appserver/latest`);
  assert.equal((await admin.post('edit/servers/ms1', { listenAddress: null })).status, 200);
  const r = await admin.post(`${LC}/ms1/start`, {}, ASYNC);
  const location = assertAccepted(r, 'start ms1');
  scheduler.advance(2000);
  const task = await pollUntil(() => job(admin, location), (t) => t.completed === true, 'start ms1');
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
  return { server, admin, port: 7003 + offset };
}

/** Opens `n` connections that send nothing; resolves once each is connected or closed. */
function idleSockets(port: number, n: number): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve) => {
          const s = connect({ port, host: '127.0.0.1' });
          s.on('error', () => undefined);
          s.once('connect', () => resolve(s));
          s.once('close', () => resolve(s));
        }),
    ),
  );
}

const closed = (s: Socket) => new Promise<void>((resolve) => (s.destroyed || s.readyState === 'closed' ? resolve() : s.once('close', () => resolve())));

test('item 4: a managed server without a listen address binds the --host address, not every interface', { timeout: 60_000 }, async () => {
  const { admin, port } = await withRunningMs1();
  assert.equal(await refused(port, '127.0.0.1'), false, 'ms1 does not listen on 127.0.0.1');
  assert.equal(await refused(port, '127.0.0.2'), true, 'ms1 listens beyond --host 127.0.0.1');
  // Each managed port keeps 20 connections: 40 idle ones leave 20 open, and the administration port answers.
  const sockets = await idleSockets(port, 40);
  await pollUntil(async () => sockets.filter((s) => !s.destroyed).length, (n) => n <= 20, 'connections over the cap closed');
  for (let i = 0; i < 5; i++) assert.equal((await admin.get('serverRuntime?links=none&fields=name')).status, 200);
  // Idle connections are closed by the server, which then takes new ones.
  await Promise.all(sockets.map(closed));
  const own = await fetch(`http://127.0.0.1:${port}/appserver/ready`);
  assert.equal(own.status, 200);
});

test('item 4: --managed-host 0.0.0.0 lets a server without a listen address bind every interface', { timeout: 60_000 }, async () => {
  const { port } = await withRunningMs1('0.0.0.0');
  assert.equal(await refused(port, '127.0.0.2'), false, 'ms1 does not listen on every interface');
});
