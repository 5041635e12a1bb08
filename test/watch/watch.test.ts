// The watch (issue 17.2) over HTTP: a Server-Sent Events stream at /management/appserver/latest/watch
// followed through an activation, a server start and its task, and a reconnect with Last-Event-ID
// (no event lost, none repeated); a window that was exceeded says so; path prefixes and kinds;
// what a Monitor sees (never a secret); limits per user and heartbeats; bad requests; a clean end
// when the server stops. Runs on SQLite, and on PostgreSQL when APPSERVER_TEST_PG is set.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { ADMIN, ASYNC, type Client, adminAuth, assertAccepted, basic, client, completed, createUser, errorDetails, request, testServerOptions } from '../support/runtime-server.js';
import { type SseEvent, increasingIds, openStream, watch } from '../support/sse.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const START_MS = 120_000;

interface Started {
  server: RunningServer;
  scheduler: ManualScheduler;
  admin: Client;
  latest: string;
  dataDir: string;
  stop(): Promise<void>;
}

async function start(watchOptions: Record<string, number> = {}): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-watch-'));
  const scheduler = new ManualScheduler();
  const server = await startServer({
    ...(await testServerOptions(dataDir)),
    scheduler,
    control: true,
    watch: { heartbeatMs: 200, ...watchOptions },
  });
  const latest = `http://127.0.0.1:${server.port}/management/appserver/latest`;
  return {
    server,
    scheduler,
    admin: client(() => latest),
    latest,
    dataDir,
    stop: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let srv: Started;

before(async () => {
  srv = await start({ maxWatchersPerUser: 3 });
});

after(async () => {
  await srv.stop();
});

async function ok(r: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const reply = await r;
  assert.ok(reply.status < 300, `${what}: ${reply.status} ${reply.text}`);
}

/** Creates servers (and sets properties) in one activation of the default session. */
async function activate(c: Client, beans: { name: string; values?: Record<string, unknown> }[]): Promise<void> {
  await ok(c.post('edit/changeManager/startEdit', {}), 'startEdit');
  for (const b of beans) await ok(c.post('edit/servers', { name: b.name, ...b.values }), `create ${b.name}`);
  await ok(c.post('edit/changeManager/activate', {}), 'activate');
}

const isRuntime = (server: string, state: string) => (e: SseEvent) => e.event === 'runtime' && e.data.path === `${LC}/${server}` && e.data.state === state;

test('a watch follows an activation, a server start with its task, and a reconnect with Last-Event-ID loses nothing', async () => {
  const w = await watch(`${srv.latest}/watch`, adminAuth);
  assert.match(w.headers.get('content-type') ?? '', /^text\/event-stream\b/);
  await activate(srv.admin, [{ name: 'wa1', values: { listenPort: 9101 } }]);

  // The activation: its record's id, who made it, which bean changed and how.
  const act = await w.next((e) => e.event === 'activation' && e.data.beans.some((b: any) => b.path === 'edit/servers/wa1'), 'the activation of wa1');
  assert.equal(act.data.kind, 'activation');
  assert.equal(act.data.id, Number(act.id));
  assert.equal(act.data.user, 'admin');
  assert.equal(act.data.editSession, 'default');
  const bean = act.data.beans.find((b: any) => b.path === 'edit/servers/wa1');
  assert.deepEqual({ operation: bean.operation, type: bean.type }, { operation: 'create', type: 'Server' });
  assert.ok(bean.properties.includes('listenPort'), JSON.stringify(bean));
  const record = await srv.admin.get(`edit/changeManager/activations/${act.data.activation}`);
  assert.equal(record.status, 200, `the activation record the event names: ${record.text}`);
  // The new server appears, SHUTDOWN, after the activation that made it.
  const appeared = await w.next(isRuntime('wa1', 'SHUTDOWN'), 'wa1 SHUTDOWN');
  assert.ok(Number(appeared.id) > Number(act.id));
  assert.equal(appeared.data.previousState, null);

  // A server start: its task, STARTING, then (when the clock moves) RUNNING and the completed task.
  const r = await srv.admin.post(`${LC}/wa1/start`, {}, ASYNC);
  const location = assertAccepted(r, 'start wa1');
  const taskPath = `${LC}/wa1/tasks/${r.json.name}`;
  const begun = await w.next((e) => e.event === 'task' && e.data.path === taskPath, 'the start task');
  assert.equal(begun.data.taskStatus, 'TASK IN PROGRESS');
  assert.equal(begun.data.operation, 'start');
  await w.next(isRuntime('wa1', 'STARTING'), 'wa1 STARTING');
  const seenBeforeDisconnect = Number(w.events[w.events.length - 1]!.id);
  w.close();

  // Meanwhile, with nobody watching on this connection: the start completes.
  srv.scheduler.advance(START_MS);
  await completed(srv.admin, location);
  const other = await watch(`${srv.latest}/watch`, adminAuth, { 'last-event-id': String(seenBeforeDisconnect) });
  const running = await other.next(isRuntime('wa1', 'RUNNING'), 'wa1 RUNNING after the reconnect');
  assert.equal(running.data.previousState, 'STARTING');
  const done = await other.next((e) => e.event === 'task' && e.data.path === taskPath && e.data.completed === true, 'the completed task');
  assert.equal(done.data.taskStatus, 'TASK COMPLETED');
  assert.equal(done.data.progress, 'success');
  // Resumed exactly after the last event seen: nothing missed, nothing repeated, ids in order.
  const ids = increasingIds(other.events);
  assert.ok(ids[0]! > seenBeforeDisconnect);
  const everything = await watch(`${srv.latest}/watch`, adminAuth, { 'last-event-id': String(Number(act.id) - 1) });
  await everything.next((e) => Number(e.id) === ids[ids.length - 1], 'the last event again');
  const all = increasingIds(everything.events);
  assert.deepEqual(all.filter((id) => id > seenBeforeDisconnect), ids, 'the reconnect got every event after the one it last saw');
  assert.deepEqual(
    all.filter((id) => id <= seenBeforeDisconnect),
    increasingIds(w.events).filter((id) => id >= Number(act.id)),
    'and the first connection had every one before',
  );
  other.close();
  everything.close();
});

test('path prefixes and kinds choose what a watcher is told', async () => {
  const servers = await watch(`${srv.latest}/watch?path=${LC}/wp1&kinds=runtime`, adminAuth);
  const config = await watch(`${srv.latest}/watch?path=domainConfig/servers/wp2&kinds=activation`, adminAuth);
  await activate(srv.admin, [{ name: 'wp1' }, { name: 'wp2' }]);
  await servers.next(isRuntime('wp1', 'SHUTDOWN'), 'wp1 SHUTDOWN');
  const act = await config.next((e) => e.event === 'activation', 'the activation below servers/wp2');
  // Only the bean below the prefix is named (the configuration trees name the beans of edit).
  assert.deepEqual(act.data.beans.map((b: any) => b.path), ['edit/servers/wp2']);
  // A later event past both: what each one got is what it asked for, and nothing else.
  await activate(srv.admin, [{ name: 'wp3' }]);
  const all = await watch(`${srv.latest}/watch?kinds=runtime`, adminAuth, { 'last-event-id': act.id! });
  await all.next(isRuntime('wp3', 'SHUTDOWN'), 'wp3 SHUTDOWN');
  assert.ok(servers.events.every((e) => e.event === 'runtime' && e.data.path.startsWith(`${LC}/wp1`)), servers.text());
  assert.ok(config.events.every((e) => e.event === 'activation' && e.data.beans.every((b: any) => b.path.startsWith('edit/servers/wp2'))), config.text());
  assert.equal(config.events.length, 1, config.text());
  assert.ok(all.events.every((e) => e.event === 'runtime'), all.text());
  for (const s of [servers, config, all]) s.close();
});

test('a Monitor watches runtime and configuration changes, and no secret ever appears', async () => {
  const monitor = await createUser(srv.admin, 'watchMonitor', 'monitorPass1', 'Monitors');
  const w = await watch(`${srv.latest}/watch`, monitor);
  const secret = 'Sesame-Secret-4242';
  await activate(srv.admin, [{ name: 'wm1', values: { customIdentityKeyStorePassPhrase: secret } }]);
  const act = await w.next((e) => e.event === 'activation' && e.data.beans.some((b: any) => b.path === 'edit/servers/wm1'), 'the activation of wm1');
  const bean = act.data.beans.find((b: any) => b.path === 'edit/servers/wm1');
  assert.ok(bean.properties.includes('customIdentityKeyStorePassPhrase'), 'the secret property is named');
  await w.next(isRuntime('wm1', 'SHUTDOWN'), 'wm1 SHUTDOWN');
  assert.ok(!w.text().includes(secret), 'the secret never appears');
  // A user in no group may not watch.
  await createUser(srv.admin, 'watchNobody', 'nobodyPass1', 'Monitors');
  await ok(srv.admin.post('serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator/removeMemberFromGroup', { groupName: 'Monitors', memberUserOrGroupName: 'watchNobody' }), 'remove from group');
  const refused = await request(`${srv.latest}/watch`, { auth: basic('watchNobody', 'nobodyPass1'), headers: { accept: 'text/event-stream' } });
  errorDetails(refused, 403, 'a watch by a user without a role');
  w.close();
});

test('bad watch requests are clear JSON errors naming what is wrong', async () => {
  const cases: [string, Record<string, string>, number, RegExp][] = [
    ['watch?kinds=runtime,bogus', {}, 400, /\[kinds\].*'bogus'.*activation, runtime, task/],
    ['watch?path=nowhere/x', {}, 400, /\[path\].*'nowhere\/x'.*domainRuntime/],
    ['watch?path=domainRuntime/../edit', {}, 400, /\[path\].*relative/],
    ['watch?path=a&path=b', {}, 400, /\[path\].*more than once/],
    ['watch?since=3', {}, 400, /\[since\].*not taken/],
    ['watch', { 'last-event-id': '12abc' }, 400, /\[Last-Event-ID\].*'12abc'/],
    ['watch', { 'last-event-id': '99999999999999999999' }, 400, /\[Last-Event-ID\]/],
    ['watch', { accept: 'application/json' }, 406, /text\/event-stream/],
  ];
  for (const [path, headers, status, pattern] of cases) {
    const r = await request(`${srv.latest}/${path}`, { headers: { accept: 'text/event-stream', ...headers } });
    const details = errorDetails(r, status, `${path} ${JSON.stringify(headers)}`);
    assert.match(details.join(' '), pattern, `${path}: ${details}`);
  }
  errorDetails(await request(`${srv.latest.replace('/latest', '/7.7.7')}/watch`, { headers: { accept: 'text/event-stream' } }), 404, 'an unknown version');
  const post = await request(`${srv.latest}/watch`, { method: 'POST', body: {}, headers: { 'x-requested-by': 't' } });
  errorDetails(post, 405, 'POST to the watch');
  assert.equal(post.headers.get('allow'), 'GET');
  errorDetails(await request(`${srv.latest}/watch`, { auth: null, headers: { accept: 'text/event-stream' } }), 401, 'no credentials');
});

test('watches per user are bounded (429 beyond), heartbeats keep an idle stream open, closed watches free their place', async () => {
  const deployer = await createUser(srv.admin, 'watchDeployer', 'deployerPass1', 'Deployers');
  const open = [];
  for (let i = 0; i < 3; i++) open.push(await watch(`${srv.latest}/watch`, deployer));
  const refused = await request(`${srv.latest}/watch`, { auth: deployer, headers: { accept: 'text/event-stream' } });
  const [detail] = errorDetails(refused, 429, 'a fourth watch');
  assert.match(detail!, /watchDeployer.*3 watches/);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  // Another user is not affected.
  const admins = await watch(`${srv.latest}/watch`, adminAuth);
  await admins.comment(/^heartbeat$/, 10_000);
  // A closed watch frees its place (the server sees the connection close).
  open.shift()!.close();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await openStream(`${srv.latest}/watch`, deployer);
    if (s.status === 200) {
      open.push(s);
      break;
    }
    s.close();
    assert.ok(Date.now() < deadline, 'the closed watch still counts');
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const s of [...open, admins]) s.close();
});

