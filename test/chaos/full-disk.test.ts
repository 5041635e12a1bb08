// A full file system under a running server on SQLite: writes answer 507 with a JSON message and
// change nothing, reads go on, freeing space is enough to go on (no restart), and the domain opens
// intact afterwards. A data directory on a read-only file system stops the start with a message
// naming it.
//
// The small file system is a tmpfs the test mounts (it runs as root in CI and in this sandbox);
// where mounting is not allowed the test says so and skips.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { killRunning, runCli } from '../support/cli.js';
import { adminAuth } from '../support/server.js';
import { makeZip, webXml } from '../support/zip.js';
import { type Answer, SECOND_PASS, type ServedChild, editAndActivate, serveChild } from './support/serve-child.js';
import { answerOf } from '../support/answer.js';

const root = mkdtempSync(join(tmpdir(), 'appserver-chaos-disk-'));
const mnt = join(root, 'fs');

/** Mounts a 24 MiB tmpfs at `mnt`; the reason it cannot, otherwise. */
function mountSmall(): string | undefined {
  mkdirSync(mnt, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'tmpfs', mnt], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `cannot mount a small file system here (mount -t tmpfs needs root or CAP_SYS_ADMIN): ${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}`;
  }
}

const skip = SECOND_PASS ?? mountSmall();

/** Fills the file system: big writes, then ever smaller ones, until not a byte more fits. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

function assertFull(a: Answer, what: string): void {
  assert.equal(a.status, 507, `${what}: status ${a.status}, ${a.text.slice(0, 400)}`);
  assert.match(a.headers.get('content-type') ?? '', /json/, what);
  assert.match(String(a.json?.detail), /full/, `${what}: ${a.text.slice(0, 400)}`);
  assert.match(String(a.json?.detail), /nothing was changed/, what);
}

/** Uploads a small web application as a new deployment. */
async function upload(s: ServedChild, app: string): Promise<Answer> {
  const form = new FormData();
  form.append('model', JSON.stringify({ name: app, targets: [{ identity: ['servers', 'AdminServer'] }] }));
  const war = makeZip({ 'WEB-INF/web.xml': webXml([{ name: 'hello', className: 'disk.Hello', patterns: ['/hello'] }]) });
  form.append('sourcePath', new Blob([new Uint8Array(war)]), `${app}.war`);
  const res = await fetch(`${s.latest}/edit/appDeployments`, { method: 'POST', body: form, headers: { authorization: adminAuth, 'x-requested-by': 'chaos-tests', accept: 'application/json' } });
  return answerOf(res);
}

/** Files below the data directory's archive folder (the staging folder's included). */
function archives(data: string): string[] {
  const folder = join(data, 'applications');
  return existsSync(folder) ? (readdirSync(folder, { recursive: true }) as string[]).filter((f) => statSync(join(folder, f)).isFile()) : [];
}

async function activatedServers(s: ServedChild): Promise<Set<string>> {
  const r = await s.get('domainConfig/servers?fields=name&links=none');
  assert.equal(r.status, 200, r.text);
  return new Set((r.json.items as { name: string }[]).map((i) => i.name));
}

