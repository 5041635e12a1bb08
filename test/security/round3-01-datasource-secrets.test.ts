// Round 3, item 1: a Deployer could reach the database password. A data source's connection
// settings (URL, driver, driver properties, test and initial SQL) now change only with the Admin
// role; a URL pointed at another database drops the stored password unless the same change gives a
// new one; and what a Monitor reads of a failing data source no longer tells an open port from a
// closed one. The "database" here is a listener of the test that speaks just enough of the
// PostgreSQL protocol to ask for the password in clear, and keeps what it receives.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Client, type RuntimeServer, createUser, errorDetails, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

const SECRET = 'Db-Secret-7f3a91';
const NEW_SECRET = 'Db-Other-52bc07';
const DS = 'round3-ds';
const JR = `edit/JDBCSystemResources/${DS}/JDBCResource`;
const DRIVER = `${JR}/JDBCDriverParams`;
const PROPS = `${DRIVER}/properties/properties`;
const POOL_PARAMS = `${JR}/JDBCConnectionPoolParams`;
const SERVICE = 'serverRuntime/JDBCServiceRuntime';
const RUNTIME = `${SERVICE}/JDBCDataSourceRuntimeMBeans`;

let srv: RuntimeServer;
let admin: Client;
let deployer: Client;
let monitor: Client;
const listeners: net.Server[] = [];
const sockets: net.Socket[] = [];

