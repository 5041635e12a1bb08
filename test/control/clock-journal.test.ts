// The control interface's clock and journal. The clock follows the wall clock until frozen; frozen,
// lifecycle steps move only when it is advanced; resumed, it goes on from where it stood. Step
// durations go from instant to realistic. The journal lists the last requests (method, path, user,
// status, duration, sizes), newest first, filtered, cleared and resized; control requests are not
// in it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, assertAccepted, createUser, errorDetails, job, pollUntil } from '../support/runtime-server.js';
import { type ControlServer, linkOf, startControlServer } from '../support/control.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: ControlServer;

before(async () => {
  srv = await startControlServer({ manual: false });
});

after(async () => {
  await srv.stop();
});

test('freeze the clock, advance it step by step through a server start, resume it', async () => {
  const clock = await srv.ctl.get('clock');
  assert.equal(clock.status, 200, clock.text);
  assert.equal(clock.json.frozen, false);
  assert.equal(clock.json.canRun, true);
  assert.deepEqual(clock.json.timings, { serverStart: 2000, serverShutdown: 1000, serverSuspend: 300, partition: 500, resourceGroup: 300, deployment: 1000 });

  const frozen = await srv.ctl.post(linkOf(clock.json, 'action', 'freeze'));
  assert.equal(frozen.json.frozen, true);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal((await srv.ctl.get('clock')).json.now, frozen.json.now, 'time stands still');

  const start = assertAccepted(await srv.admin.post(`${LC}/ms1/start`, {}, ASYNC), 'start ms1');
  await new Promise((r) => setTimeout(r, 2100));
  assert.equal((await job(srv.admin, start)).completed, false, 'frozen: no progress in 2 s of wall-clock time');
  const almost = await srv.ctl.post('clock/advance', { ms: 1999 });
  assert.equal(almost.json.now, frozen.json.now + 1999);
  assert.equal((await job(srv.admin, start)).completed, false);
  await srv.ctl.post('clock/advance', { seconds: 0.001 });
  const done = await job(srv.admin, start);
  assert.equal(done.taskStatus, 'TASK COMPLETED');
  assert.equal(done.endTimeAsLong - done.startTimeAsLong, 2000, 'the task took 2 s of the clock');

  const resumed = await srv.ctl.post('clock/resume');
  assert.equal(resumed.json.frozen, false);
  await pollUntil(async () => (await srv.ctl.get('clock')).json.now, (now) => now > resumed.json.now, 'the clock runs again');
});

test('step durations: instant makes lifecycle steps complete at once; values are checked whole', async () => {
  const set = await srv.ctl.post('clock/setTimings', { preset: 'instant' });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.json.timings.serverShutdown, 0);
  // An instant step may end while the action's changes are being stored (a PostgreSQL store): the
  // answer is then 200 with the finished task instead of 202.
  const asked = await srv.admin.post(`${LC}/ms1/shutdown`, {}, ASYNC);
  const stop = asked.status === 200 ? (asked.json.links as { href: string }[])[0]!.href : assertAccepted(asked, 'shutdown ms1');
  await pollUntil(() => job(srv.admin, stop), (t) => t.completed === true, 'an instant shutdown');

  const realistic = await srv.ctl.post('clock/setTimings', { preset: 'realistic', serverStart: 100 });
  assert.equal(realistic.json.timings.serverStart, 100);
  assert.equal(realistic.json.timings.serverShutdown, 15_000);
  const bad = await srv.ctl.post('clock/setTimings', { preset: 'realistic', serverStart: -1 });
  assert.match(errorDetails(bad, 400).join(' '), /\[serverStart\].*-1/);
  errorDetails(await srv.ctl.post('clock/setTimings', { preset: 'glacial' }), 400);
  errorDetails(await srv.ctl.post('clock/advance', { ms: 'soon' }), 400);
  assert.equal((await srv.ctl.get('clock')).json.timings.serverStart, 100, 'a refused change changed nothing');
  await srv.ctl.post('clock/setTimings', { preset: 'default' });
});

