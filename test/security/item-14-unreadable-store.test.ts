// Item 14: a domain is created only where there is none. A domain.db that exists but is no store
// (empty, not SQLite, damaged, another program's database) stops the server with a message naming
// the file and what is wrong, a non-zero exit, and the file as it was. A generated administrator
// password goes to the terminal when there is one, else to a file of mode 0600 whose path is
// printed: never to the log stream.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { startServer } from '../../src/cli/server.js';
import { BIN, cliEnv, killRunning, runCli } from '../support/cli.js';
import { basic, call, startTestServer } from '../support/server.js';
import { storeFor } from '../support/store.js';

const dirs: string[] = [];

after(async () => {
  await killRunning();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'appserver-item14-'));
  dirs.push(d);
  return d;
}

/** Name, size, modification time and digest of every entry of a directory. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = statSync(path);
    out[name] = `${st.size} ${st.mtimeMs} ${st.isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'dir'}`;
  }
  return out;
}

/** Starts a server on the SQLite store of `dataDir`, which must refuse; returns the error. */
async function refusal(dataDir: string): Promise<Error> {
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1' });
  } catch (err) {
    return err as Error;
  }
  await server.close();
  return assert.fail(`a server started on ${dataDir} (${JSON.stringify(snapshot(dataDir))})`);
}

/** The command line must refuse too: a non-zero exit, the reason on standard error, nothing listening. */
async function cliRefuses(args: string[], reason: string): Promise<void> {
  const run = runCli(args);
  const code = await run.exited;
  assert.notEqual(code, 0, `appserver-admin ${args.join(' ')} succeeded: ${run.stdout()}`);
  assert.ok(run.stderr().includes(reason), `standard error does not say '${reason}': ${run.stderr()}`);
  assert.ok(!run.stdout().includes('listening'), run.stdout());
}

test('item 14: a zero-byte domain.db is refused, named, and left as it is', async () => {
  const dir = newDir();
  const file = join(dir, 'domain.db');
  writeFileSync(file, '');
  const before = snapshot(dir);
  const err = await refusal(dir);
  assert.ok(err.message.includes(`${file} is empty (0 bytes)`), err.message);
  assert.match(err.message, /restore the file from a backup/);
  assert.deepEqual(snapshot(dir), before, 'the data directory changed');
  await cliRefuses(['serve', '--port', '0', '--data-dir', dir], `${file} is empty (0 bytes)`);
  await cliRefuses(['init', '--data-dir', dir, '--servers', '2', '--clusters', '1', '--partitions', '1', '--applications', '1'], `${file} is empty (0 bytes)`);
  assert.deepEqual(snapshot(dir), before, 'the data directory changed');
});

test('item 14: a domain.db that is not a store is refused, named, and left as it is', async () => {
  const other = (path: string) => {
    const db = new Database(path);
    db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT); INSERT INTO orders (item) VALUES ('widget')");
    db.close();
  };
  const cases: { what: string; make: (path: string) => void; says: string }[] = [
    { what: 'text', make: (p) => writeFileSync(p, 'this is not a database\n'.repeat(40)), says: 'is not a SQLite database (920 bytes that do not start with the SQLite header)' },
    { what: 'a short file', make: (p) => writeFileSync(p, 'SQLite'), says: 'is not a SQLite database (6 bytes' },
    { what: 'the SQLite header on damaged pages', make: (p) => writeFileSync(p, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4080, 0xab)])), says: 'cannot be read' },
    { what: "another program's SQLite database", make: other, says: 'is a SQLite database of something else (tables orders), not a domain store' },
  ];
  for (const c of cases) {
    const dir = newDir();
    const file = join(dir, 'domain.db');
    c.make(file);
    const before = snapshot(dir);
    const err = await refusal(dir);
    assert.ok(err.message.startsWith(file) && err.message.includes(c.says), `${c.what}: ${err.message}`);
    assert.match(err.message, /left the file as it is/, c.what);
    assert.deepEqual(snapshot(dir), before, `${c.what}: the data directory changed`);
    if (c.what === 'text') await cliRefuses(['serve', '--port', '0', '--data-dir', dir], `${file} is not a SQLite database`);
    assert.deepEqual(snapshot(dir), before, `${c.what}: the data directory changed`);
  }
});

test('item 14: a generated administrator password never reaches the log stream', async (t) => {
  // No terminal: the password goes to a file of mode 0600 in the data directory; its path is printed.
  const dir = newDir();
  const store = await storeFor(dir);
  const run = runCli(['serve', '--port', '0', '--data-dir', dir, '--log-level', 'debug', ...(store ? ['--store', store] : [])]);
  const latest = await run.listening;
  const file = join(dir, 'initial-admin-password');
  assert.ok(run.stdout().includes(`Administrator: admin; its generated password is in the file ${file} (mode 0600)`), run.stdout());
  assert.equal((statSync(file).mode & 0o777).toString(8), '600');
  const password = readFileSync(file, 'utf8').trim();
  assert.ok(password.length >= 12, 'a password of some length');
  const r = await call(`${latest}/currentUser`, { auth: basic('admin', password) });
  assert.equal(r.status, 200, r.text);
  await run.stop();
  assert.ok(!run.stdout().includes(password), 'the password is on standard output');
  assert.ok(!run.stderr().includes(password), 'the password is on standard error');

  // A terminal: the password is shown there once, and written nowhere.
  const script = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  await t.test('on a terminal (through script(1))', { skip: script ? false : 'script(1) is not installed' }, async () => {
    const dir2 = newDir();
    const store2 = await storeFor(dir2);
    const args = [process.execPath, BIN, 'init', '--data-dir', dir2, '--servers', '2', '--clusters', '1', '--partitions', '1', '--applications', '1', ...(store2 ? ['--store', store2] : [])];
    const command = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((done) => child.once('close', (c) => done(c)));
    assert.equal(code, 0, out);
    const m = /Administrator: admin \/ (\S+) \(shown only this once\)/.exec(out);
    assert.ok(m, `no password on the terminal: ${out}`);
    assert.ok(!existsSync(join(dir2, 'initial-admin-password')), 'a password file was written though a terminal showed it');
    const srv = await startTestServer(dir2);
    try {
      assert.equal((await call(`${srv.latest}/currentUser`, { auth: basic('admin', m[1]!) })).status, 200);
    } finally {
      await srv.stop();
    }
  });
});
