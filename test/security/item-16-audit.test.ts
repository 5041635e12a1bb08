// Item 16: an append-only audit trail, kept in the store and readable by administrators only at
// domainRuntime/auditRecords (newest first): user and group changes, lifecycle operations,
// deployments, Lifecycle Manager writes, activations and edit-lock takeovers, failed logins and
// lockouts, each with who, from where, what, on which bean and how it ended; never a password.
// The last administrator cannot be removed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ASYNC, AUTHN, type Client, type RuntimeServer, basic, createUser, errorDetails, request, startRuntimeServer } from '../support/runtime-server.js';

const AUDIT = 'domainRuntime/auditRecords';
const ADDRESS = '127.0.0.1';

interface AuditRecord {
  name: string;
  time: string;
  user: string | null;
  address: string;
  action: string;
  bean: string;
  outcome: string;
  detail: string;
}

let srv: RuntimeServer;
let admin: Client;
let monitor: Client;
let deployer: Client;
let operator: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  monitor = admin.as(await createUser(admin, 'monitor16', 'monitor16-pw', 'Monitors'));
  deployer = admin.as(await createUser(admin, 'deployer16', 'deployer16-pw', 'Deployers'));
  operator = admin.as(await createUser(admin, 'operator16', 'operator16-pw', 'Operators'));
});

after(async () => {
  await srv.stop(true);
});

async function records(c: Client = admin): Promise<AuditRecord[]> {
  const r = await c.get(`${AUDIT}?links=none`);
  assert.equal(r.status, 200, r.text);
  return r.json.items;
}