test('a manual clock given by the program cannot be resumed', async () => {
  const manual = await startControlServer();
  try {
    const clock = await manual.ctl.get('clock');
    assert.equal(clock.json.frozen, true);
    assert.equal(clock.json.canRun, false);
    assert.match(errorDetails(await manual.ctl.post('clock/resume'), 400)[0]!, /manual clock/);
    const before = clock.json.now;
    assert.equal((await manual.ctl.post('clock/advance', { ms: 5000 })).json.now, before + 5000);
  } finally {
    await manual.stop();
  }
});

test('the journal: what clients asked, newest first, filtered, cleared, resized', async () => {
  await srv.ctl.post('journal/clear');
  const operator = await createUser(srv.admin, 'ops', 'ops12345', 'Operators');
  await srv.admin.get('domainConfig/servers?links=none');
  await srv.admin.as(operator).get('domainRuntime/serverLifeCycleRuntimes?links=none');
  await srv.admin.post('edit/servers/nosuch', { listenPort: 9000 });
  const all = await srv.ctl.get('journal');
  assert.equal(all.status, 200, all.text);
  const items = all.json.items;
  // createUser made two requests, then the three above.
  assert.equal(items.length, 5, JSON.stringify(items));
  const [edit, read, servers] = items;
  assert.equal(edit.method, 'POST');
  assert.equal(edit.path, '/management/appserver/latest/edit/servers/nosuch');
  assert.equal(edit.status, 404);
  assert.equal(edit.user, 'admin');
  assert.ok(edit.requestBytes > 0 && edit.responseBytes > 0, JSON.stringify(edit));
  assert.equal(read.user, 'ops');
  assert.equal(read.status, 200);
  assert.equal(servers.path, '/management/appserver/latest/domainConfig/servers?links=none');
  assert.ok(typeof servers.durationMs === 'number' && servers.durationMs >= 0);
  assert.ok(items.every((e: { path: string }) => !e.path.includes('appserver-control')), 'control requests are not journaled');

  const byUser = await srv.ctl.get('journal?user=ops');
  assert.deepEqual(byUser.json.items.map((e: { user: string }) => e.user), ['ops']);
  const posts = await srv.ctl.get('journal?method=post&path=*/edit/*');
  assert.deepEqual(posts.json.items.map((e: { path: string }) => e.path), ['/management/appserver/latest/edit/servers/nosuch']);
  assert.equal((await srv.ctl.get('journal?status=404')).json.items.length, 1);
  assert.equal((await srv.ctl.get('journal?path=serverLifeCycle')).json.items.length, 1);
  assert.equal((await srv.ctl.get('journal?limit=2')).json.items.length, 2);
  const after = await srv.ctl.get(`journal?after=${servers.id}`);
  assert.deepEqual(after.json.items.map((e: { id: number }) => e.id), [edit.id, read.id]);
  errorDetails(await srv.ctl.get('journal?limit=0'), 400);
  errorDetails(await srv.ctl.get('journal?colour=red'), 400);

  const resized = await srv.ctl.post('journal/configure', { capacity: 2 });
  assert.equal(resized.json.capacity, 2);
  assert.equal(resized.json.size, 2);
  await srv.admin.get('domainConfig?links=none');
  const kept = (await srv.ctl.get('journal')).json.items.map((e: { path: string }) => e.path);
  assert.deepEqual(kept, ['/management/appserver/latest/domainConfig?links=none', '/management/appserver/latest/edit/servers/nosuch']);
  errorDetails(await srv.ctl.post('journal/configure', { capacity: 0 }), 400);
  const cleared = await srv.ctl.post(linkOf(resized.json, 'action', 'clear'));
  assert.equal(cleared.json.size, 0);
  assert.deepEqual((await srv.ctl.get('journal')).json.items, []);
});
