// Snapshots through the control interface: the whole domain (configuration, edit sessions, runtime,
// tasks, Lifecycle Manager) saved under a name, listed, restored after an edit, a lifecycle change
// and a Lifecycle Manager change, deleted; `reset` returns to the domain as created. Snapshots live
// in the store (SQLite or PostgreSQL) and outlive a restart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, assertAccepted, completed, errorDetails, names, request } from '../support/runtime-server.js';
import { type ControlServer, linkOf, startControlServer } from '../support/control.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: ControlServer;

before(async () => {
  srv = await startControlServer();
});

after(async () => {
  await srv.stop();
});

async function lcState(server: string): Promise<string> {
  const r = await srv.admin.get(`${LC}/${server}?links=none&fields=state`);
  assert.equal(r.status, 200, r.text);
  return r.json.state;
}

const lifecycle = (path: string, init: { method?: string; body?: unknown } = {}) =>
  request(`${srv.origin}/management/lifecycle/latest/${path}`, { ...init, headers: { 'x-requested-by': 'control-tests' } });

/** Makes the three kinds of change a snapshot must undo. */
async function change(): Promise<void> {
  const created = await srv.admin.post('edit/clusters', { name: 'cluster9' });
  assert.equal(created.status, 201, created.text);
  const start = assertAccepted(await srv.admin.post(`${LC}/ms1/start`, {}, ASYNC), 'start ms1');
  srv.scheduler!.advance(2000);
  assert.equal((await completed(srv.admin, start)).taskStatus, 'TASK COMPLETED');
  const env = await lifecycle('environments', { method: 'POST', body: { name: 'env9' } });
  assert.equal(env.status, 201, env.text);
}

async function clusters(): Promise<string[]> {
  return names(srv.admin, 'domainConfig/clusters');
}

test('save, change the configuration, a server and the Lifecycle Manager, restore: all three are back', async () => {
  const saved = await srv.ctl.post('snapshots', { name: 'base' });
  assert.equal(saved.status, 201, saved.text);
  assert.equal(saved.json.name, 'base');
  assert.ok(saved.json.bytes > 0);
  assert.equal(saved.headers.get('location'), linkOf(saved.json, 'self'));
  const listed = await srv.ctl.get('snapshots');
  assert.deepEqual(listed.json.items.map((s: { name: string }) => s.name), ['base'], 'the initial state is not listed');

  await change();
  assert.ok((await clusters()).includes('cluster9'));
  assert.equal(await lcState('ms1'), 'RUNNING');
  assert.ok((await names(srv.admin, 'domainRuntime/serverRuntimes')).includes('ms1'));
  assert.equal((await lifecycle('environments/env9')).status, 200);

  const restored = await srv.ctl.post(linkOf(saved.json, 'action', 'restore'));
  assert.equal(restored.status, 200, restored.text);
  assert.deepEqual(await clusters(), ['cluster1']);
  errorDetails(await srv.admin.get('edit/clusters/cluster9'), 404, 'the edit tree follows');
  assert.equal(await lcState('ms1'), 'SHUTDOWN');
  assert.ok(!(await names(srv.admin, 'domainRuntime/serverRuntimes')).includes('ms1'));
  assert.deepEqual(await names(srv.admin, `${LC}/ms1/tasks`), [], 'the start task is gone with the runtime');
  assert.equal((await lifecycle('environments/env9')).status, 404);

  // The domain works on after a restore: edits and lifecycle changes as before.
  const again = await srv.admin.post('edit/clusters', { name: 'cluster9' });
  assert.equal(again.status, 201, again.text);
  const start = assertAccepted(await srv.admin.post(`${LC}/ms2/start`, {}, ASYNC), 'start ms2');
  srv.scheduler!.advance(2000);
  assert.equal((await completed(srv.admin, start)).taskStatus, 'TASK COMPLETED');
});

test('a task running when its snapshot was saved comes back failed, its server where it was going', async () => {
  const stop = assertAccepted(await srv.admin.post(`${LC}/ms2/shutdown`, {}, ASYNC), 'shutdown ms2');
  assert.equal(await lcState('ms2'), 'SHUTTING_DOWN');
  assert.equal((await srv.ctl.post('snapshots', { name: 'mid-way' })).status, 201);
  srv.scheduler!.advance(1000);
  assert.equal((await completed(srv.admin, stop)).taskStatus, 'TASK COMPLETED');
  assert.equal((await srv.ctl.post('snapshots/mid-way/restore')).status, 200);
  assert.equal(await lcState('ms2'), 'SHUTDOWN');
  const task = await completed(srv.admin, stop);
  assert.equal(task.taskStatus, 'FAILED');
  assert.match(task.taskError.message, /restored from a snapshot saved while this task ran/);
  // The shutdown's own timer, still pending when restored, changes nothing now.
  srv.scheduler!.advance(5000);
  assert.equal((await srv.admin.get(stop)).json.taskStatus, 'FAILED');
});

test('reset returns to the domain as it was created; snapshots stay', async () => {
  assert.ok((await clusters()).includes('cluster9'));
  const r = await srv.ctl.post('reset');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(await clusters(), ['cluster1']);
  for (const s of ['ms1', 'ms2']) assert.equal(await lcState(s), 'SHUTDOWN');
  assert.deepEqual((await srv.ctl.get('snapshots')).json.items.map((s: { name: string }) => s.name), ['base', 'mid-way']);
});

test('delete, bad names and unknown snapshots', async () => {
  const bad = await srv.ctl.post('snapshots', { name: '../etc' });
  assert.match(errorDetails(bad, 400).join(' '), /\[name\].*"\.\.\/etc"/);
  errorDetails(await srv.ctl.post('snapshots', { name: 'x', extra: 1 }), 400);
  errorDetails(await srv.ctl.post('snapshots/nosuch/restore'), 404);
  errorDetails(await srv.ctl.get('snapshots/%23initial'), 404, 'the initial state is not addressable');
  const removed = await srv.ctl.del('snapshots/mid-way');
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.json.items.map((s: { name: string }) => s.name), ['base']);
  errorDetails(await srv.ctl.get('snapshots/mid-way'), 404);
  errorDetails(await srv.ctl.post('snapshots/mid-way/remove'), 404);
});

test('snapshots are kept in the store: they outlive a restart', async () => {
  await srv.server.close();
  const { startServer } = await import('../../src/cli/server.js');
  const { storeFor } = await import('../support/store.js');
  const store = await storeFor(srv.dataDir);
  const again = await startServer({ host: '127.0.0.1', port: 0, dataDir: srv.dataDir, ...(store ? { store } : {}), logLevel: 'silent', quiet: true, control: true, listeners: false, adminUser: 'admin', adminPassword: 'welcome1' });
  srv.server = again;
  const list = await request(`http://127.0.0.1:${again.port}/management/appserver-control/snapshots`);
  assert.deepEqual(list.json.items.map((s: { name: string }) => s.name), ['base']);
});