/** The newest record matching, checked for who and from where. */
async function recorded(what: Partial<AuditRecord>, user: string | null = 'admin'): Promise<AuditRecord> {
  const all = await records();
  const found = all.find((r) => Object.entries(what).every(([k, v]) => r[k as keyof AuditRecord] === v));
  assert.ok(found, `no audit record ${JSON.stringify(what)} among ${JSON.stringify(all.slice(0, 8), null, 1)}`);
  assert.equal(found.user, user, JSON.stringify(found));
  if (user !== null) assert.equal(found.address, ADDRESS, JSON.stringify(found));
  assert.match(found.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
  return found;
}

describe('what is recorded', () => {
  test('item 16: user and group changes name the caller, the address, the action, the provider and the outcome', async () => {
    const post = (op: string, body: Record<string, unknown>) => admin.post(`${AUTHN}/${op}`, body);
    assert.equal((await post('createUser', { userName: 'u16', password: 'Secret-16-pw', description: 'audited' })).status, 200);
    assert.equal((await post('createGroup', { groupName: 'g16', description: 'audited' })).status, 200);
    assert.equal((await post('addMemberToGroup', { groupName: 'g16', memberUserOrGroupName: 'u16' })).status, 200);
    assert.equal((await post('resetUserPassword', { userName: 'u16', newPassword: 'Other-16-pw' })).status, 200);
    errorDetails(await post('changeUserPassword', { userName: 'u16', oldPassword: 'Wrong-old-16', newPassword: 'Third-16-pw' }), 400);
    errorDetails(await post('createUser', { userName: 'short16', password: 'Tiny-1', description: '' }), 400);
    assert.equal((await post('removeMemberFromGroup', { groupName: 'g16', memberUserOrGroupName: 'u16' })).status, 200);
    assert.equal((await post('removeUser', { userName: 'u16' })).status, 200);
    assert.equal((await post('removeGroup', { groupName: 'g16' })).status, 200);
    errorDetails(await monitor.post(`${AUTHN}/createUser`, { userName: 'm16', password: 'Monitor-16-pw', description: '' }), 403);

    for (const action of ['createUser', 'createGroup', 'addMemberToGroup', 'resetUserPassword', 'removeMemberFromGroup', 'removeUser', 'removeGroup']) {
      await recorded({ action, bean: AUTHN, outcome: 'success' });
    }
    const wrongOld = await recorded({ action: 'changeUserPassword', outcome: 'failure' });
    assert.match(wrongOld.detail, /^invalid: .*old password/);
    await recorded({ action: 'createUser', outcome: 'failure' });
    await recorded({ action: 'createUser', outcome: 'refused' }, 'monitor16');

    const all = await records();
    const ids = all.map((r) => Number(r.name));
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
    const text = JSON.stringify(all);
    for (const secret of ['Secret-16-pw', 'Other-16-pw', 'Wrong-old-16', 'Third-16-pw', 'Tiny-1', 'Monitor-16-pw']) {
      assert.ok(!text.includes(secret), `the audit holds the password ${secret}`);
    }
  });

  test('item 16: lifecycle operations of servers, partitions, resource groups, applications, data sources and pools are recorded', async () => {
    const ops: [Client, string, string, string][] = [
      [admin, 'domainRuntime/serverLifeCycleRuntimes/ms1', 'start', 'accepted'],
      [operator, 'domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime/resourceGroupLifeCycleRuntimes/partition1-rg', 'forceSuspend', 'accepted'],
      [admin, 'domainRuntime/domainPartitionRuntimes/partition2/partitionLifeCycleRuntime', 'boot', 'accepted'],
      [admin, 'domainRuntime/deploymentManager/appDeploymentRuntimes/inventory', 'stop', 'accepted'],
      [admin, 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds', 'suspend', 'success'],
      [admin, 'serverRuntime/connectorServiceRuntime/activeRAs/demo-adapter/connectionPools/eis%2Fdemo-adapter', 'reset', 'success'],
    ];
    for (const [c, path, op] of ops) {
      const r = await c.post(`${path}/${op}`, {}, ASYNC);
      assert.ok(r.status === 200 || r.status === 202, `${op} ${path}: ${r.text}`);
    }
    for (const [c, path, op, outcome] of ops) {
      const user = c === operator ? 'operator16' : 'admin';
      await recorded({ action: op, bean: decodeURIComponent(path), outcome }, user);
    }
    // An illegal transition is a recorded failure, a refused caller a recorded refusal.
    errorDetails(await admin.post('serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds/suspend', {}), 400);
    const illegal = await recorded({ action: 'suspend', outcome: 'failure' });
    assert.match(illegal.detail, /^invalid: /);
    errorDetails(await monitor.post('domainRuntime/serverLifeCycleRuntimes/ms2/start', {}, ASYNC), 403);
    await recorded({ action: 'start', bean: 'domainRuntime/serverLifeCycleRuntimes/ms2', outcome: 'refused' }, 'monitor16');
    // Queries change nothing and are not recorded.
    const before = (await records()).length;
    assert.equal((await admin.post('domainRuntime/appRuntimeStateRuntime/getCurrentState', { appid: 'benefits', target: 'ms1' })).status, 200);
    assert.equal((await records()).length, before);
  });

  test('item 16: deployments and Lifecycle Manager writes are recorded', async () => {
    const dm = 'domainRuntime/deploymentManager';
    const deploy = await deployer.post(`${dm}/deploy`, { name: 'app16', applicationPath: '/srv/apps/app16.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
    assert.equal(deploy.status, 202, deploy.text);
    await recorded({ action: 'deploy', bean: dm, outcome: 'accepted' }, 'deployer16');
    srv.advance(5_000);
    const undeploy = await deployer.del('edit/appDeployments/app16', ASYNC);
    assert.ok(undeploy.status === 200 || undeploy.status === 202, undeploy.text);
    await recorded({ action: 'delete', bean: 'edit/appDeployments/app16' }, 'deployer16');

    const lcm = (path: string) => `${srv.origin}/management/lifecycle/latest/${path}`;
    const lc = (c: Client, method: string, path: string, body?: unknown) =>
      request(lcm(path), { method, auth: c.auth, headers: { 'x-requested-by': 'item-16' }, ...(body !== undefined ? { body } : {}) });
    assert.equal((await lc(admin, 'POST', 'environments', { name: 'env16' })).status, 201);
    await recorded({ action: 'POST', bean: 'lifecycle/environments', outcome: 'success' });
    errorDetails(await lc(deployer, 'POST', 'environments', { name: 'env16b' }), 403);
    await recorded({ action: 'POST', bean: 'lifecycle/environments', outcome: 'refused' }, 'deployer16');
    assert.equal((await lc(admin, 'DELETE', 'environments/env16')).status, 200);
    await recorded({ action: 'DELETE', bean: 'lifecycle/environments/env16', outcome: 'success' });
  });

  test('item 16: activations, implicit writes and edit-lock takeovers are recorded', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers/ms2', { notes: 'audited' })).status, 200);
    assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
    const activation = await recorded({ action: 'activate', bean: 'edit/changeManager', outcome: 'success' });
    assert.match(activation.detail, /configuration version \d+, 1 change/);
    await recorded({ action: 'update', bean: 'edit/servers/ms2', outcome: 'success' });
    // A write without a lock is its own activation.
    assert.equal((await deployer.post('edit/JDBCSystemResources', { name: 'ds16' })).status, 201);
    await recorded({ action: 'create', bean: 'edit/JDBCSystemResources', outcome: 'success' }, 'deployer16');
    // A secret sent in a write never reaches the record, even inside an error message.
    errorDetails(await admin.post('edit/JDBCSystemResources/ds16/JDBCResource/JDBCDriverParams', { password: { value: 'Hidden-16-pw' } }), 400);
    const refused = await recorded({ action: 'update', bean: 'edit/JDBCSystemResources/ds16/JDBCResource/JDBCDriverParams', outcome: 'failure' });
    assert.ok(!refused.detail.includes('Hidden-16-pw'), refused.detail);

    assert.equal((await deployer.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/changeManager/takeOverEdit', {})).status, 200);
    const took = await recorded({ action: 'takeOverEdit', outcome: 'success' });
    assert.match(took.detail, /deployer16/);
    assert.equal((await admin.post('edit/changeManager/forceCancelEdit', {})).status, 200);
    await recorded({ action: 'forceCancelEdit', outcome: 'success' });
  });

  test('item 16: failed logins and lockouts are recorded with the user name tried, never the password', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await admin.as(basic('monitor16', `Guess-16-${i}`)).get('currentUser');
      assert.equal(r.status, 401);
    }
    const failure = await recorded({ action: 'login', outcome: 'failure' }, 'monitor16');
    assert.equal(failure.address, ADDRESS);
    assert.equal(failure.bean, '/management/appserver/latest/currentUser');
    const lockout = await recorded({ action: 'lockout', outcome: 'locked out' }, 'monitor16');
    assert.match(lockout.detail, /5 failed logins/);
    assert.equal((await admin.as(basic('nobody16', 'Guess-16-x')).get('currentUser')).status, 401);
    await recorded({ action: 'login', outcome: 'failure' }, 'nobody16');
    const text = JSON.stringify(await records());
    assert.ok(!/Guess-16/.test(text), 'the audit holds a password tried');
    assert.equal((await admin.post('serverRuntime/serverSecurityRuntime/defaultRealmRuntime/userLockoutManagerRuntime/clearLockout', { userName: 'monitor16' })).status, 200);
    await recorded({ action: 'clearLockout', outcome: 'success' });
  });
});

describe('who may read it', () => {
  test('item 16: only administrators read the audit; others get 403 and see no link to it', async () => {
    for (const [c, who] of [[monitor, 'Monitor'], [deployer, 'Deployer'], [operator, 'Operator']] as const) {
      errorDetails(await c.get(AUDIT), 403, `${who} reads the audit`);
      errorDetails(await c.get(`${AUDIT}/1`), 403, `${who} reads an audit record`);
      const root = await c.get('domainRuntime');
      assert.equal(root.status, 200);
      assert.ok(!root.json.links.some((l: { rel: string }) => l.rel === 'auditRecords'), `${who} sees the link`);
      const search = await c.post('domainRuntime/search', { fields: [], links: [], children: { auditRecords: {} } });
      assert.equal(search.status, 200, search.text);
      assert.ok(!('auditRecords' in search.json), `${who} finds the audit through search`);
    }
    const root = await admin.get('domainRuntime');
    assert.ok(root.json.links.some((l: { rel: string }) => l.rel === 'auditRecords'));
    const search = await admin.post('domainRuntime/search', { fields: [], links: [], children: { auditRecords: { fields: ['action', 'user'] } } });
    assert.ok(search.json.auditRecords.items.length > 0, search.text);
    const one = (await records())[0]!;
    const item = await admin.get(`${AUDIT}/${one.name}?links=none`);
    assert.equal(item.status, 200, item.text);
    assert.equal(item.json.action, one.action);
    errorDetails(await admin.get(`${AUDIT}/999999`), 404);
    // A page holds at most 200 records; `before` pages back through older ones.
    const page = await records();
    assert.ok(page.length > 4 && page.length <= 200, `${page.length} records`);
    const older = await admin.get(`${AUDIT}?links=none&before=${page[2]!.name}`);
    assert.equal(older.status, 200, older.text);
    assert.deepEqual(older.json.items.slice(0, 2), page.slice(3, 5));
    const bad = errorDetails(await admin.get(`${AUDIT}?before=yesterday`), 400, 'before=yesterday');
    assert.ok(bad.some((d) => d.startsWith('[before] ')), bad.join(' | '));
    // Append-only: no way to change or remove a record.
    assert.equal((await admin.del(`${AUDIT}/${one.name}`)).status, 405);
    assert.equal((await admin.post(AUDIT, { action: 'forged' })).status, 405);
  });

  test('item 16: the audit is kept in the store: a restart keeps every record', async () => {
    const before = await records();
    srv = await srv.restart();
    admin = srv.admin;
    monitor = admin.as(monitor.auth);
    const after = await records();
    assert.deepEqual(after.slice(0, before.length), before);
  });
});

test('item 16: the last administrator cannot be removed', async () => {
  const post = (c: Client, op: string, body: Record<string, unknown>) => c.post(`${AUTHN}/${op}`, body);
  const leave = errorDetails(await post(admin, 'removeMemberFromGroup', { groupName: 'Administrators', memberUserOrGroupName: 'admin' }), 400, 'the last member leaves Administrators');
  assert.ok(leave.some((d) => /without an administrator/.test(d)), leave.join(' | '));
  const drop = errorDetails(await post(admin, 'removeGroup', { groupName: 'Administrators' }), 400, 'Administrators removed');
  assert.ok(drop.some((d) => /without an administrator/.test(d)), drop.join(' | '));
  await recorded({ action: 'removeGroup', outcome: 'failure' });

  // An administrator through a nested group counts: admin may then leave.
  assert.equal((await post(admin, 'createGroup', { groupName: 'Admins16', description: '' })).status, 200);
  assert.equal((await post(admin, 'addMemberToGroup', { groupName: 'Administrators', memberUserOrGroupName: 'Admins16' })).status, 200);
  const other = admin.as(await createUser(admin, 'a16', 'a16-password', 'Admins16'));
  assert.equal((await post(other, 'removeMemberFromGroup', { groupName: 'Administrators', memberUserOrGroupName: 'admin' })).status, 200);
  errorDetails(await post(other, 'removeMemberFromGroup', { groupName: 'Admins16', memberUserOrGroupName: 'a16' }), 400, 'the last administrator leaves the nested group');
  errorDetails(await post(other, 'removeMemberFromGroup', { groupName: 'Administrators', memberUserOrGroupName: 'Admins16' }), 400, 'the nested group leaves Administrators');
  errorDetails(await post(other, 'removeGroup', { groupName: 'Admins16' }), 400, 'the nested group is removed');
  errorDetails(await post(other, 'removeUser', { userName: 'a16' }), 400, 'the last administrator removes itself');
  assert.equal((await other.get(AUDIT)).status, 200, 'a16 is still an administrator');
});
