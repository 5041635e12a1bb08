// Item 9: the edit lock is no longer held forever. startEdit honours waitTime (how long to wait for
// a lock another user holds, without holding up other requests, at most 30 s, over when the client
// goes away) and timeOut (after which the lock lapses with its changes, on every server sharing
// the store and after a restart); an administrator can take over or cancel any lock (audited);
// removing a user releases its locks. Time moves on the servers' manual clocks only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AUTHN,
  type Client,
  type Reply,
  type RuntimeServer,
  createUser,
  errorDetails,
  pollUntil,
  request,
  startRuntimeServer,
} from '../support/runtime-server.js';
import { sharedStoreAvailable, startSharedPair } from '../support/shared-store.js';

const CM = 'edit/changeManager';
const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';

let srv: RuntimeServer;
let admin: Client;
let d1: Client;
let d2: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  d1 = admin.as(await createUser(admin, 'deployer1', 'deployer1-pw', 'Deployers'));
  d2 = admin.as(await createUser(admin, 'deployer2', 'deployer2-pw', 'Deployers'));
});

after(async () => {
  await srv.stop(true);
});

async function changeManager(c: Client, headers?: Record<string, string>): Promise<Record<string, unknown>> {
  // The session's pending changes (a list) are left out: these tests compare the lock's state.
  const r = await c.get(`${CM}?links=none&excludeFields=pendingChanges`, headers);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

const UNLOCKED = { locked: false, mergeNeeded: false, editSession: 'default' };

function ok(r: Reply, what: string): void {
  assert.equal(r.status, 200, `${what}: ${r.text}`);
  assert.deepEqual(r.json, {}, what);
}

/** Starts a request that will wait for the lock, and returns (its answer to come) once the server waits for it. */
async function waitingStartEdit(s: RuntimeServer, c: Client, body: unknown, signal?: AbortSignal): Promise<{ reply: Promise<Reply> }> {
  const waiting = s.scheduler.waiting;
  const reply = request(c.url(`${CM}/startEdit`), { method: 'POST', body, auth: c.auth, headers: { 'x-requested-by': 'item-09' }, ...(signal ? { signal } : {}) });
  // Keep a failure of the request for whoever awaits it.
  reply.catch(() => undefined);
  await pollUntil(async () => s.scheduler.waiting, (n) => n > waiting, 'the startEdit to wait for the lock');
  return { reply };
}

async function audit(c: Client): Promise<Record<string, string>[]> {
  const r = await c.get('domainRuntime/auditRecords?links=none');
  assert.equal(r.status, 200, r.text);
  return r.json.items;
}

describe('timeOut: a lock lapses', () => {
  test('item 09: a lock taken with a timeOut lapses when it runs out, and its changes go with it', async () => {
    ok(await d1.post(`${CM}/startEdit`, { waitTime: 0, timeOut: 60_000 }), 'startEdit with a timeOut');
    assert.equal((await d1.post('edit/JDBCSystemResources', { name: 'ds9' })).status, 201);
    assert.deepEqual(await changeManager(admin), { locked: true, lockOwner: 'deployer1', hasChanges: true, mergeNeeded: false, editSession: 'default' });
    srv.advance(59_999);
    assert.equal((await changeManager(admin)).lockOwner, 'deployer1', 'a millisecond before it lapses');
    srv.advance(1);
    assert.deepEqual(await changeManager(admin), UNLOCKED);
    assert.equal((await admin.get('edit/JDBCSystemResources/ds9')).status, 404, 'the changes of a lapsed lock are dropped');
    // deployer1's writes now run as implicit sessions, and anyone may take the lock.
    const lapsed = (await audit(admin)).find((r) => r.action === 'editLockLapsed');
    assert.ok(lapsed, 'the lapse is in the audit');
    assert.match(lapsed.detail, /deployer1/);
    ok(await d2.post(`${CM}/startEdit`, {}), 'another user takes the lock');
    ok(await d2.post(`${CM}/cancelEdit`, {}), 'cancelEdit');
  });

  test('item 09: startEdit by the holder renews the lock with its new timeOut', async () => {
    ok(await d1.post(`${CM}/startEdit`, { waitTime: 0, timeOut: 10_000 }), 'startEdit');
    srv.advance(9_000);
    ok(await d1.post(`${CM}/startEdit`, { waitTime: 0, timeOut: 10_000 }), 'startEdit again');
    srv.advance(9_000);
    assert.equal((await changeManager(admin)).lockOwner, 'deployer1');
    srv.advance(1_000);
    assert.deepEqual(await changeManager(admin), UNLOCKED);
  });

  test('item 09: waitTime and timeOut must be numbers of milliseconds', async () => {
    for (const [body, arg] of [
      [{ waitTime: 0, timeOut: 0 }, 'timeOut'],
      [{ waitTime: 0, timeOut: -2 }, 'timeOut'],
      [{ waitTime: -5, timeOut: -1 }, 'waitTime'],
      [{ waitTime: 'soon', timeOut: -1 }, 'waitTime'],
    ] as const) {
      const problems = errorDetails(await d1.post(`${CM}/startEdit`, body), 400, JSON.stringify(body));
      assert.ok(problems.some((p) => p.startsWith(`[${arg}] `)), `${JSON.stringify(body)}: ${problems.join(' | ')}`);
    }
    assert.deepEqual(await changeManager(admin), UNLOCKED);
  });
});

describe('waitTime: waiting for a lock another user holds', () => {
  test('item 09: startEdit waits for the lock without holding up other requests, and gets it when it is released', async () => {
    ok(await d1.post(`${CM}/startEdit`, {}), 'deployer1 takes the lock');
    const { reply: waiting } = await waitingStartEdit(srv, d2, { waitTime: 20_000, timeOut: -1 });
    // Meanwhile everyone else is answered.
    assert.equal((await changeManager(admin)).lockOwner, 'deployer1');
    assert.equal((await admin.get('serverConfig/servers?links=none&fields=name')).status, 200);
    assert.equal((await d1.post('edit/JDBCSystemResources', { name: 'ds9w' })).status, 201);
    ok(await d1.post(`${CM}/cancelEdit`, {}), 'deployer1 releases the lock');
    ok(await waiting, "deployer2's startEdit");
    assert.deepEqual(await changeManager(d2), { locked: true, lockOwner: 'deployer2', hasChanges: false, mergeNeeded: false, editSession: 'default' });
    ok(await d2.post(`${CM}/cancelEdit`, {}), 'cancelEdit');
  });

  test('item 09: a waiting startEdit gets a lock the moment it lapses', async () => {
    ok(await d1.post(`${CM}/startEdit`, { waitTime: 0, timeOut: 10_000 }), 'a lock for 10 s');
    const { reply: waiting } = await waitingStartEdit(srv, d2, { waitTime: 20_000, timeOut: -1 });
    srv.advance(10_000);
    ok(await waiting, 'startEdit after the lapse');
    assert.equal((await changeManager(admin)).lockOwner, 'deployer2');
    ok(await d2.post(`${CM}/cancelEdit`, {}), 'cancelEdit');
  });

  test('item 09: a waiting startEdit gives up after waitTime, naming the holder; no wait is longer than 30 s', async () => {
    ok(await d1.post(`${CM}/startEdit`, {}), 'deployer1 takes the lock');
    const { reply: short } = await waitingStartEdit(srv, d2, { waitTime: 5_000, timeOut: -1 });
    srv.advance(5_000);
    const problems = errorDetails(await short, 400, 'startEdit after waitTime');
    assert.ok(problems.some((p) => p.includes("'deployer1'")), problems.join(' | '));
    const { reply: long } = await waitingStartEdit(srv, d2, { waitTime: 3_600_000, timeOut: -1 });
    srv.advance(30_000);
    errorDetails(await long, 400, 'startEdit asking to wait an hour');
    ok(await d1.post(`${CM}/cancelEdit`, {}), 'cancelEdit');
  });

  test('item 09: a user may have at most 4 startEdits waiting; more are refused at once', async () => {
    ok(await d1.post(`${CM}/startEdit`, {}), 'deployer1 takes the lock');
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push((await waitingStartEdit(srv, d2, { waitTime: 20_000, timeOut: -1 })).reply);
    const fifth = errorDetails(await d2.post(`${CM}/startEdit`, { waitTime: 20_000, timeOut: -1 }), 400, 'a fifth waiting startEdit');
    assert.ok(fifth.some((p) => /Too many startEdits wait/.test(p)), fifth.join(' | '));
    ok(await d1.post(`${CM}/cancelEdit`, {}), 'deployer1 releases the lock');
    for (const w of waits) ok(await w, 'a waiting startEdit of deployer2');
    assert.equal((await changeManager(admin)).lockOwner, 'deployer2');
    ok(await d2.post(`${CM}/cancelEdit`, {}), 'cancelEdit');
  });

  test('item 09: the wait ends when the client goes away', async () => {
    ok(await d1.post(`${CM}/startEdit`, {}), 'deployer1 takes the lock');
    const idle = srv.scheduler.waiting;
    const abort = new AbortController();
    const { reply: waiting } = await waitingStartEdit(srv, d2, { waitTime: 20_000, timeOut: -1 }, abort.signal);
    abort.abort();
    await assert.rejects(waiting);
    await pollUntil(async () => srv.scheduler.waiting, (n) => n === idle, 'the server to stop waiting for a client that left');
    assert.equal((await changeManager(admin)).lockOwner, 'deployer1');
    ok(await d1.post(`${CM}/cancelEdit`, {}), 'cancelEdit');
  });
});

describe('administrators take over or cancel any lock', () => {
  test('item 09: an administrator takes over a lock with its changes, or cancels it; both are audited', async () => {
    ok(await d1.post(`${CM}/startEdit`, {}), 'deployer1 takes the lock');
    assert.equal((await d1.post('edit/JDBCSystemResources', { name: 'ds9t' })).status, 201);
    errorDetails(await d2.post(`${CM}/takeOverEdit`, {}), 403, 'a Deployer takes over');
    errorDetails(await d2.post(`${CM}/forceCancelEdit`, {}), 403, 'a Deployer cancels another lock');

    ok(await admin.post(`${CM}/takeOverEdit`, {}), 'takeOverEdit');
    assert.deepEqual(await changeManager(admin), { locked: true, lockOwner: 'admin', hasChanges: true, mergeNeeded: false, editSession: 'default' });
    const refused = errorDetails(await d1.post('edit/JDBCSystemResources', { name: 'ds9u' }), 400, "deployer1's write after the takeover");
    assert.ok(refused.some((p) => p.includes("'admin'")), refused.join(' | '));
    assert.equal((await admin.get('edit/JDBCSystemResources/ds9t')).status, 200, 'the changes were taken over');

    ok(await admin.post(`${CM}/forceCancelEdit`, {}), 'forceCancelEdit of the lock taken over');
    assert.deepEqual(await changeManager(admin), UNLOCKED);
    assert.equal((await admin.get('edit/JDBCSystemResources/ds9t')).status, 404, 'a cancelled lock drops its changes');

    ok(await d1.post(`${CM}/startEdit`, { waitTime: 0, timeOut: -1 }), 'deployer1 again');
    assert.equal((await d1.post('edit/JDBCSystemResources', { name: 'ds9v' })).status, 201);
    ok(await admin.post(`${CM}/forceCancelEdit`, {}), "forceCancelEdit of deployer1's lock");
    assert.deepEqual(await changeManager(d1), UNLOCKED);
    assert.equal((await admin.get('edit/JDBCSystemResources/ds9v')).status, 404);

    const records = await audit(admin);
    const took = records.find((r) => r.action === 'takeOverEdit' && r.user === 'admin');
    assert.ok(took, 'the takeover is audited');
    assert.equal(took.outcome, 'success');
    assert.equal(took.address, '127.0.0.1');
    assert.match(took.detail, /deployer1/);
    const cancelled = records.find((r) => r.action === 'forceCancelEdit' && r.user === 'admin' && r.detail.includes('deployer1'));
    assert.ok(cancelled, 'the cancel is audited with the holder');
    assert.match(cancelled.detail, /1 unactivated change/);
    assert.ok(records.some((r) => r.action === 'takeOverEdit' && r.user === 'deployer2' && r.outcome === 'refused'), 'the refused takeover is audited');
  });

  test('item 09: removing a user releases the locks it held, in every session', async () => {
    const gone = admin.as(await createUser(admin, 'gone9', 'gone9-pw12', 'Deployers'));
    assert.equal((await gone.post(ESC, { name: 'sess9' })).status, 201);
    ok(await gone.post(`${CM}/startEdit`, {}), 'startEdit in the default session');
    assert.equal((await gone.post('edit/JDBCSystemResources', { name: 'ds9g' })).status, 201);
    ok(await gone.post(`${CM}/startEdit`, {}, { 'appserver.edit.session': 'sess9' }), 'startEdit in sess9');
    ok(await admin.post(`${AUTHN}/removeUser`, { userName: 'gone9' }), 'removeUser');
    assert.deepEqual(await changeManager(admin), UNLOCKED);
    assert.equal((await changeManager(admin, { 'appserver.edit.session': 'sess9' })).locked, false);
    assert.equal((await admin.get('edit/JDBCSystemResources/ds9g')).status, 404);
    const released = (await audit(admin)).filter((r) => r.action === 'editLockReleased');
    assert.equal(released.length, 2, JSON.stringify(released));
    for (const r of released) assert.match(r.detail, /gone9/);
    // A new user of that name does not find a lock of its own anywhere.
    await createUser(admin, 'gone9', 'gone9-pw34', 'Deployers');
    assert.deepEqual(await changeManager(admin), UNLOCKED);
  });
});

test('item 09: a lock and its expiry survive a restart, and it lapses after the restart', async () => {
  let own = await startRuntimeServer();
  try {
    const d = own.admin.as(await createUser(own.admin, 'restart9', 'restart9-pw', 'Deployers'));
    ok(await d.post(`${CM}/startEdit`, { waitTime: 0, timeOut: 60_000 }), 'startEdit');
    own = await own.restart();
    assert.equal((await changeManager(own.admin)).lockOwner, 'restart9', 'the lock is still held after the restart');
    own.advance(60_000);
    assert.deepEqual(await changeManager(own.admin), UNLOCKED);
  } finally {
    await own.stop(true);
  }
});

test('item 09: servers sharing a store agree: a lapse on one is a lapse on all, a release on one ends a wait on the other', { skip: !sharedStoreAvailable() && 'needs PostgreSQL (APPSERVER_TEST_PG)' }, async () => {
  const pair = await startSharedPair();
  try {
    const a1 = pair.a.as(await createUser(pair.a, 'pair9a', 'pair9a-pw1', 'Deployers'));
    const b2 = pair.b.as(await createUser(pair.a, 'pair9b', 'pair9b-pw1', 'Deployers'));
    ok(await a1.post(`${CM}/startEdit`, {}), 'a lock through server A');
    const waiting = pair.schedulers[1].waiting;
    const reply = request(b2.url(`${CM}/startEdit`), { method: 'POST', body: { waitTime: 20_000, timeOut: -1 }, auth: b2.auth, headers: { 'x-requested-by': 'item-09' } });
    await pollUntil(async () => pair.schedulers[1].waiting, (n) => n > waiting, 'server B to wait for the lock');
    ok(await a1.post(`${CM}/cancelEdit`, {}), 'released through server A');
    ok(await reply, 'the wait on server B ends with the lock');
    assert.equal((await changeManager(pair.a)).lockOwner, 'pair9b');
    ok(await b2.post(`${CM}/cancelEdit`, {}), 'cancelEdit');

    ok(await a1.post(`${CM}/startEdit`, { waitTime: 0, timeOut: 60_000 }), 'a lock for a minute through server A');
    assert.equal((await changeManager(pair.b)).lockOwner, 'pair9a');
    pair.advance(60_000);
    assert.deepEqual(await changeManager(pair.b), UNLOCKED, 'lapsed as seen through server B');
    assert.deepEqual(await changeManager(pair.a), UNLOCKED, 'and through server A');
  } finally {
    await pair.stop();
  }
});
