// Crash safety with a real process: many activations in flight, the server killed with SIGKILL,
// then restarted on the same data directory. Every acknowledged activation must be there, and
// every activation must be there whole or not at all. Three kill/restart cycles.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { storeFor } from '../support/store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESC, type Client, changeManager, client } from '../support/edit.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(ROOT, 'bin', 'appserver-admin.js');
const CYCLES = 3;
const CREATES = 40;
const UPDATES = 10;
const KILL_AFTER = 10;

interface Child {
  proc: ChildProcess;
  latest: string;
  exited: Promise<void>;
}

const children = new Set<ChildProcess>();
const dataDir = mkdtempSync(join(tmpdir(), 'appserver-crash-'));

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `appserver-admin serve --port 0` and resolves once it prints the URL it listens on. */
async function startChild(): Promise<Child> {
  const store = await storeFor(dataDir);
  const proc = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--no-listeners', '--data-dir', dataDir, '--log-level', 'silent', ...(store ? ['--store', store] : [])], {
    cwd: ROOT,
    env: { ...process.env, APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  return new Promise((resolveStart, reject) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /appserver-admin listening on (http:\/\/\S+)/.exec(out);
      if (m) resolveStart({ proc, latest: m[1]!, exited });
    });
    proc.once('exit', (code, signal) => reject(new Error(`the server exited before listening (code ${code}, signal ${signal}): ${out}${err}`)));
  });
}

interface Expected {
  listenPort: number;
  notes: string;
}

/** Servers whose create was acknowledged (201), over all cycles. */
const acknowledged = new Map<string, Expected>();
/** Every server a create was sent for, with what it was sent with. */
const attempted = new Map<string, Expected>();
/** Every value sent for ms1.notes, and whether one was acknowledged. */
const ms1Notes = new Set<string>();
let ms1Acknowledged = false;

async function verify(admin: Client, cycle: number): Promise<void> {
  const where = `after restart ${cycle}`;
  const list = await admin.get('serverConfig/servers?links=none');
  assert.equal(list.status, 200, `${where}: ${list.text}`);
  const byName = new Map<string, Record<string, unknown>>(list.json.items.map((s: Record<string, unknown>) => [s.name as string, s]));
  // Every acknowledged create is there, exactly.
  for (const [name, exp] of acknowledged) {
    const s = byName.get(name);
    assert.ok(s, `${where}: ${name} was acknowledged (201) but is missing`);
    assert.equal(s.listenPort, exp.listenPort, `${where}: ${name}.listenPort`);
    assert.equal(s.notes, exp.notes, `${where}: ${name}.notes`);
  }
  // Every server that exists is whole: both values as sent, never half a create.
  for (const [name, s] of byName) {
    if (!name.startsWith('crash')) continue;
    const exp = attempted.get(name);
    assert.ok(exp, `${where}: unknown server ${name}`);
    assert.deepEqual({ listenPort: s.listenPort, notes: s.notes }, exp, `${where}: ${name} is not whole`);
    // The edit tree and the runtime agree with the activated configuration.
    const e = await admin.get(`edit/servers/${name}?links=none&fields=listenPort,notes`);
    assert.deepEqual(e.json, exp, `${where}: edit/servers/${name}`);
    const lc = await admin.get(`domainRuntime/serverLifeCycleRuntimes/${name}?links=none&fields=name`);
    assert.equal(lc.status, 200, `${where}: no lifecycle runtime for ${name}`);
  }
  const lcs = (await admin.get('domainRuntime/serverLifeCycleRuntimes?links=none&fields=name')).json.items.map((i: { name: string }) => i.name);
  assert.deepEqual(lcs, [...byName.keys()], `${where}: lifecycle runtimes differ from the servers`);
  // ms1: one of the values sent, and not the original once an update was acknowledged.
  const notes = byName.get('ms1')?.notes;
  if (ms1Acknowledged) assert.ok(typeof notes === 'string' && ms1Notes.has(notes), `${where}: ms1.notes is ${JSON.stringify(notes)}`);
  else assert.ok(notes === null || ms1Notes.has(notes as string), `${where}: ms1.notes is ${JSON.stringify(notes)}`);
  // The lock is released, or held consistently.
  const cm = await changeManager(admin);
  if (cm.locked) {
    assert.equal(typeof cm.lockOwner, 'string', `${where}: ${JSON.stringify(cm)}`);
    assert.equal(typeof cm.hasChanges, 'boolean', `${where}: ${JSON.stringify(cm)}`);
  } else {
    assert.deepEqual(cm, { locked: false, mergeNeeded: false, editSession: 'default' }, where);
  }
}

