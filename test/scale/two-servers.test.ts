// Two real server processes on ONE PostgreSQL database. Each request syncs with the store before it
// is answered, so whatever one server committed is seen at once through the other: edit locks,
// activations, named edit sessions, users, lifecycle operations and their tasks, Lifecycle Manager
// records. One server is killed (SIGKILL) with activations in flight: the survivor, and a process
// restarted on the same database, see every acknowledged activation whole, and none half there.
//
// Needs PostgreSQL: set APPSERVER_TEST_PG to a PostgreSQL URL (a database of its own is created).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ESC, type Client, type Reply, assertProblem, changeManager, client, createUser, errorItems } from '../support/edit.js';
import { adminAuth, basic } from '../support/server.js';
import { storeFor } from '../support/store.js';

const PG = process.env.APPSERVER_TEST_PG;
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(ROOT, 'bin', 'appserver-admin.js');
const LC = 'domainRuntime/serverLifeCycleRuntimes';
const ASYNC = { prefer: 'respond-async' };
const ADMIN2 = { user: 'admin2', password: 'welcome2' };
const admin2Auth = basic(ADMIN2.user, ADMIN2.password);

interface Child {
  proc: ChildProcess;
  /** http://127.0.0.1:port */
  origin: string;
  /** origin + /management/appserver/latest */
  latest: string;
  exited: Promise<void>;
  /** What the process printed on stderr (for failure messages). */
  stderr: () => string;
}

const children = new Set<ChildProcess>();
/** One key directory: its database is the one both servers share. */
const sharedKey = mkdtempSync(join(tmpdir(), 'appserver-two-'));
const dirs: string[] = [sharedKey];
let storeUrl: string | undefined;

/** Starts `appserver-admin serve --port 0` on the shared database; resolves once it prints its URL. */
async function startChild(dataDir: string): Promise<Child> {
  assert.ok(storeUrl, 'no shared store URL');
  const proc = spawn(
    process.execPath,
    [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--store', storeUrl, '--log-level', 'silent'],
    {
      cwd: ROOT,
      env: { ...process.env, APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(proc);
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolveStart, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /appserver-admin listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        const latest = m[1]!;
        resolveStart({ proc, origin: new URL(latest).origin, latest, exited, stderr: () => err });
      }
    });
    proc.once('exit', (code, signal) => reject(new Error(`the server exited before listening (code ${code}, signal ${signal}): ${out}${err}`)));
  });
}

function newDataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'appserver-two-data-'));
  dirs.push(d);
  return d;
}

/** Polls `read` until `until` holds: for the real clock of a lifecycle operation only. */
async function pollUntil<T>(read: () => Promise<T>, until: (v: T) => boolean, what: string, attempts = 300, pauseMs = 50): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await read();
    if (until(last)) return last;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  assert.fail(`${what}: still not there after ${attempts} polls; last: ${JSON.stringify(last)}`);
}

const itemNames = (r: Reply): string[] => (r.json?.items ?? []).map((i: { name: string }) => i.name);

