// Crash campaign: one data directory (SQLite, or a PostgreSQL database on the PostgreSQL pass), a
// server started as a child process and a mixed workload sent at it — activations through implicit
// and named edit sessions, deletes, application uploads, server starts and stops, Lifecycle Manager
// writes — until a SIGKILL at a random moment; then a new server on the same store. Every time: the
// store opens, every acknowledged change is there (and every deletion acknowledged is gone), every
// server there is whole, the tasks acknowledged ended, no uploaded archive is left that no
// deployment names, and the upload staging folder is empty.
//
// CHAOS_RUNS sets the number of kills (default 4 in the suite, 2 on PostgreSQL; `npm run chaos` runs 100);
// CHAOS_SEED replays a campaign (the seed is printed).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirs } from '../support/cli.js';
import { adminAuth } from '../support/server.js';
import { storeFor } from '../support/store.js';
import { makeZip, webXml } from '../support/zip.js';
import { type Answer, type ServedChild, serveChild } from './support/serve-child.js';

// In the suite: 4 kills on SQLite, 2 on PostgreSQL (where the last tasks take the failover bound to end).
const RUNS = Number(process.env.CHAOS_RUNS ?? (process.env.APPSERVER_TEST_PG ? 2 : 4));
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
const LC = 'domainRuntime/serverLifeCycleRuntimes';
/** States a server is only in while a task moves it. */
const MOVING = new Set(['STARTING', 'SHUTTING_DOWN', 'FORCE_SHUTTING_DOWN', 'SUSPENDING', 'FORCE_SUSPENDING', 'RESUMING']);
/** Within this, tasks of a killed server sharing its store end (heartbeat window, one check, margin). */
const FAILOVER_MS = 25_000;
/** A server sharing its store removes unnamed archives once this old (src/api/compose.ts). */
const ARCHIVE_GRACE_MS = 60_000;
const WAR = makeZip({ 'WEB-INF/web.xml': webXml([{ name: 'hello', className: 'chaos.Hello', patterns: ['/hello'] }]) });

/** A small seeded generator (mulberry32), so that a campaign can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function upload(s: ServedChild, app: string): Promise<Answer> {
  const form = new FormData();
  form.append('model', JSON.stringify({ name: app, targets: [{ identity: ['servers', 'AdminServer'] }] }));
  form.append('sourcePath', new Blob([new Uint8Array(WAR)]), `${app}.war`);
  try {
    const res = await fetch(`${s.latest}/edit/appDeployments`, { method: 'POST', body: form, headers: { authorization: adminAuth, 'x-requested-by': 'chaos-tests', accept: 'application/json', prefer: 'respond-async' } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: undefined };
  } catch (err) {
    return { status: 0, headers: new Headers(), text: (err as Error).message, json: undefined };
  }
}

async function lifecycle(s: ServedChild): Promise<Answer> {
  try {
    const res = await fetch(`${s.latest.replace('/appserver/latest', '/lifecycle/latest')}/environments`, {
      method: 'POST',
      headers: { authorization: adminAuth, 'x-requested-by': 'chaos-tests', accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ name: `env-${Math.random().toString(36).slice(2, 10)}` }),
    });
    return { status: res.status, headers: res.headers, text: await res.text(), json: undefined };
  } catch (err) {
    return { status: 0, headers: new Headers(), text: (err as Error).message, json: undefined };
  }
}

interface Ledger {
  /** Servers whose creation was acknowledged, with what they were made with. */
  servers: Map<string, { listenPort: number; notes: string }>;
  /** Every server a creation was sent for. */
  attempted: Map<string, { listenPort: number; notes: string }>;
  /** Acknowledged deletions. */
  deleted: Set<string>;
  /** Deletions sent (acknowledged or not: one cut off by the kill may or may not have been made). */
  deleting: Set<string>;
  apps: Set<string>;
  environments: Set<string>;
  /** Acknowledged task URLs (relative to the version root) not yet seen ended, with when their server was killed. */
  tasks: { href: string; killed: number }[];
  /** Acknowledged tasks in all. */
  taskCount: number;
  writes: number;
  /** Unnamed archives seen on a shared store within their grace minute. */
  freshOrphans: number;
}

