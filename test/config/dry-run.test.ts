// Dry-run activation and the pending diff (issue 17.4): the change manager shows a session's
// unactivated changes bean by bean and property by property; `activate {"dryRun": true}` judges
// everything a real activation judges and answers the same diff, changing nothing (configuration,
// version, lock, session, records, runtime); the real activation then records exactly that diff.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertProblem, client, type Client, createUser, errorItems, ESC, serverForTests } from '../support/edit.js';
import { type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

type Json = Record<string, any>;

const cm = async (c: Client): Promise<Json> => {
  const r = await c.get('edit/changeManager?links=none');
  assert.equal(r.status, 200, r.text);
  return r.json;
};
const activations = async (): Promise<Json[]> => (await admin.get('edit/changeManager/activations?links=none')).json.items;

/** Everything a dry run must leave as it was: what the client reads of the domain and of the session. */
async function snapshot(c: Client): Promise<Json> {
  const read = async (path: string) => {
    const r = await c.get(path);
    return { status: r.status, etag: r.headers.get('etag'), body: r.json };
  };
  return {
    changeManager: await read('edit/changeManager?links=none'),
    activations: await read('edit/changeManager/activations?links=none'),
    servers: await read('serverConfig/servers?links=none'),
    domainServers: await read('domainConfig/servers?links=none'),
    clusters: await read('serverConfig/clusters?links=none'),
    dataSources: await read('serverConfig/JDBCSystemResources?links=none'),
    lifecycles: await read('domainRuntime/serverLifeCycleRuntimes?links=none&fields=name,state'),
    editView: await read('edit/servers?links=none'),
  };
}

describe('the pending diff and the dry run of one session', () => {
  let dry: Json;

  test('the change manager shows each pending change with old and new values and whether a restart is needed', async () => {
    assert.deepEqual((await cm(admin)).pendingChanges, [], 'nothing pending at first');
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { listenPort: 7411, notes: 'dry' })).status, 200);
    assert.equal((await admin.post('edit/clusters', { name: 'dry-c' })).status, 201);
    const formerCluster = (await admin.get('serverConfig/servers/ms2?links=none')).json.cluster;
    assert.equal((await admin.post('edit/servers/ms2', { cluster: { identity: ['clusters', 'dry-c'] } })).status, 200);
    assert.equal((await admin.post('edit/servers', { name: 'dry-gone', listenPort: 7412 })).status, 201);
    assert.equal((await admin.del('edit/servers/dry-gone')).status, 200, 'made and removed in the session: no trace');
    const ds = await admin.post('edit/JDBCSystemResources', { name: 'dry-ds', targets: [] });
    assert.equal(ds.status, 201, ds.text);
    const params = 'edit/JDBCSystemResources/dry-ds/JDBCResource/JDBCDriverParams';
    assert.equal((await admin.post(params, { url: 'jdbc:postgresql://db/dry', password: 'dry-secret-1' })).status, 200);

    const pending: Json[] = (await cm(admin)).pendingChanges;
    const byPath = new Map(pending.map((c) => [c.identity.join('/'), c]));
    const ms1 = byPath.get('servers/ms1');
    assert.equal(ms1?.operation, 'modify');
    assert.equal(ms1.type, 'Server');
    assert.deepEqual(
      ms1.properties.map((p: Json) => [p.name, p.oldValue, p.newValue]),
      [
        ['listenPort', 7003, 7411],
        ['notes', null, 'dry'],
      ],
    );
    assert.ok(ms1.properties.every((p: Json) => typeof p.restartRequired === 'boolean'));
    const ms2 = byPath.get('servers/ms2');
    assert.ok(ms2);
    assert.deepEqual(ms2.properties.map((p: Json) => [p.name, p.oldValue, p.newValue, p.restartRequired]), [['cluster', formerCluster, ['clusters', 'dry-c'], true]], 'moving to another cluster needs a restart');
    assert.equal(byPath.get('clusters/dry-c')?.operation, 'create');
    assert.equal(byPath.has('servers/dry-gone'), false);
    const driver = byPath.get('JDBCSystemResources/dry-ds/JDBCResource/JDBCDriverParams');
    assert.ok(driver, `the descriptor's driver parameters are listed: ${JSON.stringify([...byPath.keys()])}`);
    const password = driver.properties.find((p: Json) => p.name === 'password');
    assert.deepEqual([password.oldValue, password.newValue], [null, null], 'a secret is never shown');
    assert.ok(!JSON.stringify(pending).includes('dry-secret-1'));
  });

  test('a dry run answers that diff and changes nothing at all', async () => {
    const before = await snapshot(admin);
    const version = (await activations()).length;
    const r = await admin.post('edit/changeManager/activate', { dryRun: true });
    assert.equal(r.status, 200, r.text);
    dry = r.json.return;
    assert.equal(dry.dryRun, true);
    assert.equal(dry.activation, undefined, 'a dry run makes no record');
    assert.equal(dry.version, version + 1, 'the version the activation would make');
    assert.equal(dry.restartRequired, true);
    assert.deepEqual(dry.changes, before.changeManager.body.pendingChanges, 'the dry run reports the pending diff');
    // A second dry run says the same; nothing moved in between.
    assert.deepEqual((await admin.post('edit/changeManager/activate', { dryRun: true })).json.return, dry);
    assert.deepEqual(await snapshot(admin), before, 'bodies and tags are as they were');
    const state = await cm(admin);
    assert.equal(state.locked, true, 'the lock is kept');
    assert.equal(state.lockOwner, 'admin');
    assert.equal(state.hasChanges, true);
  });

  test('the real activation records exactly what the dry run said', async () => {
    const r = await admin.post('edit/changeManager/activate', { dryRun: false });
    assert.equal(r.status, 200, r.text);
    const real = r.json.return;
    assert.equal(real.dryRun, false);
    assert.equal(real.version, dry.version);
    assert.deepEqual(real.changes, dry.changes);
    const record = await admin.get(`edit/changeManager/activations/${real.activation}?links=none`);
    assert.equal(record.status, 200, record.text);
    assert.equal(record.json.version, dry.version);
    assert.equal(record.json.restartRequired, dry.restartRequired);
    assert.deepEqual(record.json.changes, dry.changes, 'the activation record holds the diff of the dry run');
    assert.deepEqual((await cm(admin)).pendingChanges, []);
    assert.equal((await admin.get('serverConfig/servers/ms1?links=none')).json.listenPort, 7411);
  });
});

