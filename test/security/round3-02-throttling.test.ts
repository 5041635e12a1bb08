// Round 3, item 2: a stranger guessing passwords cannot lock anyone else out. Failed logins make the
// guessing address wait (429 with Retry-After, doubling, bounded by the realm's lockoutDuration),
// and the guessed name wait only from addresses that failed recently: the right password from a
// clean address gets in at any time during the attack. Waiting requests do not lengthen a wait.
// When every administrator is held up or has lost a password, `appserver-admin users unlock` and
// `users reset-password` work on the data directory's store without a server. Clients are loopback
// addresses of their own (127.0.0.x); the server's clock is manual.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ADMIN, type RuntimeServer, basic, createUser, startRuntimeServer } from '../support/runtime-server.js';
import { type AddressedReply, requestFrom } from '../support/addresses.js';
import { BIN, ROOT, cliEnv } from '../support/cli.js';
import { storeFor } from '../support/store.js';

const MINUTE = 60_000;
const STRANGER = '127.0.0.31';

let srv: RuntimeServer;

before(async () => {
  srv = await startRuntimeServer();
});

after(async () => {
  await srv.stop(true);
});

const me = (from: string, auth: string, server: RuntimeServer = srv) => requestFrom(from, `${server.latest}/currentUser?links=none`, { auth });

/** A 429 with its Retry-After (seconds), which the message repeats. */
function waits(r: AddressedReply, what = ''): number {
  assert.equal(r.status, 429, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.status, 429);
  const seconds = Number(r.headers['retry-after']);
  assert.ok(Number.isInteger(seconds) && seconds >= 1, `Retry-After ${r.headers['retry-after']}`);
  assert.match(r.json.detail, /the login was not tried/);
  return seconds;
}

describe('round 3, item 2: throttling instead of a lock strangers control', () => {
  test('round3-02: while a stranger guesses an administrator, the right password from a clean address always gets in', async () => {
    const right = await createUser(srv.admin, 'boss02', 'boss02-password', 'Administrators');
    const waited: number[] = [];
    for (let i = 0; i < 16; i++) {
      const r = await me(STRANGER, basic('boss02', `guess-${i}`));
      assert.equal(r.status, 401, `guess ${i} is tried once any wait is over: ${r.text}`);
      if (i < 4) continue;
      // From the fifth failure on, the stranger's next guess waits.
      const seconds = waits(await me(STRANGER, basic('boss02', `guess-${i}-early`)), `after guess ${i}`);
      waited.push(seconds);
      // The owner, from addresses that never failed, is never held up (the first of these logins
      // is a fresh password check made while the name's back-off runs).
      const owner = await me(`127.0.0.${40 + (i % 3)}`, right);
      assert.equal(owner.status, 200, `the owner after guess ${i}: ${owner.text}`);
      srv.advance(seconds * 1000);
    }
    // The stranger's waits doubled and stopped at the realm's lockoutDuration (30 minutes).
    assert.deepEqual(waited, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1800]);
    // Even the right password is not tried from the guessing address while it waits.
    assert.equal((await me(STRANGER, basic('boss02', 'guess-last'))).status, 401);
    waits(await me(STRANGER, right), 'the right password from the guessing address');
  });

  test('round3-02: requests sent while waiting do not lengthen the wait', async () => {
    srv.advance(60 * MINUTE);
    const from = '127.0.0.33';
    for (let i = 0; i < 5; i++) assert.equal((await me(from, basic('admin', `spam-${i}`))).status, 401);
    const first = waits(await me(from, basic('admin', 'spam-x')));
    assert.equal(first, 1);
    for (let i = 0; i < 50; i++) assert.ok(waits(await me(from, basic('admin', `spam-w-${i}`))) <= first);
    srv.advance(first * 1000);
    assert.equal((await me(from, basic('admin', 'spam-after'))).status, 401, 'tried again once the first wait is over');
    // The administrator's own address never failed: its requests go on.
    assert.equal((await srv.admin.get('currentUser')).status, 200);
  });

  test('round3-02: an address that sprays many names waits, and other addresses do not', async () => {
    srv.advance(60 * MINUTE);
    const from = '127.0.0.34';
    // 50 failures (10 times the threshold) over 50 names: no name reached its own threshold.
    for (let i = 0; i < 50; i++) assert.equal((await me(from, basic(`spray02-${i}`, 'Winter2026!'))).status, 401);
    waits(await me(from, basic(ADMIN.user, ADMIN.password)), 'any login from the spraying address');
    assert.equal((await me('127.0.0.35', basic(ADMIN.user, ADMIN.password))).status, 200);
  });
});

