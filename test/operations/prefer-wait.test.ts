// `Prefer` on the manual clock: how long an invocation that runs a task waits is measured in the
// scheduler's time, so these tests move the clock instead of sleeping. A task still running when
// the wait ends answers 202 with Location; one finishing within answers 200; `respond-async` and
// `wait=0` do not wait; the default wait is 30 s and no wait exceeds 300 s. The task's fields
// (progress, completed, times) follow the clock. Operations the product declares void that run a
// task answer `{}` when done in time; uploads wait the same way.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, type Client, type Reply, type RuntimeServer, assertAccepted, job, request, startRuntimeServer } from '../support/runtime-server.js';

const DS = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds';
const PARTITION = 'serverRuntime/partitionRuntimes/partition1';
/** How long a deployment takes on this server's clock (long enough to outlast the default wait). */
const DEPLOYMENT_MS = 40_000;

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer(undefined, { deployment: DEPLOYMENT_MS });
  admin = srv.admin;
});

after(async () => {
  await srv.stop(true);
});

/** Names in a collection, read without pausing (each read is a round trip through the server). */
async function count(path: string): Promise<number> {
  const r = await admin.get(`${path}?links=none&fields=name`);
  assert.equal(r.status, 200, r.text);
  return r.json.items.length;
}

/**
 * Sends an invocation that creates a task in `tasks`, and returns once the server holds it waiting
 * (the task exists: the server took the request and is waiting for the task as `Prefer` says).
 */
async function waiting(path: string, body: unknown, headers: Record<string, string>, tasks: string): Promise<{ answer: Promise<Reply> }> {
  const before = await count(tasks);
  const answer = admin.post(path, body, headers);
  await appeared(tasks, before);
  // Wrapped: an async function returning the promise itself would wait for it.
  return { answer };
}

