// Faults injected through the control interface, seen as a client sees them: a start that fails
// (its task FAILED with the message), a crash visible in serverLifeCycleRuntimes (and honouring a
// configured auto-restart), a slow and a hung server, 503s and dropped connections on a matched
// path, a slow response, a data source without its database, a deployment failing on its target,
// a JMS server down.
// Also: the interface is absent unless enabled, Admin only, X-Requested-By on writes, and bad
// fault descriptions refused whole with the property named.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { ASYNC, assertAccepted, completed, createUser, errorDetails, names, pollUntil, request } from '../support/runtime-server.js';
import { type ControlServer, linkOf, startControlServer } from '../support/control.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const DS = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds';

let srv: ControlServer;

before(async () => {
  srv = await startControlServer();
});

after(async () => {
  await srv.stop();
});

const advance = (ms: number) => srv.scheduler!.advance(ms);

async function lcState(server: string): Promise<string> {
  const r = await srv.admin.get(`${LC}/${server}?links=none&fields=state`);
  assert.equal(r.status, 200, r.text);
  return r.json.state;
}

async function addFault(body: Record<string, unknown>): Promise<any> {
  const r = await srv.ctl.post('faults', body);
  assert.equal(r.status, 201, r.text);
  assert.equal(r.headers.get('location'), linkOf(r.json, 'self'));
  return r.json;
}

async function startServer(name: string): Promise<any> {
  const r = await srv.admin.post(`${LC}/${name}/start`, {}, ASYNC);
  const href = assertAccepted(r, `start ${name}`);
  advance(2000);
  return completed(srv.admin, href);
}

test('the control root links to faults, snapshots, journal and clock, and offers reset', async () => {
  const r = await srv.ctl.get('');
  assert.equal(r.status, 200, r.text);
  for (const rel of ['self', 'faults', 'snapshots', 'journal', 'clock']) assert.ok(linkOf(r.json, rel).startsWith(srv.controlUrl), rel);
  assert.equal(linkOf(r.json, 'action', 'reset'), `${srv.controlUrl}/reset`);
  const faults = await srv.ctl.get(linkOf(r.json, 'faults'));
  assert.equal(faults.status, 200);
  assert.deepEqual(faults.json.items, []);
  assert.equal(linkOf(faults.json, 'parent'), srv.controlUrl);
});

test('only administrators use it, and writes need X-Requested-By', async () => {
  const monitor = await createUser(srv.admin, 'watcher', 'watcher123', 'Monitors');
  const refused = await srv.ctl.as(monitor).get('faults');
  assert.match(errorDetails(refused, 403)[0]!, /needs the role Admin/);
  const anonymous = await request(`${srv.controlUrl}/faults`, { auth: null });
  assert.equal(anonymous.status, 401);
  const noHeader = await request(`${srv.controlUrl}/faults`, { method: 'POST', body: { kind: 'drop', urlPattern: '/x' } });
  assert.match(errorDetails(noHeader, 400)[0]!, /X-Requested-By/);
  assert.deepEqual((await srv.ctl.get('faults')).json.items, [], 'nothing was added');
});

test('bad fault descriptions are refused whole, naming the property and value', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ kind: 'explode', server: 'ms1' }, /\[kind\].*'kind' must be one of .*"explode"/],
    [{ kind: 'startFailure', server: 'nosuch' }, /\[server\].*no server named 'nosuch'/],
    [{ kind: 'startFailure', urlPattern: '/x' }, /\[urlPattern\].*scoped to server/],
    [{ kind: 'status', urlPattern: 'relative' }, /\[urlPattern\].*starting with '\/'/],
    [{ kind: 'status', urlPattern: '/x', status: 200 }, /\[status\].*from 400 to 599.*200/],
    [{ kind: 'slow', urlPattern: '/x' }, /\[latencyMs\]/],
    [{ kind: 'slow', urlPattern: '/x', latencyMs: 10, probability: 2 }, /\[probability\].*from 0 to 1.*2/],
    [{ kind: 'drop', urlPattern: '/x', colour: 'red' }, /\[colour\].*no property 'colour'/],
    [{ kind: 'hang', server: 'ms1', expiresInSeconds: 999999 }, /\[expiresInSeconds\].*3600/],
    [{ kind: 'drop' }, /needs exactly one of urlPattern/],
    [{ kind: 'crash', server: 'AdminServer' }, /administration server/],
    [{ kind: 'crash', server: 'ms2' }, /ms2' is SHUTDOWN; only a server that runs/],
  ];
  for (const [body, expected] of cases) {
    const r = await srv.ctl.post('faults', body);
    const details = errorDetails(r, 400, JSON.stringify(body));
    assert.match(details.join(' '), expected, JSON.stringify(body));
  }
  const array = await srv.ctl.post('faults', '[1,2]');
  errorDetails(array, 400, 'an array');
  assert.deepEqual((await srv.ctl.get('faults')).json.items, [], 'nothing was added');
});

