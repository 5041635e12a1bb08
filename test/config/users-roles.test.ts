// Users and roles managed over HTTP: a user made by an administrator can sign in at once with the
// rights of its group; read-only roles can read everything and change nothing; password rules;
// removing a user or resetting its password takes effect on the very next request.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertProblem, AUTHN, changeManager, type Client, createUser, errorItems, ESC, serverForTests } from '../support/edit.js';
import { basic, type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

const names = (r: { json: { items: { name: string }[] } }) => r.json.items.map((i) => i.name);

/** Reads every read-only role must be able to make. */
async function assertCanRead(c: Client, who: string): Promise<void> {
  const servers = await c.get('edit/servers?links=none&fields=name');
  assert.equal(servers.status, 200, `${who} GET edit/servers: ${servers.text}`);
  assert.deepEqual(names(servers), ['AdminServer', 'ms1', 'ms2']);
  const dr = await c.get('domainRuntime?links=none');
  assert.equal(dr.status, 200, `${who} GET domainRuntime: ${dr.text}`);
  assert.equal(dr.json.type, 'DomainRuntime');
  const jvm = await c.get('serverRuntime/JVMRuntime?links=none');
  assert.equal(jvm.status, 200, `${who} GET serverRuntime/JVMRuntime: ${jvm.text}`);
  assert.equal(typeof jvm.json.heapFreeCurrent, 'number');
  const search = await c.post('serverRuntime/search', { fields: ['name', 'state'], links: [] });
  assert.equal(search.status, 200, `${who} POST serverRuntime/search: ${search.text}`);
  assert.equal(search.json.state, 'RUNNING');
  const cfg = await c.get('serverConfig/servers/ms1?links=none&fields=listenPort');
  assert.equal(cfg.status, 200, `${who} GET serverConfig: ${cfg.text}`);
  const cm = await c.get('edit/changeManager?links=none');
  assert.equal(cm.status, 200, `${who} GET edit/changeManager: ${cm.text}`);
}

interface Write {
  name: string;
  run: (c: Client) => ReturnType<Client['post']>;
}

/** Writes reserved to administrators (and, for some, deployers). */
const ADMIN_WRITES: Write[] = [
  { name: 'create a server', run: (c) => c.post('edit/servers', { name: 'forbidden1', listenPort: 7401 }) },
  { name: 'update a server', run: (c) => c.post('edit/servers/ms1', { notes: 'forbidden' }) },
  { name: 'delete a server', run: (c) => c.del('edit/servers/ms2') },
  { name: 'update an always-present singleton', run: (c) => c.post('edit/servers/ms1/SSL', { enabled: true }) },
  { name: 'createUser', run: (c) => c.post(`${AUTHN}/createUser`, { userName: 'sneaky', password: 'sneaky-pw1', description: 'x' }) },
  { name: 'createUser under edit', run: (c) => c.post(`edit/${AUTHN.replace(/^serverConfig\//, '')}/createUser`, { userName: 'sneaky2', password: 'sneaky-pw1', description: 'x' }) },
  { name: 'add itself to Administrators', run: (c) => c.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Administrators', memberUserOrGroupName: userOf(c.auth) }) },
  { name: "reset the administrator's password", run: (c) => c.post(`${AUTHN}/resetUserPassword`, { userName: 'admin', newPassword: 'taken-over1' }) },
  { name: 'remove the administrator', run: (c) => c.post(`${AUTHN}/removeUser`, { userName: 'admin' }) },
];

/** Change-manager and session writes: administrators and deployers only. */
const EDIT_WRITES: Write[] = [
  { name: 'startEdit', run: (c) => c.post('edit/changeManager/startEdit', {}) },
  { name: 'activate', run: (c) => c.post('edit/changeManager/activate', {}) },
  { name: 'create an edit session configuration', run: (c) => c.post(ESC, { name: 'forbidden-session', description: 'x' }) },
];

function userOf(auth: string): string {
  const decoded = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8');
  return decoded.slice(0, decoded.indexOf(':'));
}

async function assertForbidden(c: Client, writes: Write[], who: string): Promise<void> {
  for (const w of writes) {
    const r = await w.run(c);
    const items = errorItems(r, 403, `${who}: ${w.name}`);
    assertProblem(items, `'${who}'`);
  }
}

/** Nothing any refused write could have changed did change. */
async function assertNothingChanged(): Promise<void> {
  const servers = await admin.get('serverConfig/servers?links=none&fields=name,notes');
  assert.deepEqual(servers.json.items, [
    { name: 'AdminServer', notes: null },
    { name: 'ms1', notes: null },
    { name: 'ms2', notes: null },
  ]);
  assert.equal((await admin.get('serverConfig/servers/ms1/SSL?links=none')).json.enabled, false);
  for (const u of ['sneaky', 'sneaky2']) {
    const exists = await admin.post(`${AUTHN}/userExists`, { userName: u });
    assert.deepEqual(exists.json, { return: false }, `user ${u} was created`);
  }
  const admins = await admin.post(`${AUTHN}/listGroupMembers`, { groupName: 'Administrators', memberUserOrGroupNameWildcard: '*', maximumToReturn: 0 });
  assert.deepEqual(admins.json, { return: ['admin'] });
  assert.equal((await admin.get('currentUser?links=none')).status, 200, 'the administrator lost its password');
  assert.equal((await admin.get(`${ESC}/forbidden-session`)).status, 404);
  assert.equal((await changeManager(admin)).locked, false);
}

describe('a Monitors user made over HTTP', () => {
  let monitor: Client;

  test('the administrator creates monitor1 and adds it to Monitors', async () => {
    const auth = await createUser(admin, 'monitor1', 'monitor-pw1', 'Monitors');
    monitor = admin.as(auth);
    assert.deepEqual((await admin.post(`${AUTHN}/userExists`, { userName: 'monitor1' })).json, { return: true });
    const member = await admin.post(`${AUTHN}/isMember`, { parentGroupName: 'Monitors', memberUserOrGroupName: 'monitor1', recursive: true });
    assert.deepEqual(member.json, { return: true });
    const listed = await admin.post(`${AUTHN}/listUsers`, { nameWildcard: 'mon*', maximumToReturn: 10 });
    assert.deepEqual(listed.json, { return: ['monitor1'] });
  });

  test('currentUser names the new user', async () => {
    const r = await monitor.get('currentUser?links=none');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { partitionId: '0', partitionName: 'DOMAIN', user: 'monitor1', roles: ['Monitor'] });
  });

  test('monitor1 can read at once', async () => {
    await assertCanRead(monitor, 'monitor1');
  });

  test('every write monitor1 tries is refused with 403 JSON', async () => {
    await assertForbidden(monitor, [...ADMIN_WRITES, ...EDIT_WRITES], 'monitor1');
    await assertNothingChanged();
  });

  test('monitor1 is refused even while an administrator holds the lock', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    try {
      await assertForbidden(monitor, [ADMIN_WRITES[1]!, EDIT_WRITES[0]!], 'monitor1');
      const cm = await changeManager(admin);
      assert.equal(cm.lockOwner, 'admin');
      assert.equal(cm.hasChanges, false);
    } finally {
      assert.equal((await admin.post('edit/changeManager/cancelEdit', {})).status, 200);
    }
  });
});

