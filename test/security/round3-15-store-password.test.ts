// Round 3, item 15: `--store postgres://user:password@...` put the store's password in the process
// list. The safe ways: `--store-password-file FILE`, a URL without password with PGPASSWORD, or the
// whole URL in APPSERVER_STORE. Each is shown to deliver the password to the database: a listener
// of the test asks for it in clear, as a PostgreSQL server may, and keeps what it receives. A
// password on the command line still works, with a warning naming the safe ways, and is wiped from
// the command line the system shows (`/proc/<pid>/cmdline`).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { dataDirs, runCli } from '../support/cli.js';
import { onPostgres, storeFor } from '../support/store.js';

const newDir = dataDirs('round3-15-');
const listeners: net.Server[] = [];
const sockets: net.Socket[] = [];

after(async () => {
  for (const s of sockets) s.destroy();
  for (const l of listeners) await new Promise((resolve) => l.close(resolve));
});

/**
 * A listener speaking the first steps of PostgreSQL's protocol: it asks for the password in clear,
 * keeps what it gets, then (unless `stall`) refuses. `stall`: it never answers at all.
 */
async function fakeStore(stall = false): Promise<{ port: number; received: () => string; connections: () => number }> {
  const got: Buffer[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    sockets.push(socket);
    connections++;
    socket.on('error', () => {});
    if (stall) return;
    let asked = false;
    socket.on('data', (chunk) => {
      got.push(chunk);
      if (asked) return void socket.destroy();
      asked = true;
      const auth = Buffer.alloc(9);
      auth.write('R', 0, 'latin1');
      auth.writeInt32BE(8, 1);
      auth.writeInt32BE(3, 5);
      socket.write(auth);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listeners.push(server);
  return { port: (server.address() as net.AddressInfo).port, received: () => Buffer.concat(got).toString('latin1'), connections: () => connections };
}

/** Runs `init` to its end; its exit code and what it printed on standard error. */
async function init(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | string; stderr: string }> {
  const run = runCli(['init', '--data-dir', join(newDir(), 'd'), ...args], { APPSERVER_STORE: undefined, PGPASSWORD: undefined, ...env });
  const code = await run.exited;
  return { code, stderr: run.stderr() };
}

const SAFE_WAYS = /--store-password-file.*PGPASSWORD.*APPSERVER_STORE/;

describe('round 3, item 15: the store password stays out of the process list', () => {
  test('--store-password-file: the first line of the file is the password the database receives; no warning', async () => {
    const db = await fakeStore();
    const file = join(newDir(), 'store-password');
    writeFileSync(file, 'File-Pw-4d1c9e\n', { mode: 0o600 });
    const r = await init(['--store', `postgres://app@127.0.0.1:${db.port}/domain`, '--store-password-file', file]);
    assert.notEqual(r.code, 0, 'the listener is no database: init must fail');
    assert.ok(db.received().includes('File-Pw-4d1c9e'), `the password did not arrive: ${JSON.stringify(db.received())}`);
    assert.doesNotMatch(r.stderr, /warning/);
    assert.ok(!r.stderr.includes('File-Pw-4d1c9e'), r.stderr);
  });

  test('a URL without password and PGPASSWORD: the database receives it', async () => {
    const db = await fakeStore();
    const r = await init(['--store', `postgres://app@127.0.0.1:${db.port}/domain`], { PGPASSWORD: 'Env-Pw-83aa01' });
    assert.notEqual(r.code, 0);
    assert.ok(db.received().includes('Env-Pw-83aa01'), `the password did not arrive: ${JSON.stringify(db.received())}`);
    assert.doesNotMatch(r.stderr, /warning/);
  });

  test('the whole URL in APPSERVER_STORE, no --store: the database receives its password; no warning', async () => {
    const db = await fakeStore();
    const r = await init([], { APPSERVER_STORE: `postgres://app:Var-Pw-17be55@127.0.0.1:${db.port}/domain` });
    assert.notEqual(r.code, 0);
    assert.ok(db.received().includes('Var-Pw-17be55'), `the password did not arrive: ${JSON.stringify(db.received())}`);
    assert.doesNotMatch(r.stderr, /warning/);
    assert.ok(!r.stderr.includes('Var-Pw-17be55'), r.stderr);
  });

  test('a password in --store: a warning naming the safe ways, and the command line the system shows holds no password', async () => {
    const db = await fakeStore(true);
    const run = runCli(['init', '--data-dir', join(newDir(), 'd'), '--store', `postgres://app:Argv-Pw-6c2f40@127.0.0.1:${db.port}/domain`], { APPSERVER_STORE: undefined });
    try {
      // The process waits on the silent listener: look at its command line meanwhile.
      const deadline = Date.now() + 15_000;
      while (db.connections() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(db.connections() > 0, `no connection to the store: ${run.stderr()}`);
      assert.match(run.stderr(), SAFE_WAYS);
      assert.match(run.stderr(), /warning: the --store URL holds a password/);
      if (process.platform === 'linux') {
        const shown = readFileSync(`/proc/${run.proc.pid}/cmdline`, 'latin1');
        assert.ok(!shown.includes('Argv-Pw-6c2f40'), `the password is in the process list: ${JSON.stringify(shown)}`);
        assert.match(shown, /postgres:\/\/app:\*\*\*@127\.0\.0\.1/);
      }
    } finally {
      await run.stop();
    }
  });

  test('bad uses are refused with a sentence naming what is wrong', async () => {
    const file = join(newDir(), 'pw');
    writeFileSync(file, 'Twice-Pw\n', { mode: 0o600 });
    const twice = await init(['--store', 'postgres://app:Other@127.0.0.1:1/domain', '--store-password-file', file]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /password is given twice/);
    for (const args of [['--store-password-file', file], ['--store', 'sqlite', '--store-password-file', file]]) {
      const noStore = await init(args);
      assert.equal(noStore.code, 1, args.join(' '));
      assert.match(noStore.stderr, /--store-password-file needs a PostgreSQL store/);
    }
    const missing = await init(['--store', 'postgres://app@127.0.0.1:1/domain', '--store-password-file', join(newDir(), 'absent')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--store-password-file .*absent does not exist/);
    const empty = join(newDir(), 'empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    const blank = await init(['--store', 'postgres://app@127.0.0.1:1/domain', '--store-password-file', empty]);
    assert.equal(blank.code, 1);
    assert.match(blank.stderr, /is empty/);
  });

  test('on the test PostgreSQL, a domain is created through APPSERVER_STORE alone', { skip: !onPostgres() && 'runs on PostgreSQL' }, async () => {
    const dir = newDir();
    const url = await storeFor(join(dir, 'made'));
    const run = runCli(['init', '--data-dir', join(dir, 'made')], { APPSERVER_STORE: url });
    assert.equal(await run.exited, 0, run.stderr());
    assert.match(run.stdout(), /Created/);
  });
});