/** Runs `appserver-admin <args>` with `input` on its standard input; its exit code and output. */
function cli(args: string[], input = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('close', (code) => resolve({ code, out, err }));
    proc.stdin.end(input);
  });
}

test('round3-02: users unlock and users reset-password bring administrators back without a server', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-round3-02-'));
  let own = await startRuntimeServer(dataDir);
  const secret = join(tmpdir(), `round3-02-password-${process.pid}`);
  try {
    await createUser(own.admin, 'admin02', 'admin02-password', 'Administrators');
    const from = '127.0.0.36';
    for (const user of ['admin', 'admin02']) for (let i = 0; i < 6; i++) await me(from, basic(user, `lost-${i}`), own);
    waits(await me(from, basic('admin', ADMIN.password), own));
    waits(await me(from, basic('admin02', 'admin02-password'), own));
    await own.stop(false);

    const store = await storeFor(dataDir);
    const where = ['--data-dir', dataDir, ...(store ? ['--store', store] : [])];
    // A password is never an argument.
    const argv = await cli(['users', 'reset-password', 'admin02', ...where, '--password', 'Argv-password-02']);
    assert.notEqual(argv.code, 0, 'a password given as an argument is refused');
    assert.match(argv.err, /unknown option '--password'/);
    const unknown = await cli(['users', 'reset-password', 'nobody02', ...where], 'Some-password-02\n');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /no user 'nobody02'/);
    writeFileSync(secret, 'short\n', { mode: 0o600 });
    const short = await cli(['users', 'reset-password', 'admin02', ...where, '--password-file', secret]);
    assert.equal(short.code, 1);
    assert.match(short.err, /at least 8 characters/);

    const reset = await cli(['users', 'reset-password', 'admin02', ...where], 'New-admin02-password\n');
    assert.equal(reset.code, 0, reset.err);
    assert.match(reset.out, /Set the password of 'admin02'/);
    assert.ok(!reset.out.includes('New-admin02-password') && !reset.err.includes('New-admin02-password'), 'the password is printed');
    const unlock = await cli(['users', 'unlock', 'admin', ...where]);
    assert.equal(unlock.code, 0, unlock.err);
    assert.match(unlock.out, /Forgot the failed logins of 'admin'/);

    // The same clock as before: without the commands both would still wait.
    own = await startRuntimeServer(dataDir);
    assert.equal((await me(from, basic('admin', ADMIN.password), own)).status, 200, 'admin is unlocked');
    assert.equal((await me(from, basic('admin02', 'admin02-password'), own)).status, 401, 'the old password is gone');
    const back = await me('127.0.0.37', basic('admin02', 'New-admin02-password'), own);
    assert.equal(back.status, 200, back.text);

    // Everyone at once, from a file this time; both changes are in the audit trail.
    for (let i = 0; i < 6; i++) await me(from, basic('admin', `again-${i}`), own);
    await own.stop(false);
    writeFileSync(secret, 'From-a-file-02\n', { mode: 0o600 });
    assert.equal((await cli(['users', 'reset-password', 'admin02', ...where, '--password-file', secret])).code, 0);
    const all = await cli(['users', 'unlock', ...where]);
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, /every login is tried again at once/);
    own = await startRuntimeServer(dataDir);
    assert.equal((await me(from, basic('admin', ADMIN.password), own)).status, 200);
    assert.equal((await me(from, basic('admin02', 'From-a-file-02'), own)).status, 200);
    const audit = await own.admin.get('domainRuntime/auditRecords?links=none');
    assert.equal(audit.status, 200, audit.text);
    const offline = audit.json.items.filter((r: { address: string }) => r.address.startsWith('offline'));
    assert.ok(offline.some((r: { action: string; bean: string }) => r.action === 'resetUserPassword' && r.bean === 'users/admin02'), JSON.stringify(offline));
    assert.ok(offline.some((r: { action: string; bean: string }) => r.action === 'unlock' && r.bean === 'users'), JSON.stringify(offline));
    assert.ok(!JSON.stringify(audit.json).includes('From-a-file-02'), 'the audit holds the password');
  } finally {
    await own.stop(true).catch(() => undefined);
    rmSync(secret, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});
