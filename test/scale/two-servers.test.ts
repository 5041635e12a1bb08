// Two real server processes on ONE PostgreSQL database. Each request syncs with the store before it
// is answered, so whatever one server committed is seen at once through the other: edit locks,
// activations, named edit sessions, users, lifecycle operations and their tasks, Lifecycle Manager
// records. One server is killed (SIGKILL) with activations in flight: the survivor, and a process
// restarted on the same database, see every acknowledged activation whole, and none half there.
// Races between the two are made deterministic with table locks held from the test (reads go on,
// writes wait until both servers' writes are queued behind the lock) or by pausing one process
// (SIGSTOP): no sleeps, and the only polling is for lifecycle steps on the real clock.
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
import { AUTHN, ESC, type Client, type Reply, assertProblem, changeManager, client, createUser, errorItems } from '../support/edit.js';
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
}

const children = new Set<ChildProcess>();
/** Directories made by this run (the key directory, whose database both servers share, and data directories). */
const dirs: string[] = [];
let storeUrl: string | undefined;
/** The key file every server of the run is given: the first to start makes it, the others read it. */
let secretKeyFile: string | undefined;

/** Starts `appserver-admin serve --port 0` on the shared database; resolves once it prints its URL. */
async function startChild(dataDir: string): Promise<Child> {
  assert.ok(storeUrl && secretKeyFile, 'no shared store URL or key file');
  const proc = spawn(
    process.execPath,
    [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--no-listeners', '--data-dir', dataDir, '--store', storeUrl, '--secret-key-file', secretKeyFile, '--log-level', 'silent'],
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
        resolveStart({ proc, origin: new URL(latest).origin, latest, exited });
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

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface HeldLocks {
  /** How many database sessions wait on a lock now. */
  waiting(): Promise<number>;
  release(): Promise<void>;
}

/** Takes EXCLUSIVE locks on tables of the shared database: plain reads go on, writes wait. */
async function holdLocks(tables: string[]): Promise<HeldLocks> {
  const lock = new pg.Client({ connectionString: storeUrl });
  const watch = new pg.Client({ connectionString: storeUrl });
  await lock.connect();
  await watch.connect();
  await lock.query('BEGIN');
  await lock.query(`LOCK TABLE ${tables.join(', ')} IN EXCLUSIVE MODE`);
  let released = false;
  return {
    waiting: async () =>
      (await watch.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n as number,
    release: async () => {
      if (released) return;
      released = true;
      await lock.query('COMMIT').catch(() => undefined);
      await lock.end().catch(() => undefined);
      await watch.end().catch(() => undefined);
    },
  };
}

/**
 * Holds locks on tables while `fire` sends requests, until `waiters` database sessions wait on
 * them (bounded), then releases them all at once: requests that each read, then write, meet in
 * the store deterministically. Returns the requests' results and how many sessions were waiting.
 */
async function throughBarrier<T>(tables: string[], waiters: number, fire: () => Promise<T>): Promise<{ result: T; held: number }> {
  const locks = await holdLocks(tables);
  let pending: Promise<T> | undefined;
  let held = 0;
  try {
    pending = fire();
    pending.catch(() => undefined);
    for (let i = 0; i < 250 && held < waiters; i++) {
      held = await locks.waiting();
      if (held < waiters) await pause(20);
    }
  } finally {
    await locks.release();
  }
  return { result: await pending!, held };
}

/** One statement on the shared database (for facts the REST interface does not show). */
async function sql<R extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: storeUrl });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as R[];
  } finally {
    await c.end();
  }
}