describe('Operators and Deployers users', () => {
  let operator: Client;
  let deployer: Client;

  before(async () => {
    operator = admin.as(await createUser(admin, 'operator1', 'operator-pw1', 'Operators'));
    deployer = admin.as(await createUser(admin, 'deployer1', 'deployer-pw1', 'Deployers'));
  });

  test('an Operators user can read', async () => {
    await assertCanRead(operator, 'operator1');
  });

  test('a Deployers user can read', async () => {
    await assertCanRead(deployer, 'deployer1');
  });

  test('an Operators user cannot change the configuration or manage users', async () => {
    await assertForbidden(operator, ADMIN_WRITES, 'operator1');
    errorItems(await operator.post('edit/JDBCSystemResources', { name: 'opds' }), 403, 'operator creates a JDBC system resource');
    await assertNothingChanged();
  });

  test('a Deployers user can create a JDBC system resource (implicit session)', async () => {
    const r = await deployer.post('edit/JDBCSystemResources', { name: 'depds', targets: [{ identity: ['clusters', 'cluster1'] }] });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json, {});
    assert.equal(r.headers.get('location'), `${srv.latest}/edit/JDBCSystemResources/depds`);
    const got = await admin.get('serverConfig/JDBCSystemResources/depds?links=none');
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json.targets, [{ identity: ['clusters', 'cluster1'] }]);
    assert.equal((await changeManager(admin)).locked, false);
  });

  test('a Deployers user cannot create, change or delete a server, nor manage users', async () => {
    await assertForbidden(deployer, ADMIN_WRITES, 'deployer1');
    await assertNothingChanged();
  });
});

