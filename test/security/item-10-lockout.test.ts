// Item 10: failed logins are counted per user name and per client address; the realm's
// userLockoutManager configuration (threshold, duration) locks them out, the user lockout runtime
// bean reports it, and an administrator can clear it. A lockout answers exactly like a wrong
// password, and an unknown user name costs the same password check as a known one. Time moves on
// the server's manual clock only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as passwords from '../../src/security/passwords.js';
import { type Client, type Reply, type RuntimeServer, basic, createUser, errorDetails, startRuntimeServer } from '../support/runtime-server.js';
import { sharedStoreAvailable, startSharedPair } from '../support/shared-store.js';

/** Password hashes (key derivations) computed so far by this process, where the servers under test run. */
const hashes = (): number => (passwords as { hashing?: { computations: number } }).hashing?.computations ?? Number.NaN;

const CONFIG = 'securityConfiguration/realms/myrealm/userLockoutManager';
const RUNTIME = 'serverRuntime/serverSecurityRuntime/defaultRealmRuntime/userLockoutManagerRuntime';
const MINUTE = 60_000;

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
});

after(async () => {
  await srv.stop(true);
});

const me = (c: Client, auth: string) => c.as(auth).get('currentUser?links=none');

async function policy(c: Client): Promise<{ threshold: number; durationMs: number; resetMs: number }> {
  const r = await c.get(`serverConfig/${CONFIG}?links=none`);
  assert.equal(r.status, 200, r.text);
  return { threshold: r.json.lockoutThreshold, durationMs: r.json.lockoutDuration * MINUTE, resetMs: r.json.lockoutResetDuration * MINUTE };
}