describe('a full file system under a server on SQLite', { skip }, () => {
  const data = join(mnt, 'data');
  const filler = join(mnt, 'filler');
  before(() => undefined);
  after(async () => {
    await killRunning();
    try {
      execFileSync('umount', [mnt], { stdio: 'pipe' });
    } catch {
      // Not mounted (the test skipped).
    }
    rmSync(root, { recursive: true, force: true });
  });

  test('writes answer 507 and change nothing; freeing space is enough; the domain opens intact', async () => {
    const s = await serveChild(data, [], { APPSERVER_TEST_PG: undefined });
    assert.deepEqual((await editAndActivate(s, 'before-full')).map((a) => a.status), [200, 201, 200]);
    // A pending change made before the disk fills stays pending, as the store holds it.
    assert.equal((await s.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await s.post('edit/servers', { name: 'pending-before-full' })).status, 201);

    const LC = 'domainRuntime/serverLifeCycleRuntimes/ms1';
    const tasksBefore = (await s.get(`${LC}/tasks?links=none&fields=name`)).json.items.map((i: { name: string }) => i.name);

    fill(filler);
    // A lifecycle action: refused, and nothing moved (the server stays down, no task is left).
    const start = await s.post(`${LC}/start`, {}, { prefer: 'respond-async' });
    assertFull(start, 'a server start on a full disk');
    const refusedAt = Date.now();
    const lifecycle = async (server: ServedChild) => {
      const state = await server.get(`${LC}?links=none&fields=state`);
      const tasks = await server.get(`${LC}/tasks?links=none&fields=name`);
      return { state: state.json?.state, tasks: tasks.json?.items.map((i: { name: string }) => i.name) };
    };
    assert.deepEqual(await lifecycle(s), { state: 'SHUTDOWN', tasks: tasksBefore }, 'ms1 after the refused start');
    // An upload: refused, no deployment, and no file left of it (staged or kept).
    const archivesBefore = archives(data);
    assertFull(await upload(s, 'upload-during-full'), 'an upload on a full disk');
    assert.equal((await s.get('edit/appDeployments/upload-during-full')).status, 404);
    assert.deepEqual(archives(data), archivesBefore, 'files left by the refused upload');
    const create = await s.post('edit/servers', { name: 'during-full' });
    assertFull(create, 'a create on a full disk');
    const activate = await s.post('edit/changeManager/activate', {});
    assertFull(activate, 'an activation on a full disk');
    const cancel = await s.post('edit/changeManager/cancelEdit', {});
    assertFull(cancel, 'cancelling the edit on a full disk');
    // Reads go on, and show what the store holds: the lock and the one pending change.
    const cm = await s.get('edit/changeManager');
    assert.equal(cm.status, 200, cm.text);
    assert.equal(cm.json.locked, true, cm.text);
    assert.equal(cm.json.hasChanges, true, cm.text);
    const pending = await s.get('edit/servers?fields=name&links=none');
    const pendingNames = (pending.json.items as { name: string }[]).map((i) => i.name);
    assert.ok(pendingNames.includes('pending-before-full') && !pendingNames.includes('during-full'), pendingNames.join(', '));
    assert.ok(!(await activatedServers(s)).has('pending-before-full'));
    assert.ok(s.alive(), s.run.stderr());

    // The refused start's step (2 s) has passed without moving anything.
    await new Promise((d) => setTimeout(d, Math.max(0, 2500 - (Date.now() - refusedAt))));
    assert.deepEqual(await lifecycle(s), { state: 'SHUTDOWN', tasks: tasksBefore }, 'ms1 once the refused start would have ended');

    // Space comes back: the same server goes on.
    rmSync(filler);
    const activated = await s.post('edit/changeManager/activate', {});
    assert.equal(activated.status, 200, activated.text);
    assert.deepEqual((await editAndActivate(s, 'after-free')).map((a) => a.status), [200, 201, 200]);
    assert.equal(await s.run.stop(), 0, s.run.stderr());

    // A new start finds everything that was acknowledged, and nothing that was refused.
    const again = await serveChild(data, [], { APPSERVER_TEST_PG: undefined });
    const servers = await activatedServers(again);
    for (const name of ['before-full', 'pending-before-full', 'after-free']) assert.ok(servers.has(name), `${name} is missing`);
    assert.ok(!servers.has('during-full'));
    // The store agrees: the refused start left no task and no state.
    assert.deepEqual(await lifecycle(again), { state: 'SHUTDOWN', tasks: tasksBefore }, 'ms1 after the restart');
    assert.equal(await again.run.stop(), 0);
  });

  test('a data directory on a read-only file system is a clear start-up error', async () => {
    execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'pipe' });
    try {
      const run = runCli(['serve', '--port', '0', '--data-dir', data, '--no-listeners'], { APPSERVER_TEST_PG: undefined });
      const code = await run.exited;
      assert.notEqual(code, 0);
      assert.match(run.stderr(), new RegExp(`data directory ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be written`), run.stderr());
      assert.match(run.stderr(), /read-only file system/);
      assert.doesNotMatch(run.stderr(), /\n\s+at /, 'no stack trace');
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mnt], { stdio: 'pipe' });
    }
  });
});