describe('two servers sharing one PostgreSQL database', { skip: PG ? false : 'no PostgreSQL: set APPSERVER_TEST_PG to a PostgreSQL URL to run the two-server tests' }, () => {
  let first: Child;
  let second: Child;
  /** Clients bound to the first and second server (read on every request: the first is replaced in test 4). */
  const a = client(() => first.latest);
  const b = client(() => second.latest);
  const lcmOf = (c: () => Child): Client => client(() => `${c().origin}/management/lifecycle/latest`);
  const aLcm = lcmOf(() => first);
  const bLcm = lcmOf(() => second);

  before(async () => {
    storeUrl = await storeFor(sharedKey);
    first = await startChild(newDataDir());
    second = await startChild(newDataDir());
    // Warm up both (the first request pays for hashing the credential).
    assert.equal((await a.get('currentUser')).status, 200);
    assert.equal((await b.get('currentUser')).status, 200);
  });

  after(async () => {
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await new Promise<void>((done) => c.once('exit', () => done()));
      }
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    if (PG && storeUrl) {
      // The database of this run: dropped, so runs do not pile databases up.
      const name = new URL(storeUrl).pathname.slice(1);
      const admin = new pg.Client({ connectionString: PG });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    }
  });

  test('1. concurrent startEdit through both servers by two administrators: exactly one wins each round', async (t) => {
    // admin2 is created through the first server and logs in through the second at once.
    await createUser(a, ADMIN2.user, ADMIN2.password, 'Administrators');
    const who = await b.as(admin2Auth).get('currentUser?links=none');
    assert.equal(who.status, 200, `admin2 cannot log in through the second server: ${who.text}`);
    assert.equal(who.json.user, ADMIN2.user);

    const wins = new Map<string, number>();
    for (let round = 0; round < 10; round++) {
      // Alternate who goes through which server.
      const contenders =
        round % 2 === 0
          ? [
              { user: 'admin', via: a.as(adminAuth), server: 'first' },
              { user: ADMIN2.user, via: b.as(admin2Auth), server: 'second' },
            ]
          : [
              { user: ADMIN2.user, via: a.as(admin2Auth), server: 'first' },
              { user: 'admin', via: b.as(adminAuth), server: 'second' },
            ];
      const replies = await Promise.all(contenders.map((c) => c.via.post('edit/changeManager/startEdit', {})));
      const where = `round ${round}: ${replies.map((r, i) => `${contenders[i]!.user}@${contenders[i]!.server} -> ${r.status} ${r.text.slice(0, 300)}`).join(' | ')}`;
      const winners = replies.map((r, i) => [r, i] as const).filter(([r]) => r.status === 200);
      assert.equal(winners.length, 1, `exactly one startEdit must win: ${where}`);
      const w = winners[0]![1];
      const winner = contenders[w]!;
      const loser = replies[1 - w]!;
      const problems = errorItems(loser, 400, where);
      assertProblem(problems, `locked by user '${winner.user}'`);
      wins.set(`${winner.user}@${winner.server}`, (wins.get(`${winner.user}@${winner.server}`) ?? 0) + 1);

      // Both servers name the same owner.
      for (const [name, c] of [['first', a], ['second', b]] as const) {
        const cm = await changeManager(c);
        assert.equal(cm.locked, true, `${where}: ${name} server: ${JSON.stringify(cm)}`);
        assert.equal(cm.lockOwner, winner.user, `${where}: ${name} server: ${JSON.stringify(cm)}`);
        assert.equal(cm.hasChanges, false, `${where}: ${name} server: ${JSON.stringify(cm)}`);
      }
      // The loser cannot cancel the winner's edit through either server.
      const loserClient = contenders[1 - w]!.via;
      errorItems(await loserClient.post('edit/changeManager/cancelEdit', {}), 400, `${where}: cancelEdit by the loser`);

      const cancel = await winner.via.post('edit/changeManager/cancelEdit', {});
      assert.equal(cancel.status, 200, `${where}: cancelEdit by the winner: ${cancel.text}`);
      for (const [name, c] of [['first', a], ['second', b]] as const) {
        assert.deepEqual(await changeManager(c), { locked: false, mergeNeeded: false, editSession: 'default' }, `${where}: ${name} server after cancelEdit`);
      }
    }
    t.diagnostic(`winners: ${JSON.stringify(Object.fromEntries(wins))}`);
  });

  test('2. an activation and a named edit session made through one server are seen through the other at once', async () => {
    const created = await a.post('edit/servers', { name: 'shared-1', listenPort: 7311, notes: 'made through the first' });
    assert.equal(created.status, 201, created.text);
    const cfg = await b.get('serverConfig/servers/shared-1?links=none');
    assert.equal(cfg.status, 200, `serverConfig/servers/shared-1 through the second: ${cfg.text}`);
    assert.equal(cfg.json.name, 'shared-1');
    assert.equal(cfg.json.listenPort, 7311);
    assert.equal(cfg.json.notes, 'made through the first');
    const edit = await b.get('edit/servers/shared-1?links=none&fields=name,listenPort');
    assert.equal(edit.status, 200, edit.text);
    assert.deepEqual(edit.json, { name: 'shared-1', listenPort: 7311 });
    // The second server's runtime follows the activation too.
    const lc = await b.get(`${LC}/shared-1?links=none&fields=name,state`);
    assert.equal(lc.status, 200, lc.text);
    assert.deepEqual(lc.json, { name: 'shared-1', state: 'SHUTDOWN' });
    // The activation record is there through both.
    assert.equal((await changeManager(b)).locked, false);

    // A named edit session created through the first is listed through the second.
    const s = await a.post(ESC, { name: 'shared-session', description: 'made through the first' });
    assert.equal(s.status, 201, s.text);
    const list = await b.get(`${ESC}?links=none`);
    assert.equal(list.status, 200, list.text);
    assert.ok(itemNames(list).includes('shared-session'), `not listed through the second: ${list.text}`);
    const one = await b.get(`${ESC}/shared-session?links=none`);
    assert.equal(one.status, 200, one.text);

    // Work in it goes on across servers: lock and change through the second, activate through the first.
    const bs = b.inSession('shared-session');
    const as = a.inSession('shared-session');
    assert.equal((await bs.post('edit/changeManager/startEdit', {})).status, 200);
    const staged = await bs.post('edit/servers/shared-1', { listenPort: 7312 });
    assert.equal(staged.status, 200, staged.text);
    assert.deepEqual(await changeManager(as), { locked: true, lockOwner: 'admin', hasChanges: true, mergeNeeded: false, editSession: 'shared-session' });
    assert.equal((await as.get('edit/servers/shared-1?links=none')).json.listenPort, 7312, 'the staged change is not seen through the first');
    assert.equal((await b.get('serverConfig/servers/shared-1?links=none')).json.listenPort, 7311, 'a staged change leaked into the configuration');
    const act = await as.post('edit/changeManager/activate', {});
    assert.equal(act.status, 200, act.text);
    assert.equal((await b.get('serverConfig/servers/shared-1?links=none')).json.listenPort, 7312);
    assert.deepEqual(await changeManager(bs), { locked: false, mergeNeeded: false, editSession: 'shared-session' });
    // Destroyed through the second: gone through the first.
    assert.equal((await b.del(`${ESC}/shared-session`)).status, 200);
    assert.equal((await a.get(`${ESC}/shared-session`)).status, 404);
  });

  test('3. a managed server started through one server completes, as seen through the other', async (t) => {
    const state = async (c: Client, server: string) => (await c.get(`${LC}/${server}?links=none&fields=state`)).json?.state;
    assert.equal(await state(b, 'ms1'), 'SHUTDOWN');
    const r = await a.post(`${LC}/ms1/start`, {}, ASYNC);
    assert.equal(r.status, 202, r.text);
    const location = r.headers.get('location');
    assert.ok(location, `no Location: ${r.text}`);
    assert.ok(location.startsWith(`${first.latest}/${LC}/ms1/tasks/`), location);
    const name = r.json.name as string;
    // The task's path below .../latest, to read through either server.
    const path = location.slice(first.latest.length + 1);

    // At once through the second: the task and the transitional state. (Read now, asserted at the
    // end, so that a failure here still leaves ms1 started for the tests after this one.)
    const early = await b.get(`${path}?links=none`);
    const earlyState = await state(b, 'ms1');

    // The start runs on the first server's real clock (2 s): poll through the second.
    const done = await pollUntil(
      async () => (await b.get(`${path}?links=none`)).json,
      (j) => j?.completed === true,
      'the start of ms1, polled through the second server',
    );
    assert.equal(done.taskStatus, 'TASK COMPLETED', JSON.stringify(done));
    assert.equal(done.progress, 'success');
    assert.equal(done.taskError, null);
    // The same task through both.
    const viaFirst = await a.get(`${path}?links=none`);
    assert.deepEqual(viaFirst.json, done, 'the task differs between the servers');

    // ms1 runs, as the second server tells.
    const running = await b.get('domainRuntime/serverRuntimes?links=none&fields=name,state');
    assert.equal(running.status, 200, running.text);
    const ms1 = running.json.items.find((i: { name: string }) => i.name === 'ms1');
    assert.ok(ms1, `ms1 is not among the running servers through the second: ${running.text}`);
    assert.equal(ms1.state, 'RUNNING');
    assert.equal(await state(b, 'ms1'), 'RUNNING');
    assert.equal(await state(a, 'ms1'), 'RUNNING');
    // The task is in ms1's tasks collection on both.
    for (const [which, c] of [['first', a], ['second', b]] as const) {
      const tasks = await c.get(`${LC}/ms1/tasks?links=none&fields=name,taskStatus`);
      assert.equal(tasks.status, 200, tasks.text);
      assert.ok(itemNames(tasks).includes(name), `${which} server: ${name} not in ${tasks.text}`);
    }
    t.diagnostic(`task ${name}`);

    // The Location the first server answered resolves through the second at once, and the second
    // shows the transitional state: the first committed both before it answered.
    assert.equal(early.status, 200, `the task the first server answered 202 for is not seen through the second at once: ${early.text}`);
    assert.equal(early.json.name, name);
    assert.equal(early.json.operation, 'start');
    assert.equal(early.json.serverName, 'ms1');
    assert.ok(['TASK IN PROGRESS', 'TASK COMPLETED'].includes(early.json.taskStatus), early.text);
    assert.ok(['STARTING', 'RUNNING'].includes(earlyState), `ms1 is ${earlyState} through the second right after the first answered 202 for its start`);
  });

  test('4. SIGKILL of one server with activations in flight: the survivor and a restarted process see every acknowledged one, whole', async (t) => {
    const CREATES = 30;
    const KILL_AFTER = 4;
    const attempted = new Map<string, { listenPort: number; notes: string }>();
    const acknowledged = new Set<string>();
    let answered = 0;
    let cut = 0;
    let killed = false;
    const victim = first;
    const kill = () => {
      if (!killed) {
        killed = true;
        victim.proc.kill('SIGKILL');
      }
    };
    const requests: Promise<void>[] = [];
    for (let i = 0; i < CREATES; i++) {
      const name = `k${i}`;
      const exp = { listenPort: 21000 + i, notes: `notes of ${name}` };
      attempted.set(name, exp);
      requests.push(
        a.post('edit/servers', { name, ...exp }).then(
          (r) => {
            if (r.status === 201) acknowledged.add(name);
            else assert.ok(killed, `create ${name} refused before the kill: ${r.status} ${r.text}`);
            if (++answered >= KILL_AFTER) kill();
          },
          () => void cut++,
        ),
      );
    }
    await Promise.all(requests);
    kill();
    await victim.exited;
    assert.equal(victim.proc.signalCode, 'SIGKILL', 'the first server was not killed');
    t.diagnostic(`${answered} answered (${acknowledged.size} acknowledged), ${cut} cut off by the kill`);
    assert.ok(acknowledged.size >= 1, 'no create was acknowledged before the kill');

    const verify = async (c: Client, where: string) => {
      const list = await c.get('serverConfig/servers?links=none&fields=name,listenPort,notes');
      assert.equal(list.status, 200, `${where}: ${list.text}`);
      const byName = new Map<string, Record<string, unknown>>(list.json.items.map((s: Record<string, unknown>) => [s.name as string, s]));
      for (const name of acknowledged) {
        const s = byName.get(name);
        assert.ok(s, `${where}: ${name} was acknowledged (201) but is missing`);
        assert.deepEqual({ listenPort: s.listenPort, notes: s.notes }, attempted.get(name), `${where}: ${name}`);
      }
      const present = [...byName.keys()].filter((n) => /^k\d+$/.test(n));
      for (const name of present) {
        const exp = attempted.get(name);
        assert.ok(exp, `${where}: unknown server ${name}`);
        const s = byName.get(name)!;
        assert.deepEqual({ listenPort: s.listenPort, notes: s.notes }, exp, `${where}: ${name} is not whole`);
        const e = await c.get(`edit/servers/${name}?links=none&fields=listenPort,notes`);
        assert.deepEqual(e.json, exp, `${where}: edit/servers/${name}`);
        const lc = await c.get(`${LC}/${name}?links=none&fields=name,state`);
        assert.equal(lc.status, 200, `${where}: no lifecycle runtime for ${name}: ${lc.text}`);
        assert.equal(lc.json.state, 'SHUTDOWN', `${where}: ${name}`);
      }
      // Servers not present have no runtime either.
      for (const name of attempted.keys()) {
        if (byName.has(name)) continue;
        assert.equal((await c.get(`${LC}/${name}`)).status, 404, `${where}: ${name} has a lifecycle runtime but no configuration`);
        assert.equal((await c.get(`edit/servers/${name}`)).status, 404, `${where}: ${name} is in the edit tree but not in the configuration`);
      }
      // The implicit sessions left no lock behind.
      assert.deepEqual(await changeManager(c), { locked: false, mergeNeeded: false, editSession: 'default' }, where);
      // Earlier state is intact: ms1 still runs, shared-1 is as activated.
      assert.equal((await c.get(`${LC}/ms1?links=none&fields=state`)).json.state, 'RUNNING', `${where}: ms1`);
      assert.equal((await c.get('serverConfig/servers/shared-1?links=none')).json.listenPort, 7312, `${where}: shared-1`);
      return present;
    };

    let restarted = false;
    try {
      const present = await verify(b, 'through the survivor');
      t.diagnostic(`present after the kill: ${present.length} of ${CREATES}`);

      // The survivor keeps answering, writes included.
      const alive = await b.post('edit/servers', { name: 'alive-after-kill', listenPort: 7399 });
      assert.equal(alive.status, 201, alive.text);
      assert.equal((await b.get('serverConfig/servers/alive-after-kill?links=none')).json.listenPort, 7399);
      assert.equal((await b.del('edit/servers/alive-after-kill')).status, 200);
      assert.equal((await b.get('serverConfig/servers/alive-after-kill')).status, 404);

      // A process restarted on the same database sees the same, and so does the survivor still.
      first = await startChild(newDataDir());
      restarted = true;
      assert.deepEqual(await verify(a, 'through the restarted process'), present);
      assert.deepEqual(await verify(b, 'through the survivor, after the restart'), present);
    } finally {
      // The tests after this one need two servers again.
      if (!restarted) first = await startChild(newDataDir());
    }
  });

  test('5. Lifecycle Manager records written through one server are read through the other', async () => {
    const made = await aLcm.post('environments', { name: 'env-shared' });
    assert.equal(made.status, 201, made.text);
    const got = await bLcm.get('environments/env-shared');
    assert.equal(got.status, 200, `environments/env-shared through the second: ${got.text}`);
    assert.equal(got.json.name, 'env-shared');

    // Created at the same time through both: compare-and-set keeps both.
    const [x, y] = await Promise.all([aLcm.post('environments', { name: 'env-a' }), bLcm.post('environments', { name: 'env-b' })]);
    assert.equal(x.status, 201, `env-a through the first: ${x.text}`);
    assert.equal(y.status, 201, `env-b through the second: ${y.text}`);
    for (const [which, c] of [['first', aLcm], ['second', bLcm]] as const) {
      const list = await c.get('environments');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(itemNames(list).sort(), ['env-a', 'env-b', 'env-shared'], `${which} server: ${list.text}`);
    }
    // The same name through both at once: exactly one is created.
    const both = await Promise.all([aLcm.post('environments', { name: 'env-dup' }), bLcm.post('environments', { name: 'env-dup' })]);
    assert.deepEqual(both.map((r) => r.status).sort(), [201, 400], both.map((r) => r.text).join(' | '));

    // Deleted through the second: gone through the first.
    assert.equal((await bLcm.del('environments/env-shared')).status, 200);
    assert.equal((await aLcm.get('environments/env-shared')).status, 404);
  });
});