describe('two servers sharing one PostgreSQL database', { skip: PG ? false : 'no PostgreSQL: set APPSERVER_TEST_PG to a PostgreSQL URL to run the two-server tests' }, () => {
  let first: Child;
  let second: Child;
  /** Clients bound to the first and second server (read on every request: the first is replaced in test 4). */
  const a = client(() => first.latest);
  const b = client(() => second.latest);
  const lcmOf = (c: () => Child): Client => client(() => `${c().origin}/management/lifecycle/latest`);
  const aLcm = lcmOf(() => first);
  const bLcm = lcmOf(() => second);
  /** A server's lifecycle state as one of the two tells it. */
  const state = async (c: Client, server: string) => (await c.get(`${LC}/${server}?links=none&fields=state`)).json?.state as string | undefined;
  /** Members of a group as one of the two tells them. */
  const members = async (c: Client, group: string): Promise<string[]> => {
    const r = await c.post(`${AUTHN}/listGroupMembers`, { groupName: group, memberUserOrGroupNameWildcard: '*', maximumToReturn: 1000 });
    assert.equal(r.status, 200, r.text);
    return [...(r.json.return as string[])].sort();
  };

  before(async () => {
    // One key directory: the database storeFor gives for it is the one both servers share.
    const sharedKey = mkdtempSync(join(tmpdir(), 'appserver-two-'));
    dirs.push(sharedKey);
    storeUrl = await storeFor(sharedKey);
    secretKeyFile = join(sharedKey, 'secret.key');
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

  test('1b. the domain\'s very first activation, through both servers at once: both succeed', async (t) => {
    // The first activation of a new domain, through both at once: neither may fail.
    const fresh = (await sql("SELECT 1 FROM meta WHERE key = 'configVersion'")).length === 0;
    if (fresh) {
      const { result, held } = await throughBarrier(['meta'], 2, () =>
        Promise.all([a.post('edit/servers', { name: 'first-a', listenPort: 7201 }), b.post('edit/servers', { name: 'first-b', listenPort: 7202 })]),
      );
      t.diagnostic(`first activations: ${held} waiting at the barrier; ${result.map((r) => r.status).join(', ')}`);
      for (const [i, r] of result.entries()) {
        assert.equal(r.status, 201, `the first activation of the domain through the ${i === 0 ? 'first' : 'second'} server: ${r.text}`);
      }
      for (const c of [a, b]) {
        for (const [name, port] of [['first-a', 7201], ['first-b', 7202]] as const) {
          assert.equal((await c.get(`serverConfig/servers/${name}?links=none`)).json?.listenPort, port, name);
        }
      }
    } else {
      t.diagnostic('the domain was activated before this test: its first activation was not raced');
    }
  });

  test('1c. twenty implicit activations through both servers at once are all acknowledged and present', async (t) => {
    // Ten creates through each server, all at once: every one is acknowledged and present.
    const N = 10;
    const sent = [
      ...Array.from({ length: N }, (_, i) => ({ via: a, server: 'first', name: `race-a${i}`, listenPort: 7600 + i })),
      ...Array.from({ length: N }, (_, i) => ({ via: b, server: 'second', name: `race-b${i}`, listenPort: 7700 + i })),
    ];
    const replies = await Promise.all(sent.map((x) => x.via.post('edit/servers', { name: x.name, listenPort: x.listenPort })));
    const failed = replies.map((r, i) => [r, sent[i]!] as const).filter(([r]) => r.status !== 201);
    t.diagnostic(`${replies.length - failed.length} of ${replies.length} concurrent creates acknowledged`);
    assert.deepEqual(
      failed.map(([r, x]) => `${x.name} through the ${x.server}: ${r.status} ${r.json?.detail ?? r.text.slice(0, 200)}`),
      [],
      'concurrent implicit activations through two servers must all succeed',
    );
    for (const c of [a, b]) {
      const list = await c.get('serverConfig/servers?links=none&fields=name,listenPort');
      const ports = new Map(list.json.items.map((s: { name: string; listenPort: number }) => [s.name, s.listenPort]));
      for (const x of sent) assert.equal(ports.get(x.name), x.listenPort, x.name);
    }
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
    // The implicit edit session left no lock behind, as either server tells.
    assert.equal((await changeManager(b)).locked, false);
    assert.equal((await changeManager(a)).locked, false);

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
    assert.equal(await state(b, 'ms1'), 'SHUTDOWN');
    // The task and runtime tables are locked while the first starts ms1, so that its writes can
    // land only once the lock is gone. A server that stores before it answers cannot answer while
    // the lock is held (it is released once its write has waited a while); one that answers first
    // is read through the second at once, while its write still waits.
    const locks = await holdLocks(['tasks', 'runtime']);
    const starting = a.post(`${LC}/ms1/start`, {}, ASYNC);
    let answered = false;
    starting.then(
      () => (answered = true),
      () => (answered = true),
    );
    let early: Reply | undefined;
    let earlyState: string | undefined;
    const readEarly = async (r: Reply) => {
      const path = r.headers.get('location')?.slice(first.latest.length + 1);
      early = await b.get(`${path}?links=none`);
      earlyState = await state(b, 'ms1');
    };
    try {
      for (let i = 0, waited = 0; i < 250 && !answered && waited < 25; i++) {
        if ((await locks.waiting()) > 0) waited++;
        if (!answered) await pause(20);
      }
      if (answered) await readEarly(await starting);
    } finally {
      await locks.release();
    }
    const r = await starting;
    assert.equal(r.status, 202, r.text);
    const location = r.headers.get('location');
    assert.ok(location, `no Location: ${r.text}`);
    assert.ok(location.startsWith(`${first.latest}/${LC}/ms1/tasks/`), location);
    const name = r.json.name as string;
    // The task's path below .../latest, to read through either server.
    const path = location.slice(first.latest.length + 1);
    if (!early) await readEarly(r);

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
    assert.ok(early);
    assert.equal(early.status, 200, `the task the first server answered 202 for is not seen through the second at once: ${early.text}`);
    assert.equal(early.json.name, name);
    assert.equal(early.json.operation, 'start');
    assert.equal(early.json.serverName, 'ms1');
    assert.ok(['TASK IN PROGRESS', 'TASK COMPLETED'].includes(early.json.taskStatus), early.text);
    assert.ok(['STARTING', 'RUNNING'].includes(earlyState ?? ''), `ms1 is ${earlyState} through the second right after the first answered 202 for its start`);
  });

  test('3b. a server slow to catch up does not overwrite a lifecycle state the other changed meanwhile', async () => {
    // The second is idle and caught up, then paused: it misses an activation and a start.
    assert.equal((await b.get('currentUser')).status, 200);
    second.proc.kill('SIGSTOP');
    let path: string;
    try {
      const made = await a.post('edit/servers', { name: 'late-1', listenPort: 7401 });
      assert.equal(made.status, 201, made.text);
      const r = await a.post(`${LC}/late-1/start`, {}, ASYNC);
      assert.equal(r.status, 202, r.text);
      path = r.headers.get('location')!.slice(first.latest.length + 1);
      // A request through the first waits for its queued writes: the store holds late-1 STARTING.
      assert.equal(await state(a, 'late-1'), 'STARTING');
    } finally {
      second.proc.kill('SIGCONT');
    }
    // The second catches up with both at once (the activation, then the runtime state).
    const seen = await state(b, 'late-1');
    const done = await pollUntil(
      async () => (await a.get(`${path}?links=none`)).json,
      (j) => j?.completed === true,
      'the start of late-1, polled through the first server',
    );
    assert.equal(done.taskStatus, 'TASK COMPLETED', JSON.stringify(done));
    const after = { first: await state(a, 'late-1'), second: await state(b, 'late-1') };
    assert.deepEqual(after, { first: 'RUNNING', second: 'RUNNING' }, 'late-1 after its start completed (the task says TASK COMPLETED)');
    assert.ok(seen === 'STARTING' || seen === 'RUNNING', `late-1 is ${seen} through the second once it caught up; the first had it STARTING`);
  });

  test('3c. group memberships changed through both servers at once: neither change is lost', async (t) => {
    await createUser(a, 'revoked', 'revoked-pw1', 'Administrators');
    await createUser(a, 'added', 'added-pw1');
    const before = await members(b, 'Administrators');
    assert.ok(before.includes('revoked') && !before.includes('added'), JSON.stringify(before));
    const { result, held } = await throughBarrier(['groups', 'group_members'], 2, () =>
      Promise.all([
        a.post(`${AUTHN}/removeMemberFromGroup`, { groupName: 'Administrators', memberUserOrGroupName: 'revoked' }),
        b.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Administrators', memberUserOrGroupName: 'added' }),
      ]),
    );
    t.diagnostic(`${held} waiting at the barrier`);
    const [removed, added] = result;
    assert.equal(removed.status, 200, `removeMemberFromGroup through the first: ${removed.text}`);
    assert.equal(added.status, 200, `addMemberToGroup through the second: ${added.text}`);
    const expected = [...before.filter((m) => m !== 'revoked'), 'added'].sort();
    assert.deepEqual(
      { first: await members(a, 'Administrators'), second: await members(b, 'Administrators') },
      { first: expected, second: expected },
      'Administrators after a removal through the first and an addition through the second, both acknowledged',
    );
  });

  test('3d. the same user created through both servers at once: one is created, the other refused', async (t) => {
    const pw = { first: 'twin-first1', second: 'twin-second2' };
    const { result, held } = await throughBarrier(['users'], 2, () =>
      Promise.all([
        a.post(`${AUTHN}/createUser`, { userName: 'twin', password: pw.first, description: 'through the first' }),
        b.post(`${AUTHN}/createUser`, { userName: 'twin', password: pw.second, description: 'through the second' }),
      ]),
    );
    t.diagnostic(`${held} waiting at the barrier; ${result.map((r) => r.status).join(', ')}`);
    // Whatever was acknowledged holds: a password acknowledged with 200 authenticates through both
    // (twin is in no group, so a read is then forbidden, 403; a wrong password is 401).
    for (const [i, which] of (['first', 'second'] as const).entries()) {
      if (result[i]!.status !== 200) continue;
      for (const [where, c] of [['first', a], ['second', b]] as const) {
        const who = await c.as(basic('twin', pw[which])).get('currentUser?links=none');
        assert.notEqual(who.status, 401, `twin, created with 200 through the ${which} server, is refused its password through the ${where}: ${who.text.slice(0, 200)}`);
      }
    }
    assert.deepEqual(result.map((r) => r.status).sort(), [200, 400], result.map((r) => r.text.slice(0, 300)).join(' | '));
    const refused = result.find((r) => r.status === 400)!;
    assertProblem(errorItems(refused, 400, 'the second createUser of twin'), "already exists");
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
  test('6. a lifecycle operation in flight on a killed server does not stay in progress for ever', async (t) => {
    assert.equal(await state(b, 'ms2'), 'SHUTDOWN');
    const r = await a.post(`${LC}/ms2/start`, {}, ASYNC);
    assert.equal(r.status, 202, r.text);
    const path = r.headers.get('location')!.slice(first.latest.length + 1);
    // A request through the first waits for its queued writes: the store holds the task and STARTING.
    assert.equal(await state(a, 'ms2'), 'STARTING');
    const victim = first;
    victim.proc.kill('SIGKILL');
    await victim.exited;
    first = await startChild(newDataDir());
    assert.equal((await b.get(`${path}?links=none`)).json?.completed, false, 'the start completed before the kill');
    // Nobody runs the start any more. The killed process stops beating at once; three missed
    // heartbeats (3 x 5 s) later it is known dead. The survivor, or the restarted process, must
    // then settle what it left: the task ends (FAILED or COMPLETED) and ms2 leaves STARTING.
    // Polled (500 ms apart, 30 s at most) because only the clock makes a silent process dead.
    const settled = await pollUntil(
      async () => (await b.get(`${path}?links=none`)).json,
      (j) => j?.completed === true,
      'the start of ms2 whose server was killed, polled through the survivor',
      60,
      500,
    );
    t.diagnostic(`settled as ${settled.taskStatus}`);
    assert.notEqual(settled.taskStatus, 'TASK IN PROGRESS');
    const states = { first: await state(a, 'ms2'), second: await state(b, 'ms2') };
    assert.equal(states.first, states.second, JSON.stringify(states));
    assert.ok(!['STARTING', 'UNKNOWN', undefined].includes(states.second), `ms2 is still ${states.second} though nobody runs its start`);
    assert.deepEqual((await a.get(`${path}?links=none`)).json, settled, 'the task differs between the servers');
  });
});