describe('password rules and credential changes take effect at once', () => {
  test('a 5-character password is refused with 400 and no user is made', async () => {
    const r = await admin.post(`${AUTHN}/createUser`, { userName: 'shorty', password: 'ab1de', description: 'x' });
    assertProblem(errorItems(r, 400), /at least 8 characters/, 'password');
    assert.deepEqual((await admin.post(`${AUTHN}/userExists`, { userName: 'shorty' })).json, { return: false });
    const login = await admin.as(basic('shorty', 'ab1de')).get('currentUser');
    assert.equal(login.status, 401);
  });

  test('a password of letters only is refused with 400', async () => {
    const r = await admin.post(`${AUTHN}/createUser`, { userName: 'letters', password: 'abcdefghijkl', description: 'x' });
    assertProblem(errorItems(r, 400), /not a letter/, 'password');
    assert.deepEqual((await admin.post(`${AUTHN}/userExists`, { userName: 'letters' })).json, { return: false });
  });

  test('resetUserPassword to a short password is refused and the old one keeps working', async () => {
    const auth = await createUser(admin, 'keeper1', 'keeper-pw1', 'Monitors');
    const r = await admin.post(`${AUTHN}/resetUserPassword`, { userName: 'keeper1', newPassword: 'x1' });
    assertProblem(errorItems(r, 400), /at least 8 characters/, 'newPassword');
    assert.equal((await admin.as(auth).get('currentUser')).status, 200);
  });

  test('removing a user makes its credentials fail with 401 on the next request', async () => {
    const auth = await createUser(admin, 'temp1', 'temp-pw12', 'Monitors');
    const temp = admin.as(auth);
    // Used a few times first, so that any remembered verdict would be in place.
    for (let i = 0; i < 3; i++) assert.equal((await temp.get('currentUser')).status, 200);
    const r = await admin.post(`${AUTHN}/removeUser`, { userName: 'temp1' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    const after = await temp.get('domainRuntime');
    assert.equal(after.status, 401, `a removed user still signs in: ${after.text}`);
    assert.equal(after.json?.status, 401);
    assert.match(after.headers.get('www-authenticate') ?? '', /^Basic /);
    // A new user of the same name does not inherit the old password or group.
    await createUser(admin, 'temp1', 'other-pw12');
    assert.equal((await temp.get('currentUser')).status, 401);
    const fresh = admin.as(basic('temp1', 'other-pw12'));
    errorItems(await fresh.get('domainRuntime'), 403, 'a re-created user has no role yet');
  });

  test('resetUserPassword makes the old password fail and the new one work at once', async () => {
    const oldAuth = await createUser(admin, 'rotate1', 'first-pw12', 'Monitors');
    for (let i = 0; i < 3; i++) assert.equal((await admin.as(oldAuth).get('currentUser')).status, 200);
    const r = await admin.post(`${AUTHN}/resetUserPassword`, { userName: 'rotate1', newPassword: 'second-pw12' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await admin.as(oldAuth).get('currentUser')).status, 401, 'the old password still works');
    const now = await admin.as(basic('rotate1', 'second-pw12')).get('currentUser?links=none');
    assert.equal(now.status, 200, now.text);
    assert.equal(now.json.user, 'rotate1');
  });

  // A check of a credential that is still hashing when the user is removed (or its password reset)
  // must not answer for requests that arrive after the removal returned. Wrong-password requests
  // keep the hashing pool busy so the first check is still running when the removal is done; a
  // correct server answers 401 whatever the timing.
  test('a user removed while its credential is being checked is refused on the next request', async () => {
    for (let round = 0; round < 3; round++) {
      const name = `racer${round}`;
      const auth = await createUser(admin, name, 'racer-pw12', 'Monitors');
      assert.equal((await admin.get('currentUser')).status, 200);
      const user = admin.as(auth);
      // Three wrong passwords, the first request (if the removal beats its check) and the next one
      // make at most five failures, the lockout threshold: the next login is still checked (401);
      // a sixth would make this address wait (429) and answer for the race this test is about.
      const noise = Array.from({ length: 3 }, (_, i) => admin.as(basic(name, `wrong-pw${i}`)).get('currentUser'));
      const first = user.get('currentUser');
      const removed = await admin.post(`${AUTHN}/removeUser`, { userName: name });
      assert.equal(removed.status, 200, removed.text);
      const next = await user.get('currentUser?links=none');
      await Promise.all([first, ...noise]);
      assert.equal(next.status, 401, `round ${round}: a request made after removeUser returned was answered ${next.status} ${next.text.slice(0, 200)}`);
    }
  });

  test('leaving the role group takes the rights away at once', async () => {
    const auth = await createUser(admin, 'leaver1', 'leaver-pw1', 'Monitors');
    assert.equal((await admin.as(auth).get('domainRuntime')).status, 200);
    const r = await admin.post(`${AUTHN}/removeMemberFromGroup`, { groupName: 'Monitors', memberUserOrGroupName: 'leaver1' });
    assert.equal(r.status, 200, r.text);
    errorItems(await admin.as(auth).get('domainRuntime'), 403, 'a user without a role group reads');
  });

  test('joining Administrators gives the rights at once', async () => {
    const auth = await createUser(admin, 'promoted1', 'promoted-pw1', 'Monitors');
    const promoted = admin.as(auth);
    errorItems(await promoted.post('edit/servers/ms1', { notes: 'before' }), 403);
    const r = await admin.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Administrators', memberUserOrGroupName: 'promoted1' });
    assert.equal(r.status, 200, r.text);
    const w = await promoted.post('edit/servers/ms2', { notes: 'by promoted1' });
    assert.equal(w.status, 200, w.text);
    assert.equal((await admin.get('serverConfig/servers/ms2?links=none')).json.notes, 'by promoted1');
  });
});