test('a snapshot restored tells every watcher, whatever it follows, to read again', async () => {
  const control = (path: string) => srv.latest.replace('/management/appserver/latest', `/management/appserver-control/${path}`);
  const saved = await request(control('snapshots'), { method: 'POST', body: { name: 'watchBase' }, headers: { 'x-requested-by': 't' } });
  assert.equal(saved.status, 201, saved.text);
  const narrow = await watch(`${srv.latest}/watch?path=${LC}/nothing-here&kinds=task`, adminAuth);
  await activate(srv.admin, [{ name: 'wr1' }]);
  const restored = await request(control('snapshots/watchBase/restore'), { method: 'POST', body: {}, headers: { 'x-requested-by': 't' } });
  assert.equal(restored.status, 200, restored.text);
  const reset = await narrow.next((e) => e.event === 'reset', 'the reset of the restore');
  assert.equal(reset.data.reason, 'restored');
  assert.equal(reset.id, String(reset.data.resumeFrom));
  assert.match(reset.data.detail, /restored from a snapshot/);
  assert.equal(narrow.events.length, 1, narrow.text());
  narrow.close();
});

test('a Last-Event-ID older than the window gets a reset event, then live events; the stream ends cleanly when the server stops', async () => {
  const small = await start({ window: 10 });
  try {
    const first = await watch(`${small.latest}/watch?kinds=activation`, adminAuth);
    await activate(small.admin, [{ name: 'ww0' }]);
    const oldest = await first.next((e) => e.event === 'activation', 'the first activation');
    first.close();
    // Enough events to push the first out of a window of 10 (each activation adds two).
    for (let i = 1; i <= 8; i++) await activate(small.admin, [{ name: `ww${i}` }]);
    const late = await watch(`${small.latest}/watch`, adminAuth, { 'last-event-id': oldest.id! });
    const reset = late.events[0]!;
    assert.equal(reset.event, 'reset', late.text());
    assert.equal(reset.data.lastEventId, Number(oldest.id));
    assert.equal(reset.id, String(reset.data.resumeFrom));
    assert.ok(reset.data.resumeFrom > Number(oldest.id) + 10);
    assert.match(reset.data.detail, /read the resources again/);
    // Then it follows live changes.
    await activate(small.admin, [{ name: 'ww9' }]);
    const live = await late.next((e) => e.event === 'activation' && e.data.beans.some((b: any) => b.path === 'edit/servers/ww9'), 'the activation after the reset');
    assert.ok(Number(live.id) > reset.data.resumeFrom);
    // An id this journal never gave is reset too.
    const unknown = await watch(`${small.latest}/watch`, adminAuth, { 'last-event-id': String(Number(live.id) + 1000) });
    assert.equal(unknown.events[0]?.event, 'reset', unknown.text());
    unknown.close();
    // The server stops: the stream ends (it does not hold the server open).
    await small.server.close();
    await late.ended;
    assert.match(late.comments.join('\n'), /server is stopping/);
  } finally {
    rmSync(small.dataDir, { recursive: true, force: true });
  }
});
