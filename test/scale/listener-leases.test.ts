// Two processes on one PostgreSQL store, both with listeners on the same port offset: exactly one
// owns each running managed server's listener (a lease row in the store); the other leaves the port
// alone. When the owner is killed (SIGKILL, so it gives nothing back), the survivor takes the
// listener over once the owner's heartbeat has lapsed, and the server answers on its port again.
//
// Needs PostgreSQL: set APPSERVER_TEST_PG to a PostgreSQL URL (a database of its own is created).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, ROOT } from '../support/cli.js';
import { freePortOffset, refused } from '../support/ports.js';
import { ASYNC, type Client, type RuntimeServer, adminAuth, client, pollUntil, request, startRuntimeServer } from '../support/runtime-server.js';
import { onPostgres, storeFor, storeQuery } from '../support/store.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const skip = onPostgres() ? false : 'needs APPSERVER_TEST_PG';

let offset: number;
let url: string;
const dirs: string[] = [];
/** The process started first (the domain's creator), real clock; killed by the last test. */
let child: { proc: ChildProcess; admin: Client; exited: Promise<void> } | undefined;
/** The second process, in this one, manual clock. */
let local: RuntimeServer | undefined;

const dir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

const leases = async () => storeQuery<{ server: string; owner: string }>(dirs[0]!, 'SELECT server, owner FROM listener_leases ORDER BY server', [], url);
const ownPort = (configured: number) => `http://localhost:${configured + offset}/management/appserver/latest`;

before(async () => {
  if (skip) return;
  offset = await freePortOffset([7003, 7005]);
  const key = randomBytes(32).toString('base64');
  url = (await storeFor(dir('appserver-leases-a-')))!;
  const proc = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dirs[0]!, '--store', url, '--port-offset', String(offset), '--log-level', 'silent'], {
    cwd: ROOT,
    env: { ...process.env, APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1', APPSERVER_SECRET_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  const latest = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /appserver-admin listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`the first server exited (code ${code}): ${out}`)));
  });
  child = { proc, admin: client(() => latest), exited };
  local = await startRuntimeServer(dir('appserver-leases-b-'), undefined, { store: url, secretKey: key, portOffset: offset, leaseCheckMs: 200 });
});

after(async () => {
  if (child && child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill('SIGKILL');
    await child.exited;
  }
  await local?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('a server started through one process listens there; the other leaves its port alone', { skip }, async () => {
  const r = await child!.admin.post(`${LC}/ms1/start`, {}, ASYNC);
  assert.equal(r.status, 202, r.text);
  const href = r.headers.get('location')!;
  // The first process runs on the real clock: the start takes two seconds.
  const task = await pollUntil(() => child!.admin.get(href), (t) => t.json?.completed === true, 'ms1 start', 20_000);
  assert.equal(task.json.taskError, null, task.text);
  const rt = await request(`${ownPort(7003)}/serverRuntime?links=none&fields=name,state`);
  assert.deepEqual(rt.json, { name: 'ms1', state: 'RUNNING' });
  const held = await leases();
  assert.equal(held.length, 1, JSON.stringify(held));
  assert.equal(held[0]!.server, 'ms1');
  assert.notEqual(held[0]!.owner, local!.server.domain.instance, 'the first process owns it');
  // The second process saw ms1 running and did not try to listen (it would have failed it).
  await pollUntil(() => local!.admin.get(`${LC}/ms1?links=none&fields=state`), (s) => s.json?.state === 'RUNNING', 'ms1 seen running by the second process');
  assert.deepEqual(local!.server.listening(), []);
});

test('a server started through the other process is that process\'s to listen for', { skip }, async () => {
  const r = await local!.admin.post(`${LC}/ms2/start`, {}, ASYNC);
  assert.equal(r.status, 202, r.text);
  local!.advance(2000);
  const task = await pollUntil(() => local!.admin.get(r.headers.get('location')!), (t) => t.json?.completed === true, 'ms2 start');
  assert.equal(task.json.taskError, null, task.text);
  assert.deepEqual(local!.server.listening(), ['ms2']);
  const held = await leases();
  assert.deepEqual(held.map((l) => l.server), ['ms1', 'ms2']);
  assert.equal(held[1]!.owner, local!.server.domain.instance);
  assert.notEqual(held[0]!.owner, held[1]!.owner);
  const rt = await request(`${ownPort(7005)}/serverRuntime?links=none&fields=name`, { auth: adminAuth });
  assert.equal(rt.json.name, 'ms2');
  // Both still RUNNING as both processes see them: neither process failed a server over a port.
  for (const c of [child!.admin, local!.admin]) {
    const states = await c.get(`${LC}?links=none&fields=name,state`);
    const of = (n: string) => states.json.items.find((i: { name: string }) => i.name === n)?.state;
    assert.deepEqual([of('ms1'), of('ms2')], ['RUNNING', 'RUNNING']);
  }
});

test('when the owner is killed, the other process takes its listener over', { skip, timeout: 90_000 }, async () => {
  child!.proc.kill('SIGKILL');
  await child!.exited;
  await pollUntil(() => refused(7003 + offset), (r) => r, 'the killed process\'s port closed');
  // The killed process's heartbeat lapses after 15 s; the survivor looks every 200 ms.
  await pollUntil(async () => local!.server.listening(), (l) => l.includes('ms1'), 'ms1 taken over', 45_000);
  const rt = await request(`${ownPort(7003)}/serverRuntime?links=none&fields=name,state`);
  assert.deepEqual(rt.json, { name: 'ms1', state: 'RUNNING' });
  const held = await leases();
  assert.deepEqual(held.map((l) => [l.server, l.owner === local!.server.domain.instance]), [['ms1', true], ['ms2', true]]);
});
