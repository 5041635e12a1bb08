// The edit tree's life cycle: one explicit edit session builds a cluster, a server in it, a JDBC
// system resource with its descriptor beans, and a partition with a resource group; nothing shows
// outside the session until activation; then everything is in serverConfig and domainConfig,
// the runtime follows, and a restart brings it all back unchanged.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertProblem, changeManager, client, type Client, errorItems, serverForTests } from '../support/edit.js';
import { startTestServer, type TestServer } from '../support/server.js';

const DS = 'JDBCSystemResources/ds9';
const JR = `${DS}/JDBCResource`;
const SECRET = 'secret99';

/** Every bean the session makes, and what each must read back as (a subset of its fields). */
const EXPECTED: [string, Record<string, unknown>][] = [
  ['clusters/c9', { name: 'c9', type: 'Cluster' }],
  ['servers/ms9', { name: 'ms9', listenPort: 7109, cluster: ['clusters', 'c9'], type: 'Server' }],
  [DS, { name: 'ds9', targets: [{ identity: ['clusters', 'c9'] }], type: 'JDBCSystemResource' }],
  [JR, { name: 'ds9', datasourceType: 'GENERIC' }],
  [`${JR}/JDBCDataSourceParams`, { JNDINames: ['jdbc/ds9'] }],
  [`${JR}/JDBCDriverParams`, { driverName: 'org.postgresql.Driver', url: 'jdbc:postgresql://db/x', password: null }],
  [`${JR}/JDBCDriverParams/properties/properties/user`, { name: 'user', value: 'scott' }],
  ['partitions/p9', { name: 'p9', type: 'Partition' }],
  ['partitions/p9/resourceGroups/rg9', { name: 'rg9', type: 'ResourceGroup' }],
];

/** Every byte the server keeps in its data directory, as text (to look for a clear-text secret). */
function dataDirText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out += dataDirText(path);
    else out += readFileSync(path).toString('latin1');
  }
  return out;
}

function assertFields(body: Record<string, unknown>, expected: Record<string, unknown>, where: string): void {
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(body[k], v, `${where}: ${k} is ${JSON.stringify(body[k])}`);
}

