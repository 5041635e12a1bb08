// Item 10 (with the rules of round 3, item 2): failed logins are counted per user name and per
// client address; the realm's userLockoutManager configuration (threshold, duration) decides when
// they must wait and for how long at most, the user lockout runtime bean reports it, and an
// administrator can clear it. A wait answers alike for known and unknown user names, and an unknown
// user name costs the same password check as a known one. Clients are loopback addresses of their
// own (127.0.0.x); time moves on the server's manual clock only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as passwords from '../../src/security/passwords.js';
import { type Client, type RuntimeServer, basic, createUser, errorDetails, startRuntimeServer } from '../support/runtime-server.js';
import { sharedStoreAvailable, startSharedPair } from '../support/shared-store.js';
import { type AddressedReply, requestFrom } from '../support/addresses.js';

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

/** currentUser as `auth`, from the client address `from`, on `server`. */
const me = (from: string, auth: string, server: RuntimeServer = srv) => requestFrom(from, `${server.latest}/currentUser?links=none`, { auth });

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
function refusal(r: AddressedReply, what = ''): string {
  assert.equal(r.status, 401, `${what} ${r.text}`);
  assert.equal(r.json?.status, 401, r.text);
  return JSON.stringify({ body: r.json, challenge: r.headers['www-authenticate'] });
}

/** A login that must wait: 429, Retry-After in seconds (also in the message); returns the seconds. */
function waits(r: AddressedReply, what = ''): number {
  assert.equal(r.status, 429, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.status, 429, r.text);
  const seconds = Number(r.headers['retry-after']);
  assert.ok(Number.isInteger(seconds) && seconds >= 1, `Retry-After: ${r.headers['retry-after']}`);
  assert.match(r.json.detail, new RegExp(`Retry in ${seconds} seconds?\\.`));
  return seconds;
}

