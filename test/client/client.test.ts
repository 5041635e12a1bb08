// The typed client (`appserver-admin/client`, imported by its package name as a user would) against a
// running server on a manual clock: typed reads, changes in an edit session that land whole or not at
// all, actions, tasks followed to their end (and bounded), deployments, and errors sorted by kind.
// The generated files are checked against the catalog of this build.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { AppserverClient, AppserverError, type ServerMBean, type Task } from 'appserver-admin/client';
import { renderClientFiles } from '../../src/cli/client-types.js';
import { ROOT } from '../support/cli.js';
import { type RuntimeServer, createUser, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let client: AppserverClient;

before(async () => {
  srv = await startRuntimeServer();
  client = new AppserverClient({ url: srv.origin, user: 'admin', password: 'welcome1' });
});

after(async () => {
  await srv.stop(true);
});

async function rejection(p: Promise<unknown>, kind: string, status?: number): Promise<AppserverError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AppserverError, `not an AppserverError: ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    if (status !== undefined) assert.equal(err.status, status, err.message);
    return err;
  }
  assert.fail(`expected a ${kind} error`);
}

test('the generated bean types and facts are those of the catalog of this build (run npm run client:generate)', () => {
  for (const [file, text] of Object.entries(renderClientFiles())) {
    const committed = readFileSync(`${ROOT}/src/client/generated/${file}`, 'utf8');
    assert.ok(committed === text, `src/client/generated/${file} is stale: run npm run client:generate`);
  }
});

test('a typed read: the fields of ServerMBean, fields= and links=none honoured', async () => {
  const s = await client.get<ServerMBean>('edit/servers/ms1', { fields: ['name', 'listenPort', 'cluster'], links: [] });
  assert.equal(s.name, 'ms1');
  assert.equal(typeof s.listenPort, 'number');
  assert.deepEqual(Object.keys(s).sort(), ['cluster', 'identity', 'listenPort', 'name'].filter((k) => k in s).sort());
  assert.equal(s.links, undefined);
  const typed = await client.bean('appserver.management.configuration.ServerMBean', 'edit/servers/ms1').read({ fields: ['name'] });
  assert.equal(typed.name, 'ms1');
  const servers = await client.list('edit/servers', { fields: ['name'], links: [] });
  assert.deepEqual(servers.map((x) => x.name).sort(), ['AdminServer', 'ms1', 'ms2']);
});

test('inEditSession: the change is activated; a refused change cancels the session and changes nothing', async () => {
  await client.inEditSession((c) => c.bean('appserver.management.configuration.ServerMBean', 'edit/servers/ms2').update({ listenPort: 7702, notes: 'from the client' }));
  const after1 = await client.get<ServerMBean>('serverConfig/servers/ms2', { fields: ['listenPort', 'notes'] });
  assert.equal(after1.listenPort, 7702, 'not activated: serverConfig does not show it');
  assert.equal(after1.notes, 'from the client');

  const err = await rejection(client.inEditSession(async (c) => {
    await c.update('edit/servers/ms2', { notes: 'half a change' });
    await c.update('edit/servers/ms2', { listenPort: 99_999_999 });
  }), 'rejected', 400);
  assert.match(err.message, /listenPort/);
  assert.match(err.message, /nothing was changed/);
  const after2 = await client.get<ServerMBean>('edit/servers/ms2', { fields: ['listenPort', 'notes'] });
  assert.equal(after2.notes, 'from the client', 'the first half of a refused change stayed');
  assert.equal((await client.changeManager()).locked, false, 'the edit lock was left held');
});

test('inEditSession refuses to run while another user holds the edit lock, and leaves that session alone', async () => {
  const other = new AppserverClient({ url: srv.origin, user: 'otheradmin', password: (await makeUser('otheradmin', 'Administrators')).password });
  await other.startEdit();
  await other.update('edit/servers/ms1', { notes: 'pending, not mine' });
  try {
    const err = await rejection(client.inEditSession((c) => c.update('edit/servers/ms1', { notes: 'mine' })), 'rejected');
    assert.match(err.message, /otheradmin/);
    const cm = await other.changeManager();
    assert.equal(cm.locked, true);
    assert.equal(cm.lockOwner, 'otheradmin');
  } finally {
    await other.cancelEdit();
  }
});

test('create and delete in edit sessions; a reference set from an identity', async () => {
  const location = await client.inEditSession((c) => c.create('edit/clusters', { name: 'clientCluster' }));
  assert.equal(location, `${srv.latest}/edit/clusters/clientCluster`);
  await client.inEditSession((c) => c.update('edit/servers/ms1', { cluster: ['clusters', 'clientCluster'] }));
  assert.deepEqual((await client.get<ServerMBean>('edit/servers/ms1', { fields: ['cluster'] })).cluster, ['clusters', 'clientCluster']);
  await client.inEditSession((c) => c.delete('edit/clusters/clientCluster'));
  await rejection(client.get('edit/clusters/clientCluster'), 'notFound', 404);
  assert.equal((await client.get<ServerMBean>('edit/servers/ms1', { fields: ['cluster'] })).cluster, null);
});

test('actions: a query returns its value; a lifecycle action returns a task that waitForTask follows to its end', async () => {
  const url = await client.bean('appserver.management.runtime.ServerLifeCycleRuntimeMBean', 'domainRuntime/serverLifeCycleRuntimes/ms1').invoke('getIPv4URL', { protocol: 'http' });
  assert.match(String(url), /^http:\/\//);

  const task = await client.startTask('domainRuntime/serverLifeCycleRuntimes/ms1', 'start');
  assert.equal(task.completed, false);
  const seen: Task[] = [];
  const waiting = client.waitForTask(task, { pollMs: 20, timeoutMs: 30_000, onProgress: (t) => seen.push(t) });
  await pollUntil(async () => seen.length, (n) => n >= 2, 'a second look at the task');
  srv.advance(60_000);
  const done = await waiting;
  assert.equal(done.completed, true);
  assert.equal(done.progress, 'success');
  assert.equal((await client.get('domainRuntime/serverLifeCycleRuntimes/ms1', { fields: ['state'] })).state, 'RUNNING');

  // Starting a running server: the task fails, and waitForTask says so.
  const again = await client.startTask('domainRuntime/serverLifeCycleRuntimes/ms1', 'start');
  const failed = await rejection(client.waitForTask(again, { pollMs: 20 }), 'failed');
  assert.match(failed.message, /RUNNING/);
});

test('waitForTask is bounded: a task that does not move ends in a timeout error', async () => {
  const task = await client.startTask('domainRuntime/serverLifeCycleRuntimes/ms1', 'shutdown');
  const err = await rejection(client.waitForTask(task, { pollMs: 20, timeoutMs: 300 }), 'timeout');
  assert.match(err.message, /within/);
  srv.advance(60_000);
  await client.waitForTask(task, { pollMs: 20 });
});

test('deploy uploads an archive and returns its progress object, which completes when the clock moves', async () => {
  const task = await client.deploy({ name: 'clientApp', targets: [{ type: 'servers', name: 'AdminServer' }], upload: { bytes: Buffer.from('PK\u0003\u0004 client upload'), fileName: 'clientApp.war' } });
  assert.equal(task.name, 'clientApp');
  srv.advance(60_000);
  const done = await client.waitForTask(task, { pollMs: 20, timeoutMs: 30_000 });
  assert.equal(done.state, 'STATE_COMPLETED');
  const names = (await client.list('domainRuntime/deploymentManager/appDeploymentRuntimes', { fields: ['name'] })).map((a) => a.name);
  assert.ok(names.includes('clientApp'), names.join(','));
});

test('errors by kind: wrong password (auth), a Monitor changing configuration (auth 403), no server (unreachable), bad URL (usage)', async () => {
  await rejection(new AppserverClient({ url: srv.origin, user: 'admin', password: 'wrong' }).get('edit'), 'auth', 401);
  const monitor = new AppserverClient({ url: srv.origin, user: 'monitor9', password: (await makeUser('monitor9', 'Monitors')).password });
  await rejection(monitor.inEditSession((c) => c.update('edit/servers/ms1', { notes: 'monitor' })), 'auth', 403);
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((done) => closed.close(() => done()));
  await rejection(new AppserverClient({ url: `http://127.0.0.1:${port}` }).get('edit'), 'unreachable');
  assert.throws(() => new AppserverClient({ url: 'ftp://example' }), (e: unknown) => e instanceof AppserverError && e.kind === 'usage');
  assert.throws(() => new AppserverClient({ url: 'http://u:p@127.0.0.1:1' }), (e: unknown) => e instanceof AppserverError && e.kind === 'usage');
  assert.throws(() => client.url('edit/../../x'), (e: unknown) => e instanceof AppserverError && e.kind === 'usage');
});