test('startFailure: the next start of the server fails, its task FAILED with the message; the one after succeeds', async () => {
  const fault = await addFault({ kind: 'startFailure', server: 'ms1', message: 'The disk of ms1 is full.' });
  assert.equal(fault.remaining, 1);
  assert.equal(fault.active, true);
  const failed = await startServer('ms1');
  assert.equal(failed.taskStatus, 'FAILED');
  assert.equal(failed.progress, 'failed');
  assert.deepEqual(failed.taskError, { message: 'The disk of ms1 is full.', cause: null });
  assert.equal(await lcState('ms1'), 'FAILED');
  assert.ok(!(await names(srv.admin, 'domainRuntime/serverRuntimes')).includes('ms1'));
  const spent = await srv.ctl.get(linkOf(fault, 'self'));
  assert.equal(spent.json.hits, 1);
  assert.equal(spent.json.active, false);

  const ok = await startServer('ms1');
  assert.equal(ok.taskStatus, 'TASK COMPLETED', JSON.stringify(ok));
  assert.equal(await lcState('ms1'), 'RUNNING');
  const removed = await srv.ctl.post(linkOf(fault, 'action', 'remove'));
  assert.equal(removed.status, 200, removed.text);
  errorDetails(await srv.ctl.get(linkOf(fault, 'self')), 404);
});

test('crash: a running server is FAILED at once and leaves the running servers; restarted only when autoRestart is configured', async () => {
  if ((await lcState('ms1')) !== 'RUNNING') await startServer('ms1');
  const crash = await addFault({ kind: 'crash', server: 'ms1' });
  assert.equal(crash.hits, 1);
  assert.equal(await lcState('ms1'), 'FAILED');
  assert.ok(!(await names(srv.admin, 'domainRuntime/serverRuntimes')).includes('ms1'));
  advance(60_000);
  assert.equal(await lcState('ms1'), 'FAILED', 'no auto-restart unless configured');

  // Configured: restarted after restartDelaySeconds.
  const edit = await srv.admin.post('edit/servers/ms1', { autoRestart: true, restartDelaySeconds: 5 });
  assert.equal(edit.status, 200, edit.text);
  await startServer('ms1');
  assert.equal(await lcState('ms1'), 'RUNNING');
  await addFault({ kind: 'crash', server: 'ms1', message: 'out of memory' });
  assert.equal(await lcState('ms1'), 'FAILED');
  advance(4_999);
  assert.equal(await lcState('ms1'), 'FAILED', 'before the restart delay');
  advance(1);
  assert.equal(await lcState('ms1'), 'STARTING');
  advance(2000);
  assert.equal(await lcState('ms1'), 'RUNNING');
  const tasks = await srv.admin.get(`${LC}/ms1/tasks?links=none&fields=operation,taskStatus`);
  assert.equal(tasks.json.items.at(-1).operation, 'start');
  assert.equal(tasks.json.items.at(-1).taskStatus, 'TASK COMPLETED');
});