async function figures(c: Client): Promise<Record<string, number>> {
  const r = await c.get(`${RUNTIME}?links=none`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

async function ask(c: Client, op: string, userName: string): Promise<unknown> {
  const r = await c.post(`${RUNTIME}/${op}`, { userName });
  assert.equal(r.status, 200, `${op}(${userName}): ${r.text}`);
  return r.json.return;
}

/** The parts of a 401 a client sees (the body and the challenge). */
function refusal(r: Reply): string {
  assert.equal(r.status, 401, r.text);
  errorDetails(r, 401);
  return JSON.stringify({ body: r.json, challenge: r.headers.get('www-authenticate') });
}

describe('lockout after the configured number of failures', () => {
  test('item 10: the attempt after the threshold is refused even with the right password, until the lockout ends', async () => {
    const { threshold, durationMs } = await policy(admin);
    assert.equal(threshold, 5, "the product's default threshold");
    assert.equal(durationMs, 30 * MINUTE, "the product's default duration");
    const right = await createUser(admin, 'victim10', 'victim-pw10', 'Monitors');
    // Used once, so that the right credential is remembered as good.
    assert.equal((await me(admin, right)).status, 200);
    const wrong = refusal(await me(admin, basic('victim10', 'guess-0')));
    for (let i = 1; i < threshold; i++) assert.equal(refusal(await me(admin, basic('victim10', `guess-${i}`))), wrong, `guess ${i}`);
    const failedAt = srv.scheduler.now();

    // Attempt threshold + 1: the right password gets the wrong password's answer.
    assert.equal(refusal(await me(admin, right)), wrong, 'a locked-out user is told what a wrong password is told');

    const f = await figures(admin);
    assert.equal(f.lockedUsersCurrentCount, 1);
    assert.equal(f.userLockoutTotalCount, 1);
    assert.ok(f.invalidLoginAttemptsTotalCount >= threshold, JSON.stringify(f));
    assert.ok(f.loginAttemptsWhileLockedTotalCount >= 1, JSON.stringify(f));
    assert.ok(f.invalidLoginUsersHighCount >= 1, JSON.stringify(f));
    assert.equal(await ask(admin, 'isLockedOut', 'victim10'), true);
    assert.equal(await ask(admin, 'getLoginFailureCount', 'victim10'), threshold);
    assert.equal(await ask(admin, 'getLastLoginFailure', 'victim10'), failedAt);
    assert.equal(await ask(admin, 'isLockedOut', 'admin'), false);

    srv.advance(durationMs - MINUTE);
    assert.equal(refusal(await me(admin, right)), wrong, 'still locked out a minute before the end');
    srv.advance(MINUTE);
    const back = await me(admin, right);
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.user, 'victim10');
    assert.equal(await ask(admin, 'isLockedOut', 'victim10'), false);
    assert.equal((await figures(admin)).lockedUsersCurrentCount, 0);
  });

  test('item 10: clearLockout lets the user in at once; only an administrator may call it', async () => {
    const { threshold } = await policy(admin);
    const right = basic('victim10', 'victim-pw10');
    for (let i = 0; i < threshold; i++) refusal(await me(admin, basic('victim10', `again-${i}`)));
    refusal(await me(admin, right));
    const monitor = admin.as(right);
    const operator = admin.as(await createUser(admin, 'operator10', 'operator-pw10', 'Operators'));
    errorDetails(await operator.post(`${RUNTIME}/clearLockout`, { userName: 'victim10' }), 403, 'an Operator clears a lockout');
    errorDetails(await operator.post(`${RUNTIME}/isLockedOut`, { userName: 'victim10' }), 403, 'an Operator asks about a user');
    const unlocked = (await figures(admin)).unlockedUsersTotalCount;

    const r = await admin.post(`${RUNTIME}/clearLockout`, { userName: 'victim10' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.equal((await monitor.get('currentUser')).status, 200, 'the user is back at once');
    assert.equal(await ask(admin, 'isLockedOut', 'victim10'), false);
    assert.equal(await ask(admin, 'getLoginFailureCount', 'victim10'), 0);
    assert.equal((await figures(admin)).unlockedUsersTotalCount, unlocked + 1);
    // The product's two-argument form works too.
    const two = await admin.post(`${RUNTIME}/clearLockout`, { userName: 'victim10', identityDomain: null });
    assert.equal(two.status, 200, two.text);
  });

  test('item 10: a wrong password, an unknown user and a locked-out user get the same answer', async () => {
    const { threshold } = await policy(admin);
    const right = await createUser(admin, 'same10', 'same-pw10', 'Monitors');
    const wrong = refusal(await me(admin, basic('same10', 'not-it-0')));
    assert.equal(refusal(await me(admin, basic('nobody-10', 'same-pw10'))), wrong, 'an unknown user');
    for (let i = 1; i < threshold; i++) refusal(await me(admin, basic('same10', `not-it-${i}`)));
    assert.equal(refusal(await me(admin, right)), wrong, 'a locked-out user with the right password');
    assert.equal((await admin.post(`${RUNTIME}/clearLockout`, { userName: 'same10' })).status, 200);
  });
});

describe('unknown user names cost what known ones cost', () => {
  test('item 10: each failed login makes one password check, whether the user exists or not, and a locked-out name none', async () => {
    const { threshold } = await policy(admin);
    await createUser(admin, 'known10', 'known-pw10', 'Monitors');
    const attempts = threshold - 1;
    const cost = async (name: string, n: number, tag: string) => {
      const start = hashes();
      for (let i = 0; i < n; i++) refusal(await me(admin, basic(name, `${tag}-${i}`)));
      return hashes() - start;
    };
    const known = await cost('known10', attempts, 'k');
    const unknown = await cost('ghost10', attempts, 'g');
    assert.equal(known, attempts, 'one password check per failed login of a known user');
    assert.equal(unknown, known, 'an unknown user name costs what a known one costs');
    // One more each locks both names out; then neither costs a check, known or not.
    await cost('known10', 1, 'k-last');
    await cost('ghost10', 1, 'g-last');
    assert.equal(await ask(admin, 'isLockedOut', 'ghost10'), true, 'unknown names are locked out like known ones');
    assert.equal(await cost('known10', 3, 'k-locked'), 0);
    assert.equal(await cost('ghost10', 3, 'g-locked'), 0);
  });
});

describe('the realm configuration rules', () => {
  test('item 10: a threshold and duration set on the realm apply after the activation', async () => {
    // Earlier failures from this address no longer count.
    srv.advance(10 * MINUTE);
    const set = await admin.post(`edit/${CONFIG}`, { lockoutThreshold: 2, lockoutDuration: 1 });
    assert.equal(set.status, 200, set.text);
    const right = await createUser(admin, 'cfg10', 'cfg-pw10', 'Monitors');
    refusal(await me(admin, basic('cfg10', 'x-1')));
    refusal(await me(admin, basic('cfg10', 'x-2')));
    refusal(await me(admin, right));
    srv.advance(MINUTE);
    assert.equal((await me(admin, right)).status, 200);
  });

  test('item 10: failures from one address, over many user names, lock the address out', async () => {
    // With a threshold of 2, twenty failures from one address lock it out: even the administrator's
    // remembered credentials are refused from there, until the lockout ends.
    srv.advance(10 * MINUTE);
    const { threshold, durationMs } = await policy(admin);
    assert.equal(threshold, 2);
    for (let i = 0; i < threshold * 10; i++) refusal(await me(admin, basic(`spray10-${i}`, 'Summer2026!')));
    refusal(await admin.get('currentUser'));
    srv.advance(durationMs);
    assert.equal((await admin.get('currentUser')).status, 200);
    // Disabled: nothing is counted, nobody is locked out.
    const off = await admin.post(`edit/${CONFIG}`, { lockoutEnabled: false });
    assert.equal(off.status, 200, off.text);
    const right = await createUser(admin, 'free10', 'free-pw10', 'Monitors');
    for (let i = 0; i < 30; i++) refusal(await me(admin, basic('free10', `f-${i}`)));
    assert.equal((await me(admin, right)).status, 200);
    assert.equal((await admin.post(`edit/${CONFIG}`, { lockoutEnabled: true, lockoutThreshold: 5, lockoutDuration: 30 })).status, 200);
  });
});

test('item 10: a lockout survives a restart', async () => {
  let own = await startRuntimeServer();
  try {
    const right = await createUser(own.admin, 'persist10', 'persist-pw10', 'Monitors');
    for (let i = 0; i < 5; i++) refusal(await me(own.admin, basic('persist10', `p-${i}`)));
    own = await own.restart();
    refusal(await me(own.admin, right));
    assert.equal(await ask(own.admin, 'isLockedOut', 'persist10'), true);
    own.advance(30 * MINUTE);
    assert.equal((await me(own.admin, right)).status, 200);
  } finally {
    await own.stop(true);
  }
});

test('item 10: servers sharing a store share the failure counts and the lockouts', { skip: !sharedStoreAvailable() && 'needs PostgreSQL (APPSERVER_TEST_PG)' }, async () => {
  const pair = await startSharedPair();
  try {
    const right = await createUser(pair.a, 'shared10', 'shared-pw10', 'Monitors');
    // Three failures through one server and two through the other: five in all.
    for (let i = 0; i < 3; i++) refusal(await me(pair.a, basic('shared10', `a-${i}`)));
    for (let i = 0; i < 2; i++) refusal(await me(pair.b, basic('shared10', `b-${i}`)));
    refusal(await me(pair.a, right));
    refusal(await me(pair.b, right));
    assert.equal(await ask(pair.a, 'isLockedOut', 'shared10'), true);
    const cleared = await pair.b.post(`${RUNTIME}/clearLockout`, { userName: 'shared10' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal((await me(pair.a, right)).status, 200, 'cleared through one server, cleared on both');
  } finally {
    await pair.stop();
  }
});
