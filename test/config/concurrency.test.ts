// Two administrators at work: the edit lock keeps one out of the other's session; named edit
// sessions run side by side, and one that overlaps an activation needs a merge (safeResolve or
// forceResolve) before it can be activated.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ESC, type Client, assertProblem, changeManager, client, createUser, errorItems } from '../support/edit.js';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
let admin2: Client;

before(async () => {
  srv = await startTestServer();
  admin = client(() => srv.latest);
  admin2 = admin.as(await createUser(admin, 'admin2', 'admin2-pw1', 'Administrators'));
});

after(async () => {
  await srv.stop(true);
});

const serverValue = async (name: string, prop: string) => (await admin.get(`serverConfig/servers/${name}?links=none`)).json[prop];

describe('the lock of the default session', () => {
  test('admin takes the lock; admin2 is kept out of the session', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'by admin, pending' })).status, 200);

    const write = await admin2.post('edit/servers/ms1', { notes: 'by admin2' });
    assertProblem(errorItems(write, 400, "admin2's write while admin holds the lock"), "'admin'");
    const create = await admin2.post('edit/servers', { name: 'by-admin2', listenPort: 7501 });
    assertProblem(errorItems(create, 400, "admin2's create while admin holds the lock"), "'admin'");
    const del = await admin2.del('edit/servers/ms2');
    assertProblem(errorItems(del, 400, "admin2's delete while admin holds the lock"), "'admin'");
    const start = await admin2.post('edit/changeManager/startEdit', {});
    assertProblem(errorItems(start, 400, "admin2's startEdit while admin holds the lock"), "'admin'");
    const activate = await admin2.post('edit/changeManager/activate', {});
    errorItems(activate, 400, "admin2's activate of admin's session");
    const cancel = await admin2.post('edit/changeManager/cancelEdit', {});
    errorItems(cancel, 400, "admin2's cancelEdit of admin's session");

    const seen = await changeManager(admin2);
    assert.equal(seen.locked, true);
    assert.equal(seen.lockOwner, 'admin');
    assert.equal(seen.editSession, 'default');

    // admin's session is intact, and nothing reached the activated configuration.
    const mine = await changeManager(admin);
    assert.deepEqual(mine, { locked: true, lockOwner: 'admin', hasChanges: true, mergeNeeded: false, editSession: 'default' });
    assert.equal((await admin.get('edit/servers/ms1?links=none')).json.notes, 'by admin, pending');
    assert.equal((await admin.get('edit/servers/by-admin2')).status, 404);
    assert.equal((await admin.get('edit/servers/ms2')).status, 200);
    assert.equal(await serverValue('ms1', 'notes'), null);
  });

  test("after admin activates, admin2's implicit write works and shows at once", async () => {
    assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
    assert.equal(await serverValue('ms1', 'notes'), 'by admin, pending');
    const w = await admin2.post('edit/servers/ms1', { notes: 'by admin2' });
    assert.equal(w.status, 200, w.text);
    assert.deepEqual(w.json, {});
    assert.equal(await serverValue('ms1', 'notes'), 'by admin2');
    assert.equal((await admin2.get('edit/servers/ms1?links=none')).json.notes, 'by admin2');
    assert.deepEqual(await changeManager(admin), { locked: false, mergeNeeded: false, editSession: 'default' });
  });

  test('two startEdits at the same moment: exactly one wins', async () => {
    const [a, b] = await Promise.all([admin.post('edit/changeManager/startEdit', {}), admin2.post('edit/changeManager/startEdit', {})]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [200, 400], `${a.status} ${a.text} / ${b.status} ${b.text}`);
    const winner = a.status === 200 ? 'admin' : 'admin2';
    assert.equal((await changeManager(admin)).lockOwner, winner);
    const owner = winner === 'admin' ? admin : admin2;
    assert.equal((await owner.post('edit/changeManager/cancelEdit', {})).status, 200);
    assert.equal((await changeManager(admin)).locked, false);
  });

  test('concurrent implicit writes of two administrators all apply', async () => {
    const writes = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? admin : admin2).post('edit/servers', { name: `both${i}`, listenPort: 7600 + i }));
    const results = await Promise.all(writes);
    assert.deepEqual(
      results.map((r) => r.status),
      Array(10).fill(201),
      results.map((r) => r.text).join('\n'),
    );
    for (let i = 0; i < 10; i++) assert.equal(await serverValue(`both${i}`, 'listenPort'), 7600 + i);
    assert.equal((await changeManager(admin)).locked, false);
  });
});