/** Checks the restarted server against everything acknowledged so far. */
async function verify(s: ServedChild, dataDir: string, ledger: Ledger, run: number, shared: boolean): Promise<void> {
  const where = `after kill ${run}`;
  const list = await s.get('serverConfig/servers?links=none&fields=name,listenPort,notes');
  assert.equal(list.status, 200, `${where}: ${list.text}`);
  const servers = new Map<string, { listenPort: number; notes: string }>(list.json.items.map((i: { name: string; listenPort: number; notes: string }) => [i.name, { listenPort: i.listenPort, notes: i.notes }]));
  for (const [name, made] of ledger.servers) {
    if (ledger.deleted.has(name)) assert.ok(!servers.has(name), `${where}: ${name} was deleted (acknowledged) and is back`);
    else if (ledger.deleting.has(name)) assert.ok(!servers.has(name) || JSON.stringify(servers.get(name)) === JSON.stringify(made), `${where}: ${name} is not whole`);
    else assert.deepEqual(servers.get(name), made, `${where}: ${name} was acknowledged`);
  }
  for (const [name, values] of servers) {
    const sent = ledger.attempted.get(name);
    if (sent) assert.deepEqual(values, sent, `${where}: ${name} is not whole`);
  }
  const apps = await s.get('edit/appDeployments?links=none&fields=name,sourcePath');
  assert.equal(apps.status, 200, apps.text);
  const sources = new Map<string, string>(apps.json.items.map((i: { name: string; sourcePath: string }) => [i.name, i.sourcePath]));
  for (const app of ledger.apps) {
    assert.ok(sources.has(app), `${where}: the deployment ${app} was acknowledged and is missing`);
    assert.ok(existsSync(sources.get(app)!), `${where}: the archive of ${app} is missing`);
  }
  // No archive that no deployment names, and nothing in the staging folder.
  const folder = join(dataDir, 'applications');
  const named = new Set(sources.values());
  const files = existsSync(folder) ? (readdirSync(folder, { recursive: true }) as string[]).map((f) => join(folder, f)) : [];
  const incoming = join(folder, '.incoming');
  const staged = files.filter((f) => f.startsWith(`${incoming}/`));
  assert.deepEqual(staged, [], `${where}: staging files left`);
  const orphans = files.filter((f) => f !== incoming && !f.startsWith(`${incoming}/`) && !named.has(f) && ![...named].some((n) => n.startsWith(`${f}/`)) && statSync(f).isFile());
  if (shared) {
    // On a shared store an unnamed archive goes once a minute old (the folder may be another
    // server's too): one left by the kill just now may still be there, none older.
    const old = orphans.filter((f) => Date.now() - statSync(f).mtimeMs > ARCHIVE_GRACE_MS + 30_000);
    assert.deepEqual(old, [], `${where}: archives no deployment names, older than the grace`);
    ledger.freshOrphans += orphans.length;
  } else {
    assert.deepEqual(orphans, [], `${where}: archives no deployment names`);
  }
  const envs = await s.get('../../lifecycle/latest/environments?links=none&fields=name');
  assert.equal(envs.status, 200, envs.text);
  const envNames = new Set(envs.json.items.map((i: { name: string }) => i.name));
  for (const e of ledger.environments) assert.ok(envNames.has(e), `${where}: the environment ${e} was acknowledged and is missing`);
  // On a shared store a killed server's tasks are ended by a living server once its heartbeat
  // lapsed: those of servers killed longer ago than the failover bound must have ended by now (the
  // servers here live seconds each, so they were ended by a later one). The states are looked at at
  // the end, when no kill is recent.
  if (shared) await tasksEnded(s, ledger, where, Date.now() - FAILOVER_MS, false);
  else await tasksEnded(s, ledger, where, Date.now());
}