describe('back-off after the configured number of failures', () => {
  test('item 10: after the threshold an address that failed waits, even with the right password, until the back-off ends', async () => {
    const { threshold, durationMs } = await policy(admin);
    assert.equal(threshold, 5, "the product's default threshold");
    assert.equal(durationMs, 30 * MINUTE, "the product's default duration (the longest back-off)");
    const right = await createUser(admin, 'victim10', 'victim-pw10', 'Monitors');
    const from = '127.0.0.11';
    assert.equal((await me(from, right)).status, 200);
    const wrong = refusal(await me(from, basic('victim10', 'guess-0')));
    for (let i = 1; i < threshold; i++) assert.equal(refusal(await me(from, basic('victim10', `guess-${i}`))), wrong, `guess ${i}`);
    const failedAt = srv.scheduler.now();

    // The next attempt from that address is not tried, the right password included.
    assert.equal(waits(await me(from, right), 'the right password after the threshold'), 1);
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

    srv.advance(999);
    waits(await me(from, right), 'a millisecond before the end');
    srv.advance(1);
    const back = await me(from, right);
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.user, 'victim10');
    assert.equal(await ask(admin, 'isLockedOut', 'victim10'), false);
    assert.equal(await ask(admin, 'getLoginFailureCount', 'victim10'), threshold, 'failures past the threshold are kept until they go quiet');
    assert.equal((await figures(admin)).lockedUsersCurrentCount, 0);
  });

  test('item 10: clearLockout ends a back-off at once; only an administrator may call it', async () => {
    const { threshold, resetMs } = await policy(admin);
    // The failures of the test before are forgotten once quiet for the reset duration.
    srv.advance(resetMs + 1000);
    assert.equal(await ask(admin, 'getLoginFailureCount', 'victim10'), 0);
    const right = basic('victim10', 'victim-pw10');
    const from = '127.0.0.12';
    for (let i = 0; i < threshold; i++) refusal(await me(from, basic('victim10', `again-${i}`)));
    waits(await me(from, right));
    const operator = admin.as(await createUser(admin, 'operator10', 'operator-pw10', 'Operators'));
    errorDetails(await operator.post(`${RUNTIME}/clearLockout`, { userName: 'victim10' }), 403, 'an Operator clears a lockout');
    errorDetails(await operator.post(`${RUNTIME}/isLockedOut`, { userName: 'victim10' }), 403, 'an Operator asks about a user');
    const unlocked = (await figures(admin)).unlockedUsersTotalCount;

    const r = await admin.post(`${RUNTIME}/clearLockout`, { userName: 'victim10' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.equal((await me(from, right)).status, 200, 'the user is back at once');
    assert.equal(await ask(admin, 'isLockedOut', 'victim10'), false);
    assert.equal(await ask(admin, 'getLoginFailureCount', 'victim10'), 0);
    assert.equal((await figures(admin)).unlockedUsersTotalCount, unlocked + 1);
    // The product's two-argument form works too.
    const two = await admin.post(`${RUNTIME}/clearLockout`, { userName: 'victim10', identityDomain: null });
    assert.equal(two.status, 200, two.text);
  });

  test('item 10: a wrong password and an unknown user get the same answer, and so do their waits', async () => {
    const { threshold } = await policy(admin);
    await createUser(admin, 'same10', 'same-pw10', 'Monitors');
    const from = '127.0.0.13';
    const wrong = refusal(await me(from, basic('same10', 'not-it-0')));
    assert.equal(refusal(await me(from, basic('nobody-10', 'not-it-0'))), wrong, 'an unknown user');
    for (let i = 1; i < threshold; i++) {
      refusal(await me(from, basic('same10', `not-it-${i}`)));
      refusal(await me(from, basic('nobody-10', `not-it-${i}`)));
    }
    const known = await me(from, basic('same10', 'same-pw10'));
    const unknown = await me(from, basic('nobody-10', 'same-pw10'));
    assert.equal(waits(known), waits(unknown));
    assert.equal(known.text, unknown.text, 'a known and an unknown name wait alike');
    assert.equal(await ask(admin, 'isLockedOut', 'nobody-10'), true, 'unknown names back off like known ones');
    srv.advance(MINUTE);
  });
});

describe('unknown user names cost what known ones cost', () => {
  test('item 10: each failed login makes one password check, whether the user exists or not, and a waiting one none', async () => {
    const { threshold } = await policy(admin);
    await createUser(admin, 'known10', 'known-pw10', 'Monitors');
    const from = '127.0.0.14';
    const cost = async (name: string, n: number, tag: string, answer: (r: AddressedReply) => unknown = refusal) => {
      const start = hashes();
      for (let i = 0; i < n; i++) answer(await me(from, basic(name, `${tag}-${i}`)));
      return hashes() - start;
    };
    const attempts = threshold - 1;
    const known = await cost('known10', attempts, 'k');
    const unknown = await cost('ghost10', attempts, 'g');
    assert.equal(known, attempts, 'one password check per failed login of a known user');
    assert.equal(unknown, known, 'an unknown user name costs what a known one costs');
    // One more each begins both back-offs; then neither costs a check, known or not.
    await cost('known10', 1, 'k-last');
    await cost('ghost10', 1, 'g-last');
    assert.equal(await cost('known10', 3, 'k-waiting', waits), 0);
    assert.equal(await cost('ghost10', 3, 'g-waiting', waits), 0);
    srv.advance(MINUTE);
  });
});

describe('the realm configuration rules', () => {
  test('item 10: a threshold and duration set on the realm apply after the activation', async () => {
    const set = await admin.post(`edit/${CONFIG}`, { lockoutThreshold: 2, lockoutDuration: 1 });
    assert.equal(set.status, 200, set.text);
    const right = await createUser(admin, 'cfg10', 'cfg-pw10', 'Monitors');
    const from = '127.0.0.15';
    refusal(await me(from, basic('cfg10', 'x-1')));
    refusal(await me(from, basic('cfg10', 'x-2')));
    assert.equal(waits(await me(from, right)), 1, 'the back-off begins at the second failure');
    // The longest wait is the realm's duration (one minute), however many failures follow.
    let seconds = 1;
    for (let i = 0; i < 8; i++) {
      srv.advance(seconds * 1000);
      refusal(await me(from, basic('cfg10', `y-${i}`)));
      seconds = waits(await me(from, right));
    }
    assert.equal(seconds, 60, 'the back-off stops growing at the configured duration');
    srv.advance(MINUTE);
    assert.equal((await me(from, right)).status, 200);
  });

  test('item 10: failures from one address, over many user names, make that address wait, and only it', async () => {
    // With a threshold of 2, twenty failures from one address make it wait: even the administrator's
    // remembered credentials are not taken from there, while they are from any other address.
    srv.advance(10 * MINUTE);
    const { threshold } = await policy(admin);
    assert.equal(threshold, 2);
    const from = '127.0.0.16';
    for (let i = 0; i < threshold * 10; i++) refusal(await me(from, basic(`spray10-${i}`, 'Summer2026!')));
    waits(await me(from, admin.auth), "the administrator's credentials from the spraying address");
    assert.equal((await me('127.0.0.17', admin.auth)).status, 200, 'another address is not held up');
    assert.equal((await admin.get('currentUser')).status, 200);
    srv.advance(MINUTE);
    assert.equal((await me(from, admin.auth)).status, 200);
    // Disabled: nothing is counted, nobody waits.
    const off = await admin.post(`edit/${CONFIG}`, { lockoutEnabled: false });
    assert.equal(off.status, 200, off.text);
    const right = await createUser(admin, 'free10', 'free-pw10', 'Monitors');
    for (let i = 0; i < 30; i++) refusal(await me('127.0.0.18', basic('free10', `f-${i}`)));
    assert.equal((await me('127.0.0.18', right)).status, 200);
    assert.equal((await admin.post(`edit/${CONFIG}`, { lockoutEnabled: true, lockoutThreshold: 5, lockoutDuration: 30 })).status, 200);
  });
});

test('item 10: a back-off outlives a restart, and still ends', async () => {
  let own = await startRuntimeServer();
  try {
    const right = await createUser(own.admin, 'persist10', 'persist-pw10', 'Monitors');
    for (let i = 0; i < 5; i++) refusal(await me('127.0.0.19', basic('persist10', `p-${i}`), own));
    own = await own.restart();
    const seconds = waits(await me('127.0.0.19', right, own), 'after the restart');
    assert.equal(await ask(own.admin, 'isLockedOut', 'persist10'), true);
    own.advance(seconds * 1000);
    assert.equal((await me('127.0.0.19', right, own)).status, 200);
  } finally {
    await own.stop(true);
  }
});

test('item 10: servers sharing a store share the failure counts and the back-offs', { skip: !sharedStoreAvailable() && 'needs PostgreSQL (APPSERVER_TEST_PG)' }, async () => {
  const pair = await startSharedPair();
  try {
    const right = await createUser(pair.a, 'shared10', 'shared-pw10', 'Monitors');
    const on = (c: Client, auth: string) => requestFrom('127.0.0.20', c.url('currentUser?links=none'), { auth });
    // Three failures through one server and two through the other: five in all.
    for (let i = 0; i < 3; i++) refusal(await on(pair.a, basic('shared10', `a-${i}`)));
    for (let i = 0; i < 2; i++) refusal(await on(pair.b, basic('shared10', `b-${i}`)));
    waits(await on(pair.a, right));
    waits(await on(pair.b, right));
    const cleared = await pair.b.post(`${RUNTIME}/clearLockout`, { userName: 'shared10' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal((await on(pair.a, right)).status, 200, 'cleared through one server, cleared on both');
  } finally {
    await pair.stop();
  }
});