describe('named edit sessions', () => {
  const s2 = () => admin2.inSession('s2');

  test('admin2 creates the session s2', async () => {
    const r = await admin2.post(ESC, { name: 's2', description: 'second session' });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json, {});
    assert.equal(r.headers.get('location'), `${srv.latest}/${ESC}/s2`);
    const item = await admin2.get(`${ESC}/s2?links=none`);
    assert.equal(item.status, 200, item.text);
    assert.equal(item.json.name, 's2');
    assert.equal(item.json.creator, 'admin2');
    assert.equal(item.json.description, 'second session');
    assert.deepEqual(await changeManager(s2()), { locked: false, mergeNeeded: false, editSession: 's2' });
  });

  test('a conflicting change: s2 needs a merge, safeResolve refuses, forceResolve keeps s2', async () => {
    assert.equal((await s2().post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s2().post('edit/servers/ms1', { listenPort: 8101 })).status, 200);
    assert.equal((await s2().get('edit/servers/ms1?links=none')).json.listenPort, 8101);
    // The default session is not locked by s2: admin's implicit write goes through at once.
    assert.equal((await changeManager(admin)).locked, false);
    const w = await admin.post('edit/servers/ms1', { listenPort: 8102 });
    assert.equal(w.status, 200, w.text);
    assert.equal(await serverValue('ms1', 'listenPort'), 8102);

    const cm = await changeManager(s2());
    assert.equal(cm.locked, true);
    assert.equal(cm.lockOwner, 'admin2');
    assert.equal(cm.hasChanges, true);
    assert.equal(cm.mergeNeeded, true);
    assert.equal(cm.editSession, 's2');
    const contains = await admin2.post(`${ESC}/s2/containsUnactivatedChanges`, {});
    assert.equal(contains.status, 200, contains.text);
    assert.deepEqual(contains.json, { return: true });
    assert.equal((await admin2.get(`${ESC}/s2?links=none`)).json.mergeNeeded, true);

    const act = await s2().post('edit/changeManager/activate', {});
    assertProblem(errorItems(act, 400, 'activating s2 before a merge'), /merge/i);
    assert.equal(await serverValue('ms1', 'listenPort'), 8102);

    const safe = await s2().post('edit/changeManager/safeResolve', {});
    const items = errorItems(safe, 400, 'safeResolve of a conflict');
    assert.ok(
      items.some((i) => i.path === 'listenPort' || i.detail.includes('listenPort')),
      `safeResolve does not name listenPort: ${JSON.stringify(items)}`,
    );
    assert.equal((await changeManager(s2())).mergeNeeded, true);

    const force = await s2().post('edit/changeManager/forceResolve', {});
    assert.equal(force.status, 200, force.text);
    assert.deepEqual(force.json, {});
    const resolved = await changeManager(s2());
    assert.equal(resolved.mergeNeeded, false);
    assert.equal(resolved.hasChanges, true);

    const act2 = await s2().post('edit/changeManager/activate', {});
    assert.equal(act2.status, 200, act2.text);
    assert.equal(await serverValue('ms1', 'listenPort'), 8101);
    assert.deepEqual((await admin2.post(`${ESC}/s2/containsUnactivatedChanges`, {})).json, { return: false });
    assert.deepEqual(await changeManager(s2()), { locked: false, mergeNeeded: false, editSession: 's2' });
    // The default session's view follows too.
    assert.equal((await admin.get('edit/servers/ms1?links=none')).json.listenPort, 8101);
  });

  test('safeResolve merges changes that do not overlap', async () => {
    assert.equal((await s2().post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s2().post('edit/servers/ms1', { listenPort: 8201 })).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'default, other property' })).status, 200);
    // Same bean, different properties: nothing conflicts, so safeResolve merges.
    const safe = await s2().post('edit/changeManager/safeResolve', {});
    assert.equal(safe.status, 200, safe.text);
    assert.equal((await changeManager(s2())).mergeNeeded, false);
    assert.equal((await s2().post('edit/changeManager/activate', {})).status, 200);
    const ms1 = (await admin.get('serverConfig/servers/ms1?links=none')).json;
    assert.equal(ms1.listenPort, 8201);
    assert.equal(ms1.notes, 'default, other property');
  });

  test('changes to different beans activate without any resolve', async () => {
    assert.equal((await s2().post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s2().post('edit/servers/ms2', { notes: 'from s2' })).status, 200);
    assert.equal((await admin.post('edit/servers/ms1', { notes: 'from default' })).status, 200);
    const cm = await changeManager(s2());
    assert.equal(cm.mergeNeeded, false);
    assert.equal(cm.hasChanges, true);
    const act = await s2().post('edit/changeManager/activate', {});
    assert.equal(act.status, 200, act.text);
    assert.equal(await serverValue('ms2', 'notes'), 'from s2');
    assert.equal(await serverValue('ms1', 'notes'), 'from default');
  });

  test('the session view of s2 shows activations made meanwhile', async () => {
    assert.equal((await s2().post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s2().post('edit/servers/ms2', { notes: 'pending in s2' })).status, 200);
    assert.equal((await admin.post('edit/servers', { name: 'made-meanwhile', listenPort: 7701 })).status, 201);
    assert.equal((await s2().get('edit/servers/made-meanwhile?links=none')).json.listenPort, 7701);
    assert.equal((await s2().post('edit/changeManager/cancelEdit', {})).status, 200);
    assert.equal(await serverValue('ms2', 'notes'), 'from s2');
  });

  test('a pending session and its need for a merge survive a restart', async () => {
    assert.equal((await s2().post('edit/changeManager/startEdit', {})).status, 200);
    try {
      assert.equal((await s2().post('edit/servers/ms1', { listenPort: 8301 })).status, 200);
      assert.equal((await admin.post('edit/servers/ms1', { listenPort: 8302 })).status, 200);
      assert.equal((await changeManager(s2())).mergeNeeded, true);
      srv = await srv.restart();
      const cm = await changeManager(s2());
      assert.equal(cm.locked, true);
      assert.equal(cm.lockOwner, 'admin2');
      assert.equal(cm.hasChanges, true);
      assert.equal((await s2().get('edit/servers/ms1?links=none')).json.listenPort, 8301);
      assert.equal(await serverValue('ms1', 'listenPort'), 8302);
      assert.equal(cm.mergeNeeded, true, `the conflict with the activation made before the restart was forgotten: ${JSON.stringify(cm)}`);
      const act = await s2().post('edit/changeManager/activate', {});
      assertProblem(errorItems(act, 400, 'activating s2 after a restart, without a merge'), /merge/i);
      assert.equal(await serverValue('ms1', 'listenPort'), 8302);
    } finally {
      assert.equal((await s2().post('edit/changeManager/cancelEdit', {})).status, 200);
    }
    assert.equal(await serverValue('ms1', 'listenPort'), 8302, 'the concurrent change was overwritten without a merge');
  });

  test('a Deployers user who did not create s2 may not destroy it', async () => {
    const deployer = admin.as(await createUser(admin, 'deployer1', 'deployer-pw1', 'Deployers'));
    const r = await deployer.del(`${ESC}/s2`);
    errorItems(r, 403, 'a deployer destroys a session of another user');
    assert.equal((await admin.get(`${ESC}/s2`)).status, 200);
  });

  test('an administrator may destroy s2 with unactivated changes, even if not its creator', async () => {
    assert.equal((await s2().post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s2().post('edit/servers/ms2', { notes: 'never activated' })).status, 200);
    assert.deepEqual((await admin2.post(`${ESC}/s2/containsUnactivatedChanges`, {})).json, { return: true });
    const r = await admin.del(`${ESC}/s2`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.equal((await admin.get(`${ESC}/s2`)).status, 404);
    const list = (await admin.get(`${ESC}?links=none&fields=name`)).json.items.map((i: { name: string }) => i.name);
    assert.ok(!list.includes('s2'), list.join());
    assert.equal(await serverValue('ms2', 'notes'), 'from s2');
    // The session is gone: working in it now fails instead of silently using another session.
    const gone = await s2().post('edit/servers/ms2', { notes: 'into a destroyed session' });
    assert.ok(gone.status === 404 || gone.status === 400, `${gone.status} ${gone.text}`);
    assert.equal(await serverValue('ms2', 'notes'), 'from s2');
    assert.deepEqual(await changeManager(admin), { locked: false, mergeNeeded: false, editSession: 'default' });
  });

  test('a destroyed session name can be created again, empty', async () => {
    assert.equal((await admin2.post(ESC, { name: 's2', description: 'again' })).status, 201);
    assert.deepEqual((await admin2.post(`${ESC}/s2/containsUnactivatedChanges`, {})).json, { return: false });
    assert.deepEqual(await changeManager(s2()), { locked: false, mergeNeeded: false, editSession: 's2' });
  });

  test('the default session cannot be destroyed, and a duplicate session name is refused', async () => {
    const del = await admin.del(`${ESC}/default`);
    assert.ok(del.status === 400 || del.status === 404, `${del.status} ${del.text}`);
    assert.equal((await admin.post('edit/servers/ms2', { notes: 'default still works' })).status, 200);
    const dup = await admin2.post(ESC, { name: 's2', description: 'duplicate' });
    assertProblem(errorItems(dup, 400), /already exists/);
    const bad = await admin2.post(ESC, { name: 'a/b', description: 'odd' });
    errorItems(bad, 400, 'an edit session named a/b');
    assert.deepEqual(await changeManager(admin), { locked: false, mergeNeeded: false, editSession: 'default' });
  });
});
