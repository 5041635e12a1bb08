// The read cache never serves a stale body. Each test reads a URL twice (the second read must come
// from the cache, with the same bytes), changes the domain one way, and reads again: the body shows
// the change. The kinds of change: an edit write, activate, cancel, a lifecycle transition, a
// task's progress, the workload model's figures on the clock, a restored snapshot, a deployment,
// a role change that alters what a reader sees, and (PostgreSQL) a change through another server.
// Queries that shape the body differently are entries of their own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, adminAuth, type Client, type Reply, assertAccepted, completed, createUser, job, startRuntimeServer, type RuntimeServer } from '../support/runtime-server.js';
import { type ControlServer, linkOf, startControlServer } from '../support/control.js';
import { sharedStoreAvailable, startSharedPair } from '../support/shared-store.js';
import { exchange } from '../support/raw-http.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: RuntimeServer;

before(async () => {
  srv = await startRuntimeServer();
});

after(async () => {
  await srv.stop(true);
});

const hits = () => srv.server.api.readCache.hits;

/** Reads `path` twice as `c`: the second answer comes from the cache, byte for byte the first. */
async function cachedTwice(c: Client, path: string, server = srv.server): Promise<Reply> {
  const first = await c.get(path);
  assert.equal(first.status, 200, `GET ${path}: ${first.text}`);
  const before = server.api.readCache.hits;
  const second = await c.get(path);
  assert.equal(second.status, 200, second.text);
  assert.equal(server.api.readCache.hits, before + 1, `the second GET ${path} was not answered from the cache`);
  assert.equal(second.text, first.text);
  assert.equal(second.headers.get('etag'), first.headers.get('etag'));
  assert.equal(second.headers.get('content-type'), 'application/json');
  return second;
}

test('an edit write shows at once in the edit tree; serverConfig changes only with the activation', async () => {
  const admin = srv.admin;
  const path = 'edit/servers/ms1?links=none&fields=listenPort';
  const live = 'serverConfig/servers/ms1?links=none&fields=listenPort';
  assert.equal((await cachedTwice(admin, path)).json.listenPort, 7003);
  assert.equal((await cachedTwice(admin, live)).json.listenPort, 7003);
  assert.equal((await admin.post('edit/changeManager/startEdit')).status, 200);
  const w = await admin.post('edit/servers/ms1', { listenPort: 7103 });
  assert.equal(w.status, 200, w.text);
  assert.equal((await cachedTwice(admin, path)).json.listenPort, 7103, 'the edit tree after the write');
  assert.equal((await cachedTwice(admin, live)).json.listenPort, 7003, 'serverConfig before the activation');
  const a = await admin.post('edit/changeManager/activate');
  assert.equal(a.status, 200, a.text);
  assert.equal((await admin.get(live)).json.listenPort, 7103, 'serverConfig after the activation');
  // The tag moved with the body: an If-None-Match of the old one gets the new body.
  const r = await admin.get(live, { 'if-none-match': (await admin.get(live)).headers.get('etag')! });
  assert.equal(r.status, 304);
});

test('cancelEdit: the edit tree shows the activated value again', async () => {
  const admin = srv.admin;
  const path = 'edit/servers/ms2?links=none&fields=listenPort';
  const activated = (await cachedTwice(admin, path)).json.listenPort as number;
  assert.equal((await admin.post('edit/changeManager/startEdit')).status, 200);
  assert.equal((await admin.post('edit/servers/ms2', { listenPort: 7204 })).status, 200);
  assert.equal((await cachedTwice(admin, path)).json.listenPort, 7204);
  const cm = await cachedTwice(admin, 'edit/changeManager?links=none');
  assert.equal(cm.json.hasChanges, true);
  assert.equal((await admin.post('edit/changeManager/cancelEdit')).status, 200);
  assert.equal((await admin.get(path)).json.listenPort, activated);
  const after = await admin.get('edit/changeManager?links=none');
  assert.equal(after.json.locked, false, after.text);
});