test('slow and hung servers: lifecycle steps take longer, and stand still until the hang ends', async () => {
  await addFault({ name: 'slow-ms2', kind: 'slow', server: 'ms2', latencyMs: 10_000, count: 1 });
  const r = await srv.admin.post(`${LC}/ms2/start`, {}, ASYNC);
  const href = assertAccepted(r, 'start ms2');
  advance(2000);
  assert.equal((await srv.admin.get(href)).json.completed, false, 'slowed by 10 s');
  advance(10_000);
  assert.equal((await completed(srv.admin, href)).taskStatus, 'TASK COMPLETED');

  const hang = await addFault({ kind: 'hang', server: 'ms2', expiresInSeconds: 30 });
  assert.equal(typeof hang.expires, 'number');
  const suspend = await srv.admin.post(`${LC}/ms2/suspend`, {}, ASYNC);
  const suspending = assertAccepted(suspend, 'suspend ms2');
  advance(20_000);
  assert.equal(await lcState('ms2'), 'SUSPENDING', 'hung');
  // Removing the fault ends the hang.
  assert.equal((await srv.ctl.del(linkOf(hang, 'self'))).status, 200);
  advance(1000);
  assert.equal((await completed(srv.admin, suspending)).taskStatus, 'TASK COMPLETED');
  assert.equal(await lcState('ms2'), 'ADMIN');

  // A hang left alone ends when it expires.
  await addFault({ kind: 'hang', server: 'ms2', expiresInSeconds: 10 });
  const resume = assertAccepted(await srv.admin.post(`${LC}/ms2/resume`, {}, ASYNC), 'resume ms2');
  advance(9000);
  assert.equal(await lcState('ms2'), 'RESUMING');
  advance(1000);
  assert.equal((await completed(srv.admin, resume)).taskStatus, 'TASK COMPLETED');
});

test('status: requests matching a pattern get the status (503 with Retry-After), others are served; count limits it', async () => {
  const f = await addFault({ kind: 'status', urlPattern: '/management/appserver/*/domainRuntime/serverLifeCycleRuntimes*', count: 2 });
  assert.equal(f.status, 503);
  for (let i = 0; i < 2; i++) {
    const r = await srv.admin.get(LC);
    assert.match(errorDetails(r, 503)[0]!, /restarting/);
    assert.equal(r.headers.get('retry-after'), '1');
  }
  assert.equal((await srv.admin.get('domainRuntime?links=none')).status, 200, 'another path');
  assert.equal((await srv.admin.get(LC)).status, 200, 'the count is spent');

  await addFault({ kind: 'status', urlPattern: '/management/appserver/latest/edit/servers*', method: 'POST', status: 500, message: 'boom' });
  assert.equal((await srv.admin.get('edit/servers?links=none')).status, 200, 'GET is not matched');
  assert.deepEqual(errorDetails(await srv.admin.post('edit/servers', { name: 'x1' }), 500), ['boom']);
  assert.equal((await srv.admin.get('edit/servers/x1')).status, 404, 'the refused request changed nothing');
  await srv.ctl.post('faults/clear');
});

test('drop: a matched request loses its connection with no answer', async () => {
  await addFault({ kind: 'drop', urlPattern: '/management/appserver/latest/domainConfig', count: 1 });
  await assert.rejects(() => srv.admin.get('domainConfig'), /fetch failed|socket|terminated/i);
  assert.equal((await srv.admin.get('domainConfig?links=none&fields=name')).status, 200, 'only once');
  await srv.ctl.post('faults/clear');
});