describe('a dry run refuses what activation refuses', () => {
  test('without the lock, or while another user holds it', async () => {
    const none = await admin.post('edit/changeManager/activate', { dryRun: true });
    assertProblem(errorItems(none, 400), 'Not edit lock owner');
    const deployer = admin.as(await createUser(admin, 'dry-deployer', 'dry-deployer-pw1', 'Deployers'));
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'held by admin' })).status, 200);
    assertProblem(errorItems(await deployer.post('edit/changeManager/activate', { dryRun: true }), 400), "'admin'");
    assert.equal((await admin.post('edit/changeManager/cancelEdit', {})).status, 200);
  });

  test('a merge needed: the same refusal as activate, and the session stays as it was', async () => {
    assert.equal((await admin.post(ESC, { name: 'dry-merge' })).status, 201);
    const s = admin.inSession('dry-merge');
    assert.equal((await s.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s.post('edit/servers/ms1', { notes: 'from dry-merge' })).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'activated meanwhile' })).status, 200);
    const before = await cm(s);
    const dryRun = await s.post('edit/changeManager/activate', { dryRun: true });
    const refusal = errorItems(dryRun, 400, 'dry run');
    assertProblem(refusal, 'needs a merge');
    assert.deepEqual(await cm(s), before, 'the session is untouched');
    const real = await s.post('edit/changeManager/activate', {});
    assert.deepEqual(errorItems(real, 400, 'activate'), refusal, 'activate refuses it the same way');
    assert.equal((await s.post('edit/changeManager/cancelEdit', {})).status, 200);
  });

  test('a reference to a bean removed meanwhile', async () => {
    assert.equal((await admin.post('edit/machines', { name: 'dry-m' })).status, 201);
    assert.equal((await admin.post(ESC, { name: 'dry-ref' })).status, 201);
    const s = admin.inSession('dry-ref');
    assert.equal((await s.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s.post('edit/servers', { name: 'dry-ref-srv', listenPort: 7413, machine: { identity: ['machines', 'dry-m'] } })).status, 201);
    assert.equal((await admin.del('edit/machines/dry-m')).status, 200, 'removed through the default session');
    const records = (await activations()).length;
    const dryRun = await s.post('edit/changeManager/activate', { dryRun: true });
    assertProblem(errorItems(dryRun, 400, 'dry run'), /dry-m/, 'machine');
    assert.equal((await activations()).length, records);
    assert.equal((await s.get('serverConfig/servers/dry-ref-srv')).status, 404);
    assert.equal((await s.post('edit/changeManager/cancelEdit', {})).status, 200);
  });

  test('a Monitor may read the diff but not run a dry run', async () => {
    const monitor = admin.as(await createUser(admin, 'dry-monitor', 'dry-monitor-pw1', 'Monitors'));
    assert.ok(Array.isArray((await cm(monitor)).pendingChanges));
    errorItems(await monitor.post('edit/changeManager/activate', { dryRun: true }), 403);
  });

  test('a dryRun that is not a boolean is a 400 naming it', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    const r = await admin.post('edit/changeManager/activate', { dryRun: 'yes please' });
    errorItems(r, 400);
    assert.match(r.text, /dryRun/);
    assert.equal((await cm(admin)).locked, true);
    assert.equal((await admin.post('edit/changeManager/cancelEdit', {})).status, 200);
  });
});

test('the audit trail tells a dry run from an activation', async () => {
  const r = await admin.get('domainRuntime/auditRecords?links=none');
  assert.equal(r.status, 200, r.text);
  const details = (r.json.items as Json[]).filter((i) => i.action === 'activate').map((i) => String(i.detail));
  assert.ok(details.some((d) => /dry run, nothing applied/.test(d)), JSON.stringify(details));
  assert.ok(details.some((d) => /^Edit session 'default': configuration version \d+/.test(d)), JSON.stringify(details));
});
