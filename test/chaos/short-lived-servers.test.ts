// Tasks of servers that lived less than one heartbeat. Servers sharing a PostgreSQL store say they
// are alive every 5 s (and once as they start), and a server counts as alive for 15 s after it last
// did; a living server ends the tasks of servers that stopped being alive. Here:
//   A starts ms1 (a start made to last five minutes) and is killed a second later;
//   B starts 6 s after that kill (A's last beat was as it started, so B must answer within some 6 s
//   more for A to still count as alive: the two waits are balanced for a loaded machine), forces ms1 down (a task in the collection where A's task lies) and
//   starts ms2, and is killed a second later, before its first heartbeat;
//   C starts once A no longer counts as alive, while B still does.
// A's task must read as failed, with the reason, as soon as C answers: C was not alone on the store
// (B counted as alive), so it did not fail every unfinished task as it loaded them, and a server that
// settled orphans only at its heartbeats left A's task `processing` until C's first beat, 5 s later
// — and for ever in a row of servers that each live less than 5 s, which is what the crash campaign
// on PostgreSQL found. B's tasks end once B no longer counts as alive, within the failover bound
// counted from B's kill. Every task keeps its own name; the servers moved are not left moving.
//
// PostgreSQL pass only: on SQLite one process owns its store, and a server starting alone ends what
// the previous one left as it starts (test/chaos/crash-campaign.test.ts checks that).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataDirs } from '../support/cli.js';
import { adminAuth } from '../support/server.js';
import { onPostgres, storeFor } from '../support/store.js';
import { type Answer, type ServedChild, serveChild } from './support/serve-child.js';

const skip = onPostgres() ? false : 'PostgreSQL pass only: servers sharing a store settle each other\'s tasks (on SQLite one process owns its store)';
const LC = 'domainRuntime/serverLifeCycleRuntimes';
/** The failover bound (docs/reliability.md: 15 s of heartbeat window, then one look every 5 s). */
const BOUND_MS = 20_000;
/** What a loaded test machine may add to it before the test gives up. */
const SLACK_MS = 25_000;
const MOVING = new Set(['STARTING', 'SHUTTING_DOWN', 'FORCE_SHUTTING_DOWN', 'SUSPENDING', 'FORCE_SUSPENDING', 'RESUMING']);

/** Makes the server's lifecycle steps last five minutes (through its control interface). */
async function slowSteps(s: ServedChild): Promise<void> {
  const r = await fetch(`${s.latest.replace(/\/management\/appserver\/latest$/, '')}/management/appserver-control/clock/setTimings`, {
    method: 'POST',
    headers: { authorization: adminAuth, 'x-requested-by': 'chaos-tests', 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ serverStart: 300_000, serverShutdown: 300_000 }),
  });
  assert.equal(r.status, 200, await r.text());
}

/** Sends a lifecycle action answered by its task, and returns the task's path below the version root. */
async function act(s: ServedChild, server: string, op: string): Promise<string> {
  const r: Answer = await s.post(`${LC}/${server}/${op}`, {}, { prefer: 'respond-async' });
  assert.equal(r.status, 202, `${op} ${server}: ${r.text}`);
  return r.headers.get('location')!.replace(`${s.latest}/`, '');
}

async function killed(s: ServedChild): Promise<number> {
  s.run.proc.kill('SIGKILL');
  await s.run.exited;
  assert.equal(s.run.proc.signalCode, 'SIGKILL', s.run.stderr());
  return Date.now();
}

test('tasks of servers killed before their first heartbeat end as failed with the reason as soon as a living server answers', { skip, timeout: 120_000 }, async (t) => {
  const dir = dataDirs('appserver-short-lived-')();
  const store = ['--store', (await storeFor(dir))!];
  const name = (href: string) => href.split('/').pop();

  // A: starts ms1 and dies a second later.
  const a = await serveChild(dir, [...store, '--control']);
  await slowSteps(a);
  const startMs1 = await act(a, 'ms1', 'start');
  await new Promise((d) => setTimeout(d, 1000));
  const killedA = await killed(a);

  // B (the same data directory, as after a restart), 6 s later, while A still counts as alive.
  await new Promise((d) => setTimeout(d, 6000 - (Date.now() - killedA)));
  const b = await serveChild(dir, [...store, '--control']);
  await slowSteps(b);
  const seen = await b.get(`${startMs1}?links=none&fields=name,completed`);
  assert.deepEqual(seen.json, { name: name(startMs1), completed: false }, `A's task as B sees it ${Date.now() - killedA} ms after A's kill (A counts as alive 15 s after its last beat, given as it started): ${seen.text}`);
  const forceMs1 = await act(b, 'ms1', 'forceShutdown');
  const startMs2 = await act(b, 'ms2', 'start');
  assert.notEqual(name(forceMs1), name(startMs1));
  await new Promise((d) => setTimeout(d, 1000));
  const killedB = await killed(b);

  // C, once A no longer counts as alive (15 s after its last heartbeat, which was before its kill).
  await new Promise((d) => setTimeout(d, Math.max(0, 16_000 - (Date.now() - killedA))));
  const c = await serveChild(dir, store);
  try {
    const first = await c.get(`${startMs1}?links=none`);
    t.diagnostic(`C answered ${Date.now() - killedA} ms after A's kill and ${Date.now() - killedB} ms after B's (B counted as alive for 15 s after it started)`);
    assert.equal(first.json?.completed, true, `A's task, read from C as soon as C answers: ${first.text}`);
    const tasks = [startMs1, forceMs1, startMs2];
    let ended: Answer[] = [];
    for (;;) {
      ended = await Promise.all(tasks.map((href) => c.get(`${href}?links=none`)));
      if (ended.every((r) => r.json?.completed === true)) break;
      assert.ok(Date.now() - killedB < BOUND_MS + SLACK_MS, `tasks still running ${Date.now() - killedB} ms after B's kill: ${ended.map((r) => r.text).join('\n')}`);
      await new Promise((d) => setTimeout(d, 250));
    }
    t.diagnostic(`B's tasks had ended ${Date.now() - killedB} ms after its kill (bound ${BOUND_MS} ms)`);
    for (const [i, r] of ended.entries()) {
      assert.equal(r.json.name, name(tasks[i]!), r.text);
      assert.equal(r.json.progress, 'failed', r.text);
      assert.equal(r.json.taskStatus, 'FAILED', r.text);
      assert.match(r.json.taskError?.message ?? '', /stopped before it completed/, r.text);
    }
    // What the tasks moved ended where it was going: ms1 forced down, ms2 started.
    const states = await c.get(`${LC}?links=none&fields=name,state`);
    const state = new Map((states.json.items as { name: string; state: string }[]).map((i) => [i.name, i.state]));
    assert.equal(state.get('ms1'), 'SHUTDOWN', states.text);
    assert.equal(state.get('ms2'), 'RUNNING', states.text);
    for (const [server, s] of state) assert.ok(!MOVING.has(s), `${server} is left ${s}`);
    // A new task in the collection the two dead servers used gets a name of its own.
    const again = await act(c, 'ms1', 'start');
    assert.ok(![startMs1, forceMs1].includes(again), `a task name was used again: ${again}`);
  } finally {
    await c.run.stop();
  }
});
