// Pools over HTTP: the JDBC data source runtime of partition1 through its states (testPool telling
// the truth in each), and the connection pool of the demo resource adapter: a connection held by the
// inventory application's work endpoint makes `reset` refuse, releasing it lets `reset` succeed;
// forceReset, testPool, getRA/getConnectionPool references, suspendAll/resumeAll. The data source
// points at a port of the test that accepts connections (a MySQL URL: its database is checked by
// TCP), so its database is reachable.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, errorDetails, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

const DS = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds';
const CS = 'serverRuntime/connectorServiceRuntime';
const RA = `${CS}/activeRAs/demo-adapter`;
const POOL = `${RA}/connectionPools/eis%2Fdemo-adapter`;

const DRIVER = 'edit/partitions/partition1/resourceGroups/partition1-rg/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDriverParams';

let srv: RuntimeServer;
let admin: Client;
let database: net.Server;

before(async () => {
  database = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
  srv = await startRuntimeServer();
  admin = srv.admin;
  const port = (database.address() as net.AddressInfo).port;
  const r = await admin.post(DRIVER, { url: `jdbc:mysql://127.0.0.1:${port}/app`, driverName: 'example.jdbc.Driver' });
  assert.equal(r.status, 200, r.text);
  // The first check of the new address ends quickly: the port accepts connections.
  await pollUntil(dsState, (s) => s === 'Running', 'the data source reaching its database');
});

after(async () => {
  await srv.stop(true);
  await new Promise((resolve) => database.close(resolve));
});

async function dsState(): Promise<string> {
  const r = await admin.get(`${DS}?links=none&fields=state`);
  assert.equal(r.status, 200, r.text);
  return r.json.state;
}

async function action(path: string, body: Record<string, unknown> = {}): Promise<any> {
  const r = await admin.post(path, body);
  assert.equal(r.status, 200, `POST ${path}: ${r.text}`);
  return r.json;
}

const COUNTS = ['activeConnectionsCurrentCount', 'freeConnectionsCurrentCount', 'currentCapacity', 'connectionsCreatedTotalCount', 'connectionsDestroyedTotalCount'];