/** Reads a collection until it holds more than `before` items. */
async function appeared(path: string, before: number): Promise<void> {
  for (let i = 0; (await count(path)) === before; i++) {
    assert.ok(i < 10_000, `nothing new appeared in ${path}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The data source runs again after each test (a suspended one cannot be suspended again). */
async function resume(): Promise<void> {
  const state = (await admin.get(`${DS}?links=none&fields=state`)).json.state;
  if (state === 'Suspended') assert.equal((await admin.post(`${DS}/resume`, {})).status, 200);
  if (state === 'Shutdown') assert.equal((await admin.post(`${DS}/start`, {})).status, 200);
}

const asyncSuspend = (seconds: number, headers: Record<string, string>) => waiting(`${DS}/asyncSuspend`, { operationSecs: seconds }, headers, `${DS}/tasks`);

test('wait=N: a task done within N seconds of the clock answers 200 with the completed task', async () => {
  await resume();
  const t0 = srv.scheduler.now();
  const pending = await asyncSuspend(3, { prefer: 'wait=5' });
  srv.advance(3000);
  const r = await pending.answer;
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('location'), null);
  assert.equal(r.json.links.length, 1);
  assert.equal(r.json.links[0].rel, 'job');
  assert.equal(r.json.completed, true);
  assert.equal(r.json.progress, 'success');
  assert.equal(r.json.taskStatus, 'TASK COMPLETED');
  assert.equal(r.json.startTimeAsLong, t0);
  assert.equal(r.json.endTimeAsLong, t0 + 3000);
  assert.equal(new Date(r.json.startTime).getTime(), t0);
  assert.equal(new Date(r.json.endTime).getTime(), t0 + 3000);
  assert.equal((await admin.get(`${DS}?links=none&fields=state`)).json.state, 'Suspended');
});

test('wait=N: a task still running after N seconds answers 202 with Location; the job completes as the clock moves on', async () => {
  await resume();
  const t0 = srv.scheduler.now();
  const pending = await asyncSuspend(8, { prefer: 'wait=2' });
  srv.advance(2000);
  const r = await pending.answer;
  const location = assertAccepted(r, 'wait=2 on an 8 s task');
  assert.equal(r.json.progress, 'processing');
  assert.equal(r.json.taskStatus, 'TASK IN PROGRESS');
  assert.equal(r.json.startTimeAsLong, t0);
  assert.equal(r.json.endTimeAsLong, -1);
  assert.equal(r.json.endTime, null);
  srv.advance(5999);
  const still = await job(admin, location);
  assert.equal(still.completed, false, 'done a millisecond early');
  assert.equal(still.progress, 'processing');
  srv.advance(1);
  const done = await job(admin, location);
  assert.equal(done.completed, true);
  assert.equal(done.progress, 'success');
  assert.equal(done.endTimeAsLong, t0 + 8000);
  assert.equal(new Date(done.endTime).getTime(), t0 + 8000);
});

test('respond-async and wait=0 answer at once, without the clock moving', async () => {
  for (const prefer of [ASYNC, { prefer: 'wait=0' }, { prefer: 'respond-async, wait=0' }]) {
    await resume();
    const r = await admin.post(`${DS}/asyncSuspend`, { operationSecs: 1 }, prefer);
    assertAccepted(r, JSON.stringify(prefer));
    srv.advance(1000);
  }
});

test('the default wait is 30 s of the clock: a 20 s task is waited for, a 40 s one is not', async () => {
  await resume();
  const short = await asyncSuspend(20, {});
  srv.advance(20_000);
  assert.equal((await short.answer).status, 200);
  await resume();
  const long = await asyncSuspend(40, {});
  srv.advance(30_000);
  const r = await long.answer;
  const location = assertAccepted(r, 'default wait on a 40 s task');
  srv.advance(10_000);
  assert.equal((await job(admin, location)).completed, true);
});

test('no wait exceeds 300 s, whatever wait=N asks', async () => {
  await resume();
  const pending = await asyncSuspend(350, { prefer: 'wait=400' });
  srv.advance(300_000);
  assertAccepted(await pending.answer, 'wait=400 on a 350 s task');
  srv.advance(50_000);
  await resume();
  const within = await asyncSuspend(250, { prefer: 'wait=400' });
  srv.advance(250_000);
  assert.equal((await within.answer).status, 200);
});

test('a void operation that runs a task answers {} when done in time, else 202 with the task', async () => {
  await resume();
  const tasks = 'domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime/tasks';
  const suspended = await waiting(`${PARTITION}/suspend`, {}, { prefer: 'wait=5' }, tasks);
  srv.advance(500);
  const r = await suspended.answer;
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, {});
  const resumed = await admin.post(`${PARTITION}/resume`, {}, ASYNC);
  const location = assertAccepted(resumed, 'void resume, respond-async');
  assert.equal(resumed.json.partitionName, 'partition1');
  srv.advance(500);
  assert.equal((await job(admin, location)).completed, true);
});

test('an upload waits as Prefer says too: 201 when the deployment completes in time, 202 with its progress object otherwise', async () => {
  const deploy = (name: string, prefer: Record<string, string>) => {
    const form = new FormData();
    form.append('model', `{name: '${name}', targets: [{identity: ['servers', 'AdminServer']}]}`);
    form.append('sourcePath', new Blob([new Uint8Array(Buffer.from('PK a small archive'))]), `${name}.war`);
    return request(admin.url('edit/appDeployments'), { method: 'POST', body: form, auth: admin.auth, headers: { 'x-requested-by': 'prefer-tests', ...prefer } });
  };
  const progress = 'domainRuntime/deploymentManager/deploymentProgressObjects';
  // Counted before each upload: earlier tests may have left progress objects of their own.
  const first = await count(progress);
  const waited = deploy('waited', { prefer: 'wait=60' });
  await appeared(progress, first);
  srv.advance(DEPLOYMENT_MS);
  const r = await waited;
  assert.equal(r.status, 201, r.text);
  assert.match(r.headers.get('location') ?? '', /\/edit\/appDeployments\/waited$/);
  const second = await count(progress);
  const late = deploy('late', {});
  await appeared(progress, second);
  srv.advance(30_000);
  const accepted = await late;
  const location = assertAccepted(accepted, 'default wait on a 40 s deployment');
  assert.match(location, /\/deploymentProgressObjects\/late$/);
  srv.advance(DEPLOYMENT_MS - 30_000);
  assert.equal((await job(admin, location)).state, 'STATE_COMPLETED');
});