test('a request that gets no answer is bounded by the request time limit', async () => {
  const silent = createServer(() => undefined);
  await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
  try {
    const c = new AppserverClient({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, requestTimeoutMs: 300 });
    const err = await rejection(c.get('edit'), 'unreachable');
    assert.match(err.message, /no answer/);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((done) => silent.close(() => done()));
  }
});

test('credentials never follow a task link to another server', async () => {
  let sawAuthorization: string | undefined = 'no request';
  const other = createServer((req, res) => {
    sawAuthorization = req.headers.authorization;
    res.end('{}');
  });
  await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
  try {
    const href = `http://127.0.0.1:${(other.address() as AddressInfo).port}/management/appserver/latest/task`;
    const forged: Task = { completed: false, progress: 'processing', links: [{ rel: 'job', href }] };
    await rejection(client.waitForTask(forged, { pollMs: 10, timeoutMs: 2000 }), 'server');
    assert.equal(sawAuthorization, 'no request');
  } finally {
    await new Promise<void>((done) => other.close(() => done()));
  }
});

test('an answer larger than the limit is refused, declared or streamed', async () => {
  const big = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.includes('declared')) {
      res.setHeader('content-length', String(10_000));
      res.end(`"${'x'.repeat(9_998)}"`);
      return;
    }
    // No length given: the body streams until the client stops reading.
    res.write('"');
    for (let i = 0; i < 20; i++) res.write('y'.repeat(1000));
    res.end('"');
  });
  await new Promise<void>((done) => big.listen(0, '127.0.0.1', done));
  try {
    const c = new AppserverClient({ url: `http://127.0.0.1:${(big.address() as AddressInfo).port}`, maxResponseBytes: 4096 });
    assert.match((await rejection(c.get('declared'), 'server')).message, /10000 bytes/);
    assert.match((await rejection(c.get('streamed'), 'server')).message, /longer than the 4096 bytes/);
    const roomy = new AppserverClient({ url: `http://127.0.0.1:${(big.address() as AddressInfo).port}` });
    assert.equal(((await roomy.get('streamed')) as unknown as string).length, 20_000);
  } finally {
    big.closeAllConnections();
    await new Promise<void>((done) => big.close(() => done()));
  }
});

const made = new Map<string, { password: string }>();
async function makeUser(name: string, group: string): Promise<{ password: string }> {
  const known = made.get(name);
  if (known) return known;
  const password = `${name}-pw1`;
  await createUser(srv.admin, name, password, group);
  made.set(name, { password });
  return { password };
}