async function pool(): Promise<Record<string, number>> {
  const r = await admin.get(`${POOL}?links=none&fields=${COUNTS.join(',')}`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

test('the JDBC data source runtime goes Running -> Suspended -> Running -> Shutdown -> Running', async () => {
  const r = await admin.get(`${DS}?links=none`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.state, 'Running');
  assert.equal(r.json.type, 'JDBCDataSourceRuntime');
  assert.deepEqual(await action(`${DS}/testPool`), { return: null });

  assert.deepEqual(await action(`${DS}/suspend`), {});
  assert.equal(await dsState(), 'Suspended');
  const failed = await action(`${DS}/testPool`);
  assert.deepEqual(Object.keys(failed), ['return']);
  assert.equal(typeof failed.return, 'string', `testPool of a suspended data source: ${JSON.stringify(failed)}`);
  assert.ok(failed.return.length > 0);

  assert.deepEqual(await action(`${DS}/resume`), {});
  assert.equal(await dsState(), 'Running');
  assert.deepEqual(await action(`${DS}/testPool`), { return: null });

  assert.deepEqual(await action(`${DS}/shutdown`), {});
  assert.equal(await dsState(), 'Shutdown');
  assert.equal(typeof (await action(`${DS}/testPool`)).return, 'string');

  assert.deepEqual(await action(`${DS}/start`), {});
  assert.equal(await dsState(), 'Running');
  assert.deepEqual(await action(`${DS}/testPool`), { return: null });
});

test('illegal data source transitions are refused and change nothing', async () => {
  assert.equal(await dsState(), 'Running');
  for (const op of ['resume', 'start']) {
    const [detail] = errorDetails(await admin.post(`${DS}/${op}`, {}), 400, `${op} of a Running data source`);
    assert.match(detail!, /Running/);
    assert.match(detail!, new RegExp(op));
    assert.equal(await dsState(), 'Running');
  }
});

test('reset refuses while a connection is in use and succeeds once it is released', async () => {
  const initial = await pool();
  assert.equal(initial.activeConnectionsCurrentCount, 0);
  const controller = new AbortController();
  // The inventory application holds a connection of the pool for up to 120 s, until we go away.
  const work = fetch(`${srv.origin}/inventory/work?pool=eis/demo-adapter&hold=120`, { headers: { authorization: admin.auth }, signal: controller.signal }).then(
    (res) => `answered ${res.status}`,
    (err: Error) => err.name,
  );
  try {
    const held = await pollUntil(pool, (p) => p.activeConnectionsCurrentCount === 1, 'a held connection');
    assert.deepEqual(await action(`${POOL}/reset`), { return: false });
    assert.deepEqual(await pool(), held, 'a refused reset changed the pool');
  } finally {
    controller.abort();
  }
  assert.equal(await work, 'AbortError');
  await pollUntil(pool, (p) => p.activeConnectionsCurrentCount === 0, 'the connection released');
  const before = await pool();
  assert.deepEqual(await action(`${POOL}/reset`), { return: true });
  const after = await pool();
  assert.equal(after.activeConnectionsCurrentCount, 0);
  assert.ok(after.connectionsDestroyedTotalCount > before.connectionsDestroyedTotalCount, `reset destroyed nothing: ${JSON.stringify({ before, after })}`);
});

test('forceReset answers {} and discards connections in use too; testPool answers true', async () => {
  const controller = new AbortController();
  const work = fetch(`${srv.origin}/inventory/work?pool=eis/demo-adapter&hold=120`, { headers: { authorization: admin.auth }, signal: controller.signal }).then(
    (res) => `answered ${res.status}`,
    (err: Error) => err.name,
  );
  try {
    await pollUntil(pool, (p) => p.activeConnectionsCurrentCount === 1, 'a held connection');
    const before = await pool();
    assert.deepEqual(await action(`${POOL}/forceReset`), {});
    const after = await pool();
    assert.equal(after.activeConnectionsCurrentCount, 0, `forceReset kept the connection in use: ${JSON.stringify(after)}`);
    assert.ok(after.connectionsDestroyedTotalCount >= before.connectionsDestroyedTotalCount + 1);
  } finally {
    controller.abort();
  }
  assert.equal(await work, 'AbortError');
  // The discarded connection does not come back when its holder goes away (watched for a few
  // round trips, long enough for the server to see the client leave).
  const settled = await pool();
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await pool(), settled, 'the pool changed when the holder of a discarded connection went away');
  }
  assert.equal(settled.activeConnectionsCurrentCount, 0);
  assert.deepEqual(await action(`${POOL}/testPool`), { return: true });
  assert.deepEqual(await action(`${POOL}/reset`), { return: true });
});

test('getRA and getConnectionPool answer references (identity arrays) that resolve', async () => {
  const ra = (await action(`${CS}/getRA`, { key: 'eis/demo-adapter' })).return;
  assert.ok(Array.isArray(ra) && ra.every((s: unknown) => typeof s === 'string'), `getRA: ${JSON.stringify(ra)}`);
  assert.equal(ra[ra.length - 1], 'demo-adapter');
  const raBean = await admin.get(`serverRuntime/${ra.map(encodeURIComponent).join('/')}?links=none&fields=jndiName`);
  assert.equal(raBean.status, 200, raBean.text);
  assert.equal(raBean.json.jndiName, 'eis/demo-adapter');

  const cp = (await action(`${RA}/getConnectionPool`, { key: 'eis/demo-adapter' })).return;
  assert.ok(Array.isArray(cp), `getConnectionPool: ${JSON.stringify(cp)}`);
  assert.equal(cp[cp.length - 1], 'eis/demo-adapter');
  const cpBean = await admin.get(`serverRuntime/${cp.map(encodeURIComponent).join('/')}?links=none&fields=poolName`);
  assert.equal(cpBean.status, 200, cpBean.text);
  assert.equal(cpBean.json.poolName, 'eis/demo-adapter');

  assert.deepEqual(await action(`${CS}/getRA`, { key: 'eis/none' }), { return: null });
});

test("suspendAll and resumeAll change the resource adapter's state", async () => {
  const raState = async () => (await admin.get(`${RA}?links=none&fields=state`)).json.state;
  assert.equal(await raState(), 'Activated');
  assert.deepEqual(await action(`${RA}/suspendAll`), {});
  assert.equal(await raState(), 'Suspended');
  assert.deepEqual(await action(`${RA}/resumeAll`), {});
  assert.equal(await raState(), 'Activated');
  // The same through the connector service, for every adapter.
  assert.deepEqual(await action(`${CS}/suspendAll`), {});
  assert.equal(await raState(), 'Suspended');
  assert.deepEqual(await action(`${CS}/resumeAll`), {});
  assert.equal(await raState(), 'Activated');
});