test('slow: a matched path answers after the latency; a hung path answers once the fault is removed', async () => {
  await addFault({ kind: 'slow', urlPattern: '/management/appserver/latest/domainConfig', latencyMs: 300 });
  const started = Date.now();
  const r = await srv.admin.get('domainConfig');
  assert.equal(r.status, 200);
  assert.ok(Date.now() - started >= 290, `answered after ${Date.now() - started} ms`);
  await srv.ctl.post('faults/clear');

  const hang = await addFault({ kind: 'hang', urlPattern: '/management/appserver/latest/serverConfig', expiresInSeconds: 600 });
  let answered = false;
  const pending = srv.admin.get('serverConfig?links=none&fields=name').then((x) => {
    answered = true;
    return x;
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(answered, false, 'held while the fault stands');
  await srv.ctl.del(linkOf(hang, 'self'));
  assert.equal((await pending).status, 200);
});

test('dataSourceDown: the data source is Unhealthy and testPool fails with the message, until the fault goes', async (t) => {
  // The data source's database: a port that accepts connections (a MySQL URL is checked by TCP).
  const database = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => database.close(resolve)));
  const url = `jdbc:mysql://127.0.0.1:${(database.address() as net.AddressInfo).port}/app`;
  const driver = 'edit/partitions/partition1/resourceGroups/partition1-rg/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDriverParams';
  assert.equal((await srv.admin.post(driver, { url })).status, 200);
  const dsState = async () => (await srv.admin.get(`${DS}?links=none&fields=state`)).json.state;
  await pollUntil(dsState, (s) => s === 'Running', 'the data source reaching its database');
  const f = await addFault({ kind: 'dataSourceDown', dataSource: 'partition1-ds', message: 'the database host is unreachable' });
  const state = await srv.admin.get(`${DS}?links=none&fields=state`);
  assert.equal(state.json.state, 'Unhealthy');
  const test1 = await srv.admin.post(`${DS}/testPool`, {});
  assert.equal(test1.status, 200, test1.text);
  assert.match(test1.json.return, /partition1-ds' cannot reach its database: the database host is unreachable/);
  await srv.ctl.del(linkOf(f, 'self'));
  // The database is tried again as soon as the fault has gone.
  await pollUntil(dsState, (s) => s === 'Running', 'the data source reaching its database again');
  assert.deepEqual((await srv.admin.post(`${DS}/testPool`, {})).json, { return: null });
});

test('deploymentFailure: a deployment step of the application on the target fails with the message', async () => {
  await addFault({ kind: 'deploymentFailure', application: 'inventory', target: 'AdminServer', message: 'inventory.ear is corrupt' });
  const r = await srv.admin.post('domainRuntime/deploymentManager/appDeploymentRuntimes/inventory/redeploy', {}, ASYNC);
  assert.equal(r.status, 202, r.text);
  advance(1000);
  const done = await completed(srv.admin, r.headers.get('location')!);
  assert.equal(done.state, 'STATE_FAILED', JSON.stringify(done));
  assert.deepEqual(done.rootExceptions, [{ message: 'inventory.ear is corrupt', cause: null }]);
  // Another application is not concerned.
  const other = await srv.admin.post('domainRuntime/deploymentManager/appDeploymentRuntimes/demo-adapter/redeploy', {}, ASYNC);
  advance(1000);
  assert.equal((await completed(srv.admin, other.headers.get('location')!)).state, 'STATE_COMPLETED');
});

test('jmsServerDown: the JMS server reports critical health with the message, until the fault goes', async () => {
  if ((await lcState('ms1')) !== 'RUNNING') await startServer('ms1');
  const JMS = 'domainRuntime/serverRuntimes/ms1/JMSRuntime/JMSServers/JMSServer1?links=none&fields=healthState';
  assert.equal((await srv.admin.get(JMS)).json.healthState.state, 'ok');
  const f = await addFault({ kind: 'jmsServerDown', jmsServer: 'JMSServer1', message: 'its store is corrupt' });
  const health = (await srv.admin.get(JMS)).json.healthState;
  assert.equal(health.state, 'critical');
  assert.deepEqual(health.symptoms, [{ severity: 'critical', info: 'its store is corrupt' }]);
  errorDetails(await srv.ctl.post('faults', { kind: 'jmsServerDown', jmsServer: 'nosuch' }), 400);
  await srv.ctl.del(linkOf(f, 'self'));
  assert.equal((await srv.admin.get(JMS)).json.healthState.state, 'ok');
});

test('without --control (nor APPSERVER_CONTROL=1) the control interface is absent: 404', async () => {
  const plain = await startControlServer({ control: false });
  try {
    errorDetails(await plain.ctl.get(''), 404);
    errorDetails(await plain.ctl.post('faults', { kind: 'drop', urlPattern: '/x' }), 404);
  } finally {
    await plain.stop();
  }
});