test('a lifecycle transition and its task: every state as it happens', async () => {
  const admin = srv.admin;
  const state = `${LC}/ms2?links=none&fields=state`;
  assert.equal((await cachedTwice(admin, state)).json.state, 'SHUTDOWN');
  // The running servers' runtimes show their health, which moves by itself: read, never kept.
  const list = await admin.get('domainRuntime/serverRuntimes?links=none&fields=name');
  assert.ok(!list.json.items.some((i: { name: string }) => i.name === 'ms2'));
  const task = assertAccepted(await admin.post(`${LC}/ms2/start`, {}, ASYNC), 'start ms2');
  assert.equal((await cachedTwice(admin, state)).json.state, 'STARTING');
  const running = await job(admin, task);
  assert.equal(running.completed, false);
  assert.equal((await cachedTwice(admin, task)).json.completed, false);
  srv.advance(2000);
  assert.equal((await completed(admin, task)).taskStatus, 'TASK COMPLETED', 'the task after the clock moved');
  assert.equal((await admin.get(state)).json.state, 'RUNNING');
  const now = await admin.get('domainRuntime/serverRuntimes?links=none&fields=name');
  assert.ok(now.json.items.some((i: { name: string }) => i.name === 'ms2'), now.text);
});

test('figures of the workload model: kept while the clock stands, new as soon as it moves', async () => {
  const admin = srv.admin;
  const jvm = 'domainRuntime/serverRuntimes/ms2/JVMRuntime?links=none&fields=uptime';
  const first = (await cachedTwice(admin, jvm)).json.uptime as number;
  srv.advance(1234);
  const later = await admin.get(jvm);
  assert.equal(later.json.uptime, first + 1234);
  // This process's own figures move with every request: never kept.
  const own = 'serverRuntime/threadPoolRuntime?links=none&fields=completedRequestCount';
  const a = (await admin.get(own)).json.completedRequestCount as number;
  const before = hits();
  const b = (await admin.get(own)).json.completedRequestCount as number;
  assert.equal(hits(), before, 'the administration server thread pool was answered from the cache');
  assert.ok(b > a, `${b} > ${a}`);
});