/** A listener asking every client for its password in clear; `received` holds all bytes each sent. */
async function fakeDatabase(): Promise<{ url: string; received: () => string; connections: () => number }> {
  const got: Buffer[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    sockets.push(socket);
    connections++;
    let asked = false;
    socket.on('data', (chunk) => {
      got.push(chunk);
      // The startup message comes first: answer it with "AuthenticationCleartextPassword".
      if (!asked) {
        asked = true;
        const auth = Buffer.alloc(9);
        auth.write('R', 0, 'latin1');
        auth.writeInt32BE(8, 1);
        auth.writeInt32BE(3, 5);
        socket.write(auth);
        return;
      }
      // Whatever follows (the password message) ends the conversation.
      socket.destroy();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listeners.push(server);
  const port = (server.address() as net.AddressInfo).port;
  return { url: `jdbc:postgresql://127.0.0.1:${port}/appdb`, received: () => Buffer.concat(got).toString('latin1'), connections: () => connections };
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function ok(c: Client, path: string, body: unknown): Promise<void> {
  const r = await c.post(path, body);
  assert.ok(r.status >= 200 && r.status < 300, `${path}: ${r.status} ${r.text.slice(0, 400)}`);
}

async function driver(): Promise<Record<string, unknown>> {
  const r = await admin.get(`${DRIVER}?links=none`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

let first: Awaited<ReturnType<typeof fakeDatabase>>;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  deployer = admin.as(await createUser(admin, 'deployer-r3', 'Deployer-r3-pw', 'Deployers'));
  monitor = admin.as(await createUser(admin, 'monitor-r3', 'Monitor-r3-pw', 'Monitors'));
  first = await fakeDatabase();
  await ok(admin, 'edit/changeManager/startEdit', {});
  await ok(admin, 'edit/JDBCSystemResources', { name: DS, targets: [['servers', 'AdminServer']] });
  await ok(admin, JR, { datasourceType: 'GENERIC' });
  await ok(admin, `${JR}/JDBCDataSourceParams`, { JNDINames: [`jdbc/${DS}`] });
  await ok(admin, DRIVER, { driverName: 'org.postgresql.Driver', url: first.url, password: SECRET });
  await ok(admin, PROPS, { name: 'user', value: 'app' });
  await ok(admin, POOL_PARAMS, { initialCapacity: 1, connectionReserveTimeoutSeconds: 2, testFrequencySeconds: 0 });
  await ok(admin, 'edit/changeManager/activate', {});
});

after(async () => {
  await srv?.stop(true);
  for (const s of sockets) s.destroy();
  for (const l of listeners) await new Promise((resolve) => l.close(resolve));
});

describe('round 3, item 1: connection settings need the Admin role', () => {
  test('the password set by an administrator reaches the database it was set for (the listener works)', async () => {
    await pollUntil(async () => first.received(), (text) => text.includes(SECRET), 'the password at the first database', 15_000);
  });

  test('a Deployer cannot change the URL, the driver, the driver properties, the test or the initial SQL; nothing changes', async () => {
    const before = await driver();
    const attacker = 'jdbc:postgresql://127.0.0.1:1/steal';
    const refusals: [string, string, unknown, RegExp][] = [
      ['POST', DRIVER, { url: attacker }, /'url'/],
      ['POST', DRIVER, { driverName: 'other.Driver' }, /'driverName'/],
      ['POST', DRIVER, { url: attacker, password: 'known-to-me' }, /'url'/],
      ['POST', POOL_PARAMS, { testTableName: 'SQL DROP TABLE accounts' }, /'testTableName'/],
      ['POST', POOL_PARAMS, { initSql: 'SQL SELECT pg_sleep(1)' }, /'initSql'/],
      ['POST', PROPS, { name: 'serverName', value: '127.0.0.1' }, /JDBCProperty/],
      ['POST', `${PROPS}/user`, { value: 'postgres' }, /JDBCProperty/],
      ['DELETE', `${PROPS}/user`, undefined, /JDBCProperty/],
      ['POST', 'edit/partitions/partition1/JDBCSystemResourceOverrides', { name: 'partition1-ds', URL: attacker, user: 'postgres' }, /'URL', 'user'/],
    ];
    for (const [method, path, body, names] of refusals) {
      const r = method === 'DELETE' ? await deployer.del(path) : await deployer.post(path, body);
      const [detail] = errorDetails(r, 403, `${method} ${path} ${JSON.stringify(body)}`);
      assert.match(detail!, names, detail);
      assert.match(detail!, /Admin role/, detail);
      assert.match(detail!, /deployer-r3/, detail);
    }
    assert.deepEqual(await driver(), before);
    const user = await admin.get(`${PROPS}/user?links=none`);
    assert.equal(user.status, 200, user.text);
    assert.equal(user.json.value, 'app');
    const pool = await admin.get(`${POOL_PARAMS}?links=none`);
    assert.equal(pool.json.testTableName ?? null, null);
    assert.equal(pool.json.initSql ?? null, null);
    // No edit session was left behind by the refusals.
    const cm = await admin.get('edit/changeManager?links=none');
    assert.equal(cm.json.locked, false, cm.text);
    assert.equal((await admin.get('edit/partitions/partition1/JDBCSystemResourceOverrides/partition1-ds')).status, 404);
  });

  test("a description says who may change a data source's driver properties: administrators only", async () => {
    const r = await deployer.get(`${PROPS}/user?describe`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.access.update, ['Admin'], JSON.stringify(r.json.access));
    assert.deepEqual(r.json.access.delete, ['Admin'], JSON.stringify(r.json.access));
    const pool = await deployer.get(`${POOL_PARAMS}?describe`);
    assert.ok(pool.json.access.update.includes('Deployer'), JSON.stringify(pool.json.access));
  });

  test('a description marks each single connection setting as changed by administrators only, and no other property', async () => {
    /** The `access` of each property that has one, by name. */
    const marked = async (path: string) => {
      const r = await deployer.get(`${path}?describe`);
      assert.equal(r.status, 200, r.text);
      assert.ok(r.json.access.update.includes('Deployer'), JSON.stringify(r.json.access));
      const props = r.json.properties as { name: string; access?: unknown }[];
      return Object.fromEntries(props.filter((p) => p.access !== undefined).map((p) => [p.name, p.access]));
    };
    const admins = { update: ['Admin'] };
    assert.deepEqual(await marked(DRIVER), { url: admins, driverName: admins, useXaDataSourceInterface: admins, usePasswordIndirection: admins });
    assert.deepEqual(await marked(POOL_PARAMS), { testTableName: admins, initSql: admins, driverInterceptor: admins, connectionLabelingCallback: admins });
    // A partition's override of a data source: its URL and user; what a new one would be, from the collection.
    const overrides = await deployer.get('edit/partitions/partition1/JDBCSystemResourceOverrides?describe');
    assert.equal(overrides.status, 200, overrides.text);
    const override = overrides.json.types[0] as { properties: { name: string; access?: unknown }[] };
    assert.deepEqual(Object.fromEntries(override.properties.filter((p) => p.access !== undefined).map((p) => [p.name, p.access])), { URL: admins, user: admins });
    // What the description says is what a change meets.
    for (const name of ['driverInterceptor', 'connectionLabelingCallback']) {
      const [detail] = errorDetails(await deployer.post(POOL_PARAMS, { [name]: 'x.Y' }), 403, name);
      assert.match(detail!, new RegExp(`'${name}'`), detail);
    }
  });

  test('a Deployer still changes what is not a connection setting, and may echo the URL unchanged', async () => {
    await ok(deployer, POOL_PARAMS, { maxCapacity: 12 });
    // A console sends the whole form back: settings given unchanged (stored or default) are taken.
    const shown = await driver();
    await ok(deployer, DRIVER, { url: shown.url, driverName: shown.driverName, useXaDataSourceInterface: shown.useXaDataSourceInterface });
    const pool = await admin.get(`${POOL_PARAMS}?links=none`);
    assert.equal(pool.json.maxCapacity, 12);
  });
});

describe('round 3, item 1: a URL pointed elsewhere drops the stored password', () => {
  test('an administrator moving the URL without a new password: the new database never receives the old one', async () => {
    const second = await fakeDatabase();
    await ok(admin, DRIVER, { url: second.url });
    // The pool connects to the new address: what it sends there holds no password of ours.
    await pollUntil(async () => second.connections(), (n) => n > 0, 'a connection to the second database', 15_000);
    await pollUntil(async () => second.received(), (text) => text.includes('app'), 'the startup message at the second database', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(!second.received().includes(SECRET), 'the old password was sent to the new database');
  });

  test('moving the URL and giving a new password in one change: the new one is sent, never the old', async () => {
    const third = await fakeDatabase();
    await ok(admin, DRIVER, { url: third.url, password: NEW_SECRET });
    await pollUntil(async () => third.received(), (text) => text.includes(NEW_SECRET), 'the new password at the third database', 15_000);
    assert.ok(!third.received().includes(SECRET));
  });

  test('a password held among the driver properties goes too when the URL moves', async () => {
    await ok(admin, DRIVER, { password: null });
    await ok(admin, PROPS, { name: 'password', value: SECRET });
    const fourth = await fakeDatabase();
    const prop = await admin.get(`${PROPS}/password?links=none`);
    assert.equal(prop.status, 200, prop.text);
    await ok(admin, DRIVER, { url: fourth.url });
    await pollUntil(async () => fourth.received(), (text) => text.includes('app'), 'the startup message at the fourth database', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(!fourth.received().includes(SECRET), 'the property password was sent to the new database');
  });
});

describe('round 3, item 1: a Monitor is not told why a database fails', () => {
  test('the JDBC service health and testPool give a Monitor a general reason, an administrator the detail', async () => {
    const port = await closedPort();
    await ok(admin, DRIVER, { url: `jdbc:mysql://127.0.0.1:${port}/app` });
    await pollUntil(
      async () => (await admin.get(`${RUNTIME}/${DS}?links=none&fields=state`)).json?.state,
      (s) => s === 'Unhealthy',
      'the data source unhealthy',
      15_000,
    );
    const symptom = async (c: Client) => {
      const r = await c.get(`${SERVICE}?links=none&fields=healthState`);
      assert.equal(r.status, 200, r.text);
      const found = r.json.healthState.symptoms.find((s: { instanceId: string }) => s.instanceId === DS);
      assert.ok(found, r.text);
      return String(found.info);
    };
    const detailed = await symptom(admin);
    assert.match(detailed, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.match(detailed, /ECONNREFUSED/);
    const general = await symptom(monitor);
    assert.doesNotMatch(general, /ECONNREFUSED|refused|127\.0\.0\.1|\d{4,5}/);
    assert.match(general, /cannot use its database/);

    const tested = await monitor.post(`${RUNTIME}/${DS}/testPool`, {});
    assert.equal(tested.status, 200, tested.text);
    assert.doesNotMatch(tested.json.return, /ECONNREFUSED|refused|127\.0\.0\.1/);
    assert.match(tested.json.return, /administrators can read why/);
    const adminTest = await admin.post(`${RUNTIME}/${DS}/testPool`, {});
    assert.match(adminTest.json.return, /ECONNREFUSED/);
  });
});