/** The server works normally: an implicit write applies and shows, the lock comes back free. */
async function assertWorks(admin: Client, cycle: number): Promise<void> {
  const name = `alive${cycle}`;
  const r = await admin.post('edit/servers', { name, listenPort: 9000 + cycle, notes: `alive ${cycle}` });
  assert.equal(r.status, 201, r.text);
  assert.equal((await admin.get(`serverConfig/servers/${name}?links=none`)).json.listenPort, 9000 + cycle);
  assert.equal((await admin.del(`edit/servers/${name}`)).status, 200);
  assert.equal((await admin.get(`serverConfig/servers/${name}`)).status, 404);
  assert.equal((await changeManager(admin)).locked, false);
}

test(`${CYCLES} cycles of activations in flight, SIGKILL, restart`, async (t) => {
  let child = await startChild();
  const admin = client(() => child.latest);
  // Warm up: the first request pays for hashing the credential.
  assert.equal((await admin.get('currentUser')).status, 200);

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    // A named session left open with a pending change when the process dies.
    const named = admin.inSession(`pending${cycle}`);
    assert.equal((await admin.post(ESC, { name: `pending${cycle}`, description: 'open at the crash' })).status, 201);
    assert.equal((await named.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await named.post('edit/servers', { name: `pending${cycle}`, listenPort: 9100 + cycle })).status, 201);

    let answered = 0;
    let failed = 0;
    let killed = false;
    const ackedBefore = acknowledged.size;
    const kill = () => {
      if (!killed) {
        killed = true;
        child.proc.kill('SIGKILL');
      }
    };
    const requests: Promise<void>[] = [];
    for (let i = 0; i < CREATES; i++) {
      const n = cycle * CREATES + i;
      const name = `crash${n}`;
      const exp = { listenPort: 20000 + n, notes: `notes of ${name} in cycle ${cycle}` };
      attempted.set(name, exp);
      requests.push(
        admin.post('edit/servers', { name, ...exp }).then(
          (r) => {
            if (r.status === 201) acknowledged.set(name, exp);
            else assert.ok(killed, `create ${name} refused before the kill: ${r.status} ${r.text}`);
            if (++answered >= KILL_AFTER) kill();
          },
          () => void failed++,
        ),
      );
      if (i % (CREATES / UPDATES) === 0) {
        const notes = `ms1 notes ${cycle}-${i}`;
        ms1Notes.add(notes);
        requests.push(
          admin.post('edit/servers/ms1', { notes }).then(
            (r) => {
              if (r.status === 200) ms1Acknowledged = true;
              if (++answered >= KILL_AFTER) kill();
            },
            () => void failed++,
          ),
        );
      }
    }
    await Promise.all(requests);
    kill();
    t.diagnostic(`cycle ${cycle}: ${answered} answered (${acknowledged.size - ackedBefore} creates acknowledged), ${failed} cut off by the kill`);
    await child.exited;
    assert.equal(child.proc.signalCode, 'SIGKILL', 'the server was not killed');

    child = await startChild();
    await verify(admin, cycle + 1);
    // The open session is still open, with its change, and can be activated now.
    const cm = await changeManager(named);
    assert.deepEqual(cm, { locked: true, lockOwner: 'admin', hasChanges: true, mergeNeeded: false, editSession: `pending${cycle}` });
    assert.equal((await named.get(`edit/servers/pending${cycle}?links=none`)).json.listenPort, 9100 + cycle);
    assert.equal((await admin.get(`serverConfig/servers/pending${cycle}`)).status, 404);
    const act = await named.post('edit/changeManager/activate', {});
    assert.equal(act.status, 200, act.text);
    assert.equal((await admin.get(`serverConfig/servers/pending${cycle}?links=none`)).json.listenPort, 9100 + cycle);
    await assertWorks(admin, cycle + 1);
  }
  assert.ok(acknowledged.size > 0, 'no create was ever acknowledged');
  child.proc.kill('SIGKILL');
  await child.exited;
});