test('a deployment appears in the configuration and the runtime', async () => {
  const admin = srv.admin;
  const deployments = 'edit/appDeployments?links=none&fields=name';
  const runtimes = 'serverRuntime/applicationRuntimes?links=none&fields=name';
  const has = (r: Reply, name: string) => r.json.items.some((i: { name: string }) => i.name === name);
  assert.ok(!has(await cachedTwice(admin, deployments), 'cached-app'));
  assert.ok(!has(await cachedTwice(admin, runtimes), 'cached-app'));
  const r = await admin.post('domainRuntime/deploymentManager/deploy', { name: 'cached-app', applicationPath: '/srv/apps/cached.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
  assert.equal(r.status, 202, r.text);
  assert.ok(has(await cachedTwice(admin, deployments), 'cached-app'), 'the configuration lists the deployment');
  srv.advance(1000);
  await completed(admin, r.headers.get('location')!);
  assert.ok(has(await admin.get(runtimes), 'cached-app'), 'the runtime lists the application once deployed');
});

test('what a reader sees follows its roles: a Monitor made an administrator sees admin-only links', async () => {
  const admin = srv.admin;
  const monitor = admin.as(await createUser(admin, 'cachemon', 'cachemon-pw1', 'Monitors'));
  const audit = (r: Reply) => (r.json.links as { rel: string }[]).some((l) => l.rel === 'auditRecords');
  // The administrator's body first, then the Monitor's at the same URL: not the administrator's.
  assert.equal(audit(await cachedTwice(admin, 'domainRuntime')), true);
  assert.equal(audit(await cachedTwice(monitor, 'domainRuntime')), false, 'a Monitor got the administrator body');
  const added = await admin.post('serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator/addMemberToGroup', { groupName: 'Administrators', memberUserOrGroupName: 'cachemon' });
  assert.equal(added.status, 200, added.text);
  assert.equal(audit(await monitor.get('domainRuntime')), true, 'the new administrator still sees a Monitor body');
});

test('links, fields and excludeFields shape distinct entries', async () => {
  const admin = srv.admin;
  const base = 'serverConfig/servers/ms1';
  const plain = await cachedTwice(admin, base);
  const none = await cachedTwice(admin, `${base}?links=none`);
  const fields = await cachedTwice(admin, `${base}?fields=name,listenPort&links=none`);
  const excluded = await cachedTwice(admin, `${base}?excludeFields=listenPort&links=none`);
  assert.ok(Array.isArray(plain.json.links));
  assert.equal(none.json.links, undefined);
  assert.ok('listenAddress' in none.json);
  assert.deepEqual(Object.keys(fields.json).sort(), ['identity', 'listenPort', 'name'].filter((k) => k in fields.json).sort());
  assert.ok(!('listenAddress' in fields.json));
  assert.ok(!('listenPort' in excluded.json) && 'listenAddress' in excluded.json);
  // The links name the host the client used.
  const port = Number(new URL(srv.origin).port);
  const asked = `GET /management/appserver/latest/serverConfig/servers/ms1 HTTP/1.1\r\nHost: cache-host.example:${port}\r\nAuthorization: ${adminAuth}\r\nConnection: close\r\n\r\n`;
  const other = await exchange(port, asked);
  assert.equal(other.status, 200, other.text);
  assert.ok(other.text.includes('cache-host.example'), 'links of another host');
  assert.ok(!plain.text.includes('cache-host.example'));
  // A collection, and a collection's items with another query.
  const servers = await cachedTwice(admin, 'serverConfig/servers?links=none&fields=name');
  const full = await cachedTwice(admin, 'serverConfig/servers');
  assert.notEqual(servers.text, full.text);
});

test('a restored snapshot (control interface): every body is the restored one', async () => {
  const ctl: ControlServer = await startControlServer();
  try {
    const c = ctl.admin;
    const saved = await ctl.ctl.post('snapshots', { name: 'cache-base' });
    assert.equal(saved.status, 201, saved.text);
    assert.equal((await c.post('edit/changeManager/startEdit')).status, 200);
    assert.equal((await c.post('edit/servers/ms1', { listenPort: 7303 })).status, 200);
    assert.equal((await c.post('edit/changeManager/activate')).status, 200);
    const path = 'serverConfig/servers/ms1?links=none&fields=listenPort';
    assert.equal((await cachedTwice(c, path, ctl.server)).json.listenPort, 7303);
    const restored = await ctl.ctl.post(linkOf(saved.json, 'action', 'restore'));
    assert.equal(restored.status, 200, restored.text);
    assert.equal((await c.get(path)).json.listenPort, 7003);
  } finally {
    await ctl.stop();
  }
});

test('servers sharing a store: a change through one is read at once through the other', { skip: !sharedStoreAvailable() && 'needs PostgreSQL (APPSERVER_TEST_PG)' }, async () => {
  const pair = await startSharedPair();
  try {
    const path = 'serverConfig/servers/ms1?links=none&fields=listenPort';
    const first = await pair.a.get(path);
    const again = await pair.a.get(path);
    assert.equal(again.text, first.text);
    assert.equal((await pair.b.post('edit/changeManager/startEdit')).status, 200);
    assert.equal((await pair.b.post('edit/servers/ms1', { listenPort: 7403 })).status, 200);
    assert.equal((await pair.b.post('edit/changeManager/activate')).status, 200);
    assert.equal((await pair.a.get(path)).json.listenPort, 7403, 'server a after the activation through b');
    const state = `${LC}/ms1?links=none&fields=state`;
    assert.equal((await pair.a.get(state)).json.state, 'SHUTDOWN');
    assert.equal((await pair.a.get(state)).json.state, 'SHUTDOWN');
    assertAccepted(await pair.b.post(`${LC}/ms1/start`, {}, ASYNC), 'start ms1 through b');
    assert.equal((await pair.a.get(state)).json.state, 'STARTING', 'server a after the start through b');
  } finally {
    await pair.stop();
  }
});