/**
 * The acknowledged tasks of servers killed before `before` have ended, and no server is left moving.
 * A server alone on its store ends what the killed one left as it starts; on a shared store the
 * killed server counts as alive until its heartbeat lapses, and a living server ends its tasks at its
 * next heartbeat after that, within the failover bound (docs/reliability.md).
 */
async function tasksEnded(s: ServedChild, ledger: Ledger, where: string, before: number, lookAtStates = true): Promise<void> {
  const due = ledger.tasks.filter((t) => t.killed <= before);
  for (const { href } of due) {
    const task = await s.get(href);
    assert.equal(task.status, 200, `${where}: task ${href}: ${task.text}`);
    assert.equal(task.json.completed, true, `${where}: task ${href} still runs: ${task.text}`);
  }
  ledger.tasks = ledger.tasks.filter((t) => !due.includes(t));
  if (!lookAtStates || ledger.tasks.length > 0) return;
  const states = await s.get(`${LC}?links=none&fields=name,state`);
  for (const item of states.json.items as { name: string; state: string }[]) assert.ok(!MOVING.has(item.state), `${where}: ${item.name} is left ${item.state}`);
}

test(`crash campaign: ${RUNS} kills at random moments of a mixed workload`, { timeout: Math.max(240_000, RUNS * 12_000) }, async (t) => {
  t.diagnostic(`seed ${SEED} (CHAOS_SEED=${SEED} replays it)`);
  const rnd = random(SEED);
  const newDir = dataDirs('appserver-campaign-');
  const dataDir = newDir();
  const store = await storeFor(dataDir);
  const extra = store ? ['--store', store] : [];
  const ledger: Ledger = { servers: new Map(), attempted: new Map(), deleted: new Set(), deleting: new Set(), apps: new Set(), environments: new Set(), tasks: [], taskCount: 0, writes: 0, freshOrphans: 0 };
  let s = await serveChild(dataDir, extra);
  let killedInFlight = 0;
  for (let run = 0; run < RUNS; run++) {
    let live = true;
    const runTasks: string[] = [];
    const ack = (what: () => void) => {
      if (!live) return;
      what();
      ledger.writes++;
    };
    const loop = async (step: (i: number) => Promise<void>) => {
      for (let i = 0; live; i++) await step(i);
    };
    const workers = [
      // Activations of implicit sessions: creates, and deletes of servers made earlier.
      loop(async (i) => {
        const name = `r${run}e${i}`;
        const made = { listenPort: 20000 + ((run * 100 + i) % 40000), notes: `${name} made in run ${run}` };
        ledger.attempted.set(name, made);
        const r = await s.post('edit/servers', { name, ...made });
        if (r.status === 201) ack(() => ledger.servers.set(name, made));
        else assert.ok(!live || r.status === 0, `create ${name} refused before the kill: ${r.status} ${r.text}`);
        const old = [...ledger.servers.keys()].find((n) => !ledger.deleting.has(n) && !n.startsWith(`r${run}`));
        if (old && rnd() < 0.3) {
          ledger.deleting.add(old);
          const d = await fetch(`${s.latest}/edit/servers/${old}`, { method: 'DELETE', headers: { authorization: adminAuth, 'x-requested-by': 'chaos-tests', accept: 'application/json' } }).then((res) => res.status, () => 0);
          if (d === 200) ack(() => ledger.deleted.add(old));
        }
      }),
      // A named edit session: lock, create, activate.
      loop(async (i) => {
        const session = `r${run}x${i}`;
        const h = { 'appserver.edit.session': session };
        if ((await s.post(ESC, { name: session, description: 'crash campaign' })).status !== 201) return;
        if ((await s.post('edit/changeManager/startEdit', {}, h)).status !== 200) return;
        const made = { listenPort: 9000 + (i % 1000), notes: `${session} activated` };
        ledger.attempted.set(session, made);
        if ((await s.post('edit/servers', { name: session, ...made }, h)).status !== 201) return;
        const a = await s.post('edit/changeManager/activate', {}, h);
        if (a.status === 200) ack(() => ledger.servers.set(session, made));
      }),
      // Uploads.
      loop(async (i) => {
        const app = `r${run}a${i}`;
        const r = await upload(s, app);
        if (r.status === 201 || r.status === 202) ack(() => ledger.apps.add(app));
      }),
      // Server starts and stops.
      loop(async (i) => {
        const server = i % 2 === 0 ? 'ms1' : 'ms2';
        const state = await s.get(`${LC}/${server}?links=none&fields=state`);
        const action = state.json?.state === 'RUNNING' ? 'shutdown' : 'start';
        const r = await s.post(`${LC}/${server}/${action}`, {}, { prefer: 'respond-async' });
        if (r.status === 202 && r.headers.get('location')) ack(() => runTasks.push(r.headers.get('location')!.replace(`${s.latest}/`, '')));
        else await new Promise((d) => setTimeout(d, 50));
      }),
      // Lifecycle Manager writes.
      loop(async () => {
        const r = await lifecycle(s);
        const loc = r.headers.get('location');
        if (r.status === 201 && loc) ack(() => ledger.environments.add(decodeURIComponent(loc.split('/').pop()!)));
      }),
    ];
    // The kill: at a random moment of the workload.
    await new Promise((d) => setTimeout(d, 150 + Math.floor(rnd() * 1200)));
    live = false;
    s.run.proc.kill('SIGKILL');
    await s.run.exited;
    assert.equal(s.run.proc.signalCode, 'SIGKILL', `run ${run}: the server was not running when killed: ${s.run.stderr()}`);
    await Promise.all(workers);
    killedInFlight++;
    const killed = Date.now();
    ledger.tasks.push(...runTasks.map((href) => ({ href, killed })));
    ledger.taskCount += runTasks.length;
    s = await serveChild(dataDir, extra);
    await verify(s, dataDir, ledger, run + 1, store !== undefined);
  }
  // The last tasks, on a shared store: they end once the failover bound has passed.
  if (store) {
    // The bound runs from the last kill: the server killed then counts as alive until its heartbeat
    // lapses (up to 15 s), and is found dead at the survivor's next heartbeat (5 s). (Measured from
    // the first kill, as the check once was, it came too early for the last server's tasks.)
    const lastKill = Math.max(0, ...ledger.tasks.map((x) => x.killed));
    const running = (await Promise.all(ledger.tasks.map((x) => s.get(x.href)))).filter((r) => r.json?.completed === false).length;
    t.diagnostic(`after the last restart, ${running} of the ${ledger.tasks.length} acknowledged task(s) of the servers killed in the last ${FAILOVER_MS / 1000} s still ran (their servers still counted as alive)`);
    await new Promise((d) => setTimeout(d, Math.max(0, FAILOVER_MS - (Date.now() - lastKill))));
    // A loaded machine may take another heartbeat or two: look again for up to 20 s.
    for (let tries = 0; ; tries++) {
      try {
        await tasksEnded(s, ledger, 'at the end', Date.now());
        break;
      } catch (err) {
        if (tries >= 4) throw err;
        await new Promise((d) => setTimeout(d, 5000));
      }
    }
  }
  await s.run.stop();
  const counts = { runs: killedInFlight, acknowledged: ledger.writes, servers: ledger.servers.size, deletions: ledger.deleted.size, deployments: ledger.apps.size, environments: ledger.environments.size, tasks: ledger.taskCount, lost: 0, freshOrphansSeen: ledger.freshOrphans };
  t.diagnostic(`campaign: ${JSON.stringify(counts)}`);
});