describe('one edit session, activated, then restarted', () => {
  let srv: TestServer;
  let admin: Client;
  /** serverConfig bodies right after activation, to compare after the restart. */
  const snapshot = new Map<string, unknown>();

  before(async () => {
    srv = await startTestServer();
    admin = client(() => srv.latest);
  });

  after(async () => {
    await srv.stop(true);
  });

  test('startEdit takes the lock; the writes of the session each succeed', async () => {
    const start = await admin.post('edit/changeManager/startEdit', {});
    assert.equal(start.status, 200, start.text);
    assert.deepEqual(start.json, {});
    const cm = await changeManager(admin);
    assert.deepEqual(cm, { locked: true, lockOwner: 'admin', hasChanges: false, mergeNeeded: false, editSession: 'default' });

    const creates: [string, unknown, string][] = [
      ['edit/clusters', { name: 'c9' }, 'edit/clusters/c9'],
      ['edit/servers', { name: 'ms9', cluster: ['clusters', 'c9'], listenPort: 7109 }, 'edit/servers/ms9'],
      ['edit/JDBCSystemResources', { name: 'ds9', targets: [{ identity: ['clusters', 'c9'] }] }, `edit/${DS}`],
    ];
    for (const [path, body, location] of creates) {
      const r = await admin.post(path, body);
      assert.equal(r.status, 201, `${path}: ${r.text}`);
      assert.deepEqual(r.json, {});
      assert.equal(r.headers.get('location'), `${srv.latest}/${location}`);
    }
    // The descriptor's singletons: created or updated in place (200 or 201), body {}.
    const singletons: [string, unknown][] = [
      [`edit/${JR}`, { datasourceType: 'GENERIC' }],
      [`edit/${JR}/JDBCDataSourceParams`, { JNDINames: ['jdbc/ds9'] }],
      [`edit/${JR}/JDBCDriverParams`, { driverName: 'org.postgresql.Driver', url: 'jdbc:postgresql://db/x', password: SECRET }],
    ];
    for (const [path, body] of singletons) {
      const r = await admin.post(path, body);
      assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.status} ${r.text}`);
      assert.deepEqual(r.json, {});
    }
    const prop = await admin.post(`edit/${JR}/JDBCDriverParams/properties/properties`, { name: 'user', value: 'scott' });
    assert.equal(prop.status, 201, prop.text);
    const p = await admin.post('edit/partitions', { name: 'p9' });
    assert.equal(p.status, 201, p.text);
    const rg = await admin.post('edit/partitions/p9/resourceGroups', { name: 'rg9' });
    assert.equal(rg.status, 201, rg.text);
    assert.equal(rg.headers.get('location'), `${srv.latest}/edit/partitions/p9/resourceGroups/rg9`);
  });

  test('before activation: the edit tree shows the changes, serverConfig and the runtime do not', async () => {
    for (const [path, expected] of EXPECTED) {
      const e = await admin.get(`edit/${path}?links=none`);
      assert.equal(e.status, 200, `edit/${path}: ${e.text}`);
      assertFields(e.json, expected, `edit/${path}`);
      for (const tree of ['serverConfig', 'domainConfig']) {
        const s = await admin.get(`${tree}/${path}?links=none`);
        assert.equal(s.status, 404, `${tree}/${path} is visible before activation: ${s.text}`);
      }
    }
    const names = (await admin.get('serverConfig/servers?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
    assert.ok(!names.includes('ms9'), names.join());
    const lc = await admin.get('domainRuntime/serverLifeCycleRuntimes/ms9?links=none');
    assert.equal(lc.status, 404, `the runtime follows the edit tree before activation: ${lc.text}`);
    const cm = await changeManager(admin);
    assert.equal(cm.locked, true);
    assert.equal(cm.lockOwner, 'admin');
    assert.equal(cm.hasChanges, true);
    assert.equal(cm.mergeNeeded, false);
  });

  test('the password is never kept or shown in clear, even before activation', async () => {
    const driver = await admin.get(`edit/${JR}/JDBCDriverParams`);
    assert.equal(driver.json.password, null);
    assert.ok(!driver.text.includes(SECRET));
    assert.ok(!dataDirText(srv.dataDir).includes(SECRET), 'the pending session holds the password in clear on disk');
  });

  test('activate applies the whole session and releases the lock', async () => {
    const r = await admin.post('edit/changeManager/activate', {});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    const cm = await changeManager(admin);
    assert.deepEqual(cm, { locked: false, mergeNeeded: false, editSession: 'default' });
  });

  test('serverConfig and domainConfig show every bean with its exact values', async () => {
    for (const [path, expected] of EXPECTED) {
      const s = await admin.get(`serverConfig/${path}?links=none`);
      assert.equal(s.status, 200, `serverConfig/${path}: ${s.text}`);
      assertFields(s.json, expected, `serverConfig/${path}`);
      const d = await admin.get(`domainConfig/${path}?links=none`);
      assert.equal(d.status, 200, `domainConfig/${path}: ${d.text}`);
      assert.deepEqual(d.json, s.json, `domainConfig/${path} differs from serverConfig`);
      snapshot.set(path, s.json);
    }
    const servers = (await admin.get('serverConfig/servers?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
    assert.deepEqual(servers, ['AdminServer', 'ms1', 'ms2', 'ms9']);
    const rgs = (await admin.get('serverConfig/partitions/p9/resourceGroups?links=none&fields=name')).json;
    assert.deepEqual(rgs, { items: [{ name: 'rg9' }] });
    const props = (await admin.get(`serverConfig/${JR}/JDBCDriverParams/properties/properties?links=none&fields=name,value`)).json;
    assert.deepEqual(props, { items: [{ name: 'user', value: 'scott' }] });
    snapshot.set('servers', (await admin.get('serverConfig/servers?links=none')).json);
    snapshot.set('clusters', (await admin.get('serverConfig/clusters?links=none')).json);
  });

  test('the clear-text password appears in no answer, no activation record and no file', async () => {
    const texts = [
      (await admin.get(`serverConfig/${JR}/JDBCDriverParams`)).text,
      (await admin.get(`domainConfig/${JR}/JDBCDriverParams?expandedValues=true`)).text,
      (await admin.get(`edit/${JR}/JDBCDriverParams`)).text,
      (await admin.get('edit/changeManager/activations?links=none')).text,
      (await admin.post('serverConfig/search', { links: [], children: { JDBCSystemResources: { links: [], children: { JDBCResource: { links: [], children: { JDBCDriverParams: { links: [] } } } } } } })).text,
    ];
    for (const t of texts) assert.ok(!t.includes(SECRET), `clear text in: ${t.slice(0, 300)}`);
    assert.equal((await admin.get(`serverConfig/${JR}/JDBCDriverParams?links=none`)).json.password, null);
    assert.ok(!dataDirText(srv.dataDir).includes(SECRET), 'the data directory holds the password in clear');
  });

  test('the new server has a lifecycle runtime in state SHUTDOWN', async () => {
    const lc = await admin.get('domainRuntime/serverLifeCycleRuntimes/ms9?links=none');
    assert.equal(lc.status, 200, lc.text);
    assert.equal(lc.json.name, 'ms9');
    assert.equal(lc.json.state, 'SHUTDOWN');
  });

  test('after a restart every bean reads back unchanged', async () => {
    srv = await srv.restart();
    for (const [path, expected] of EXPECTED) {
      const s = await admin.get(`serverConfig/${path}?links=none`);
      assert.equal(s.status, 200, `serverConfig/${path} after restart: ${s.text}`);
      assertFields(s.json, expected, `serverConfig/${path} after restart`);
      assert.deepEqual(s.json, snapshot.get(path), `serverConfig/${path} changed across the restart`);
      const d = await admin.get(`domainConfig/${path}?links=none`);
      assert.deepEqual(d.json, s.json, `domainConfig/${path} after restart`);
      const e = await admin.get(`edit/${path}?links=none`);
      assert.deepEqual(e.json, s.json, `edit/${path} after restart`);
    }
    assert.deepEqual((await admin.get('serverConfig/servers?links=none')).json, snapshot.get('servers'));
    assert.deepEqual((await admin.get('serverConfig/clusters?links=none')).json, snapshot.get('clusters'));
    const lc = await admin.get('domainRuntime/serverLifeCycleRuntimes/ms9?links=none');
    assert.equal(lc.status, 200, lc.text);
    assert.equal(lc.json.state, 'SHUTDOWN');
    assert.deepEqual(await changeManager(admin), { locked: false, mergeNeeded: false, editSession: 'default' });
    assert.ok(!dataDirText(srv.dataDir).includes(SECRET));
  });

  test('deleting the server (implicit session) removes it and its lifecycle runtime', async () => {
    const r = await admin.del('edit/servers/ms9');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.equal((await admin.get('serverConfig/servers/ms9')).status, 404);
    assert.equal((await admin.get('edit/servers/ms9')).status, 404);
    assert.equal((await admin.get('domainRuntime/serverLifeCycleRuntimes/ms9')).status, 404);
    const names = (await admin.get('domainRuntime/serverLifeCycleRuntimes?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
    assert.deepEqual(names, ['AdminServer', 'ms1', 'ms2']);
    assert.equal((await changeManager(admin)).locked, false);
    // The cluster stays, and the data source still targets it.
    assert.deepEqual((await admin.get(`serverConfig/${DS}?links=none`)).json.targets, [{ identity: ['clusters', 'c9'] }]);
  });

  test('deleting the cluster clears the references to it', async () => {
    const r = await admin.del('edit/clusters/c9');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await admin.get(`serverConfig/${DS}?links=none`)).json.targets, []);
    assert.equal((await admin.get('serverConfig/clusters/c9')).status, 404);
  });
});

describe('the change manager', () => {
  let srv: TestServer;
  let admin: Client;
  serverForTests((started, administrator) => {
    srv = started;
    admin = administrator;
  });

  test('cancelEdit discards every change of the session and releases the lock', async () => {
    const serversBefore = (await admin.get('serverConfig/servers?links=none')).json;
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers', { name: 'tmp9', listenPort: 7199 })).status, 201);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'to be cancelled', listenPort: 7999 })).status, 200);
    assert.equal((await admin.del('edit/servers/ms2')).status, 200);
    assert.equal((await admin.get('edit/servers/tmp9')).status, 200);
    const during = (await admin.get('edit/servers?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
    assert.deepEqual(during, ['AdminServer', 'ms1', 'tmp9']);
    assert.equal((await changeManager(admin)).hasChanges, true);

    const r = await admin.post('edit/changeManager/cancelEdit', {});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.deepEqual(await changeManager(admin), { locked: false, mergeNeeded: false, editSession: 'default' });
    assert.equal((await admin.get('edit/servers/tmp9')).status, 404);
    assert.equal((await admin.get('edit/servers/ms2')).status, 200);
    const ms1 = (await admin.get('edit/servers/ms1?links=none')).json;
    assert.equal(ms1.notes, null);
    assert.equal(ms1.listenPort, 7003);
    assert.deepEqual((await admin.get('serverConfig/servers?links=none')).json, serversBefore);
    // Nothing was activated.
    assert.deepEqual((await admin.get('edit/changeManager/activations?links=none')).json.items, []);
    // A new session starts clean.
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await changeManager(admin)).hasChanges, false);
    assert.equal((await admin.post('edit/changeManager/cancelEdit', {})).status, 200);
  });

  test('cancelEdit without a lock is a harmless 200', async () => {
    const r = await admin.post('edit/changeManager/cancelEdit', {});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.equal((await changeManager(admin)).locked, false);
  });

  test('startEdit is idempotent for the lock owner and keeps the pending changes', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'kept' })).status, 200);
    const again = await admin.post('edit/changeManager/startEdit', {});
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.json, {});
    const cm = await changeManager(admin);
    assert.deepEqual(cm, { locked: true, lockOwner: 'admin', hasChanges: true, mergeNeeded: false, editSession: 'default' });
    assert.equal((await admin.get('edit/servers/ms1?links=none')).json.notes, 'kept');
    assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
    assert.equal((await admin.get('serverConfig/servers/ms1?links=none')).json.notes, 'kept');
  });

  test('activate without a lock is refused with 400', async () => {
    assert.equal((await changeManager(admin)).locked, false);
    const r = await admin.post('edit/changeManager/activate', {});
    const items = errorItems(r, 400);
    assertProblem(items, /lock|startEdit/i);
    assert.equal((await changeManager(admin)).locked, false);
  });

  for (const op of ['safeResolve', 'forceResolve']) {
    test(`${op} without a lock is refused with 400 and two errors`, async () => {
      const r = await admin.post(`edit/changeManager/${op}`, {});
      const items = errorItems(r, 400);
      assert.equal(r.json.title, 'ERRORS');
      assert.equal(items.length, 2, JSON.stringify(items));
      assertProblem(items, /Not edit lock owner/);
      assertProblem(items, 'Failed to resolve the changes in this edit session with the global configuration.');
      assert.equal((await changeManager(admin)).locked, false);
    });
  }

  test('a bean deleted in the session is gone from the session\'s view', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    try {
      assert.equal((await admin.del('edit/servers/ms2')).status, 200);
      const names = (await admin.get('edit/servers?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
      assert.ok(!names.includes('ms2'), names.join());
      const item = await admin.get('edit/servers/ms2?links=none&fields=name');
      assert.equal(item.status, 404, `GET of a bean deleted in the session: ${item.status} ${item.text}`);
      // Still there for everybody else until activation.
      assert.equal((await admin.get('serverConfig/servers/ms2')).status, 200);
    } finally {
      assert.equal((await admin.post('edit/changeManager/cancelEdit', {})).status, 200);
    }
    assert.equal((await admin.get('edit/servers/ms2')).status, 200);
  });

  test('a name deleted in the session can be created again in it', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    try {
      assert.equal((await admin.del('edit/clusters/cluster1')).status, 200);
      const r = await admin.post('edit/clusters', { name: 'cluster1', clusterMessagingMode: 'multicast' });
      assert.equal(r.status, 201, `re-creating a cluster deleted in the session: ${r.text}`);
      assert.equal((await admin.get('edit/clusters/cluster1?links=none')).json.clusterMessagingMode, 'multicast');
    } finally {
      assert.equal((await admin.post('edit/changeManager/cancelEdit', {})).status, 200);
    }
    assert.equal((await admin.get('serverConfig/clusters/cluster1?links=none')).json.clusterMessagingMode, 'unicast');
  });

  test('a reference to a bean deleted in the session never reaches the activated configuration', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    try {
      assert.equal((await admin.del('edit/clusters/cluster1')).status, 200);
      // Deleting the cluster cleared ms1's reference in the session ...
      assert.equal((await admin.get('edit/servers/ms1?links=none')).json.cluster, null);
      // ... so pointing ms1 at it again must be refused, now or at activation.
      const write = await admin.post('edit/servers/ms1', { cluster: ['clusters', 'cluster1'] });
      if (write.status === 200) {
        const act = await admin.post('edit/changeManager/activate', {});
        assertProblem(errorItems(act, 400, 'activating a reference to a deleted cluster'), /cluster1/);
      } else {
        assertProblem(errorItems(write, 400, 'reference to a cluster deleted in the session'), /cluster1/, 'cluster');
      }
    } finally {
      await admin.post('edit/changeManager/cancelEdit', {});
    }
    const clusters = (await admin.get('serverConfig/clusters?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
    const ms1 = (await admin.get('serverConfig/servers/ms1?links=none')).json;
    assert.ok(ms1.cluster === null || clusters.includes(ms1.cluster[1]), `serverConfig holds a dangling reference: ms1.cluster = ${JSON.stringify(ms1.cluster)}, clusters = ${clusters.join()}`);
  });

  test('a write failing inside a session leaves the earlier changes of the session in place', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers', { name: 'keep9', listenPort: 7299 })).status, 201);
    errorItems(await admin.post('edit/servers/keep9', { listenPort: 'abc' }), 400);
    errorItems(await admin.post('edit/servers', { name: 'keep9' }), 400);
    const cm = await changeManager(admin);
    assert.equal(cm.locked, true);
    assert.equal(cm.hasChanges, true);
    assert.equal((await admin.get('edit/servers/keep9?links=none')).json.listenPort, 7299);
    assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
    assert.equal((await admin.get('serverConfig/servers/keep9?links=none')).json.listenPort, 7299);
  });
});

describe('the order of collection items survives a restart', () => {
  let srv: TestServer;
  let admin: Client;

  before(async () => {
    srv = await startTestServer();
    admin = client(() => srv.latest);
  });

  after(async () => {
    await srv.stop(true);
  });

  const names = async () => (await admin.get('serverConfig/servers?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);

  test('an item created after a deletion stays last', async () => {
    assert.equal((await admin.del('edit/servers/ms1')).status, 200);
    assert.equal((await admin.post('edit/servers', { name: 'ab9' })).status, 201);
    assert.deepEqual(await names(), ['AdminServer', 'ms2', 'ab9']);
    srv = await srv.restart();
    assert.deepEqual(await names(), ['AdminServer', 'ms2', 'ab9'], 'the order changed across the restart');
  });

  test('items created in one session keep their order', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers', { name: 'zz9' })).status, 201);
    assert.equal((await admin.post('edit/servers', { name: 'aa9' })).status, 201);
    assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
    const before = await names();
    assert.deepEqual(before.slice(-2), ['zz9', 'aa9']);
    srv = await srv.restart();
    assert.deepEqual(await names(), before, 'the order changed across the restart');
  });
});
