// Server lifecycle over HTTP on a manual clock: start/suspend/resume/forceSuspend/shutdown of a
// managed server answer at once with their task (202 + Location + a `job` link), the task completes
// when the clock moves, the domain runtime follows; illegal transitions are refused and change
// nothing; `Prefer: wait=0` is asynchronous too; Operators may start and stop servers, Monitors and
// Deployers may not.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ASYNC,
  type Client,
  type RuntimeServer,
  assertAccepted,
  completed,
  createUser,
  errorDetails,
  names,
  startRuntimeServer,
} from '../support/runtime-server.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
});

after(async () => {
  await srv.stop(true);
});

async function lcState(server: string): Promise<string> {
  const r = await admin.get(`${LC}/${server}?links=none&fields=state`);
  assert.equal(r.status, 200, r.text);
  return r.json.state;
}

const taskNames = (server: string) => names(admin, `${LC}/${server}/tasks`);
const running = () => names(admin, 'domainRuntime/serverRuntimes');

/**
 * Runs one lifecycle operation with respond-async: checks the 202 answer and the transitional
 * state, moves the clock, and checks the completed task and the final state.
 */
async function step(server: string, op: string, expect: { operation: string; via: string; to: string; ms: number }): Promise<any> {
  const r = await admin.post(`${LC}/${server}/${op}`, {}, ASYNC);
  const location = assertAccepted(r, `${op} ${server}`);
  assert.equal(location, `${srv.latest}/${LC}/${server}/tasks/${r.json.name}`);
  assert.equal(r.json.operation, expect.operation);
  assert.equal(r.json.taskStatus, 'TASK IN PROGRESS');
  assert.equal(await lcState(server), expect.via, `${op} ${server}: transitional state`);
  srv.advance(expect.ms);
  const task = await completed(admin, location);
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
  assert.equal(task.progress, 'success');
  assert.equal(task.taskError, null);
  assert.equal(await lcState(server), expect.to, `${op} ${server}: final state`);
  return task;
}

/** An illegal operation: 400 JSON whose detail matches every pattern; state and tasks unchanged. */
async function refused(server: string, op: string, patterns: RegExp[], prefer: Record<string, string> = ASYNC): Promise<void> {
  const state = await lcState(server);
  const tasks = await taskNames(server);
  const r = await admin.post(`${LC}/${server}/${op}`, {}, prefer);
  const [detail] = errorDetails(r, 400, `${op} on ${server} (${state})`);
  for (const p of patterns) assert.match(detail!, p, `${op} on ${server}: detail`);
  assert.equal(await lcState(server), state, `${op} on ${server} changed the state`);
  assert.deepEqual(await taskNames(server), tasks, `${op} on ${server} left a task`);
}

test('start of ms1 answers 202 at once with the running task as its job', async () => {
  assert.equal(await lcState('ms1'), 'SHUTDOWN');
  assert.deepEqual(await running(), ['AdminServer']);
  const r = await admin.post(`${LC}/ms1/start`, {}, ASYNC);
  const location = assertAccepted(r, 'start ms1');
  const name = r.json.name;
  assert.match(name, /^_\d+_start$/);
  assert.equal(location, `${srv.latest}/${LC}/ms1/tasks/${name}`);
  const t = r.json;
  assert.equal(t.type, 'ServerLifeCycleTaskRuntime');
  assert.deepEqual(t.identity, ['serverLifeCycleRuntimes', 'ms1', 'tasks', name]);
  assert.equal(t.operation, 'start');
  assert.equal(t.serverName, 'ms1');
  assert.equal(t.taskStatus, 'TASK IN PROGRESS');
  assert.equal(t.progress, 'processing');
  assert.equal(t.running, true);
  assert.equal(t.completed, false);
  assert.equal(t.endTimeAsLong, -1);
  assert.equal(t.endTime, null);
  assert.equal(t.taskError, null);
  assert.equal(t.parentTask, null);
  assert.equal(t.intervalToPoll, 1000);
  assert.equal(await lcState('ms1'), 'STARTING');
  // Still starting: not yet a running server.
  assert.deepEqual(await running(), ['AdminServer']);

  srv.advance(1999);
  const early = await admin.get(location);
  assert.equal(early.status, 200, early.text);
  assert.equal(early.json.completed, false, 'the start completed before its time');
  assert.equal(await lcState('ms1'), 'STARTING');

  srv.advance(1);
  const done = await completed(admin, location);
  assert.equal(done.taskStatus, 'TASK COMPLETED');
  assert.equal(done.progress, 'success');
  assert.equal(done.running, false);
  assert.equal(done.taskError, null);
  assert.equal(done.endTimeAsLong, done.startTimeAsLong + 2000);
  assert.equal(typeof done.endTime, 'string');
  assert.equal(Date.parse(done.endTime), done.endTimeAsLong);
  assert.equal(Date.parse(done.startTime), done.startTimeAsLong);

  assert.equal(await lcState('ms1'), 'RUNNING');
  assert.deepEqual(await running(), ['AdminServer', 'ms1']);
  const ms1 = await admin.get('domainRuntime/serverRuntimes/ms1?links=none');
  assert.equal(ms1.status, 200, ms1.text);
  assert.equal(ms1.json.state, 'RUNNING');
  assert.equal(ms1.json.name, 'ms1');
  assert.deepEqual(ms1.json.identity, []);
  assert.deepEqual(await taskNames('ms1'), [name]);
});

test('suspend, resume, forceSuspend, resume and shutdown move ms1 through ADMIN back to SHUTDOWN', async () => {
  const before = await taskNames('ms1');
  const tasks: string[] = [];
  tasks.push((await step('ms1', 'suspend', { operation: 'suspendWithTimeout', via: 'SUSPENDING', to: 'ADMIN', ms: 300 })).name);
  const suspended = await admin.get('domainRuntime/serverRuntimes/ms1?links=none&fields=state');
  assert.equal(suspended.json.state, 'ADMIN');
  tasks.push((await step('ms1', 'resume', { operation: 'resume', via: 'RESUMING', to: 'RUNNING', ms: 300 })).name);
  tasks.push((await step('ms1', 'forceSuspend', { operation: 'forceSuspend', via: 'FORCE_SUSPENDING', to: 'ADMIN', ms: 300 })).name);
  tasks.push((await step('ms1', 'resume', { operation: 'resume', via: 'RESUMING', to: 'RUNNING', ms: 300 })).name);
  const r = await admin.get('domainRuntime/serverRuntimes/ms1?links=none&fields=state');
  assert.equal(r.json.state, 'RUNNING');
  tasks.push((await step('ms1', 'shutdown', { operation: 'shutdown', via: 'SHUTTING_DOWN', to: 'SHUTDOWN', ms: 1000 })).name);

  assert.deepEqual(await running(), ['AdminServer']);
  const gone = await admin.get('domainRuntime/serverRuntimes/ms1');
  errorDetails(gone, 404, 'serverRuntimes/ms1 after shutdown');
  // The tasks collection keeps every task, in order.
  assert.deepEqual(await taskNames('ms1'), [...before, ...tasks]);
});

test('suspend of a SHUTDOWN server is refused and changes nothing', async () => {
  await refused('ms1', 'suspend', [/SHUTDOWN/, /suspend/]);
});

test('shutdown and forceShutdown of a SHUTDOWN server are refused: it cannot be reached', async () => {
  await refused('ms1', 'shutdown', [/SHUTDOWN/, /cannot be reached/]);
  await refused('ms1', 'forceShutdown', [/SHUTDOWN/, /cannot be reached/]);
});

test('start of a server that is STARTING is refused and changes nothing', async () => {
  const r = await admin.post(`${LC}/ms2/start`, {}, ASYNC);
  const location = assertAccepted(r, 'start ms2');
  assert.equal(await lcState('ms2'), 'STARTING');
  await refused('ms2', 'start', [/STARTING/, /'start'/]);
  await refused('ms2', 'startInAdmin', [/STARTING/, /startInAdmin/]);
  srv.advance(2000);
  await completed(admin, location);
  assert.equal(await lcState('ms2'), 'RUNNING');
});

test('resume of a RUNNING server is refused and changes nothing', async () => {
  assert.equal(await lcState('ms2'), 'RUNNING');
  await refused('ms2', 'resume', [/RUNNING/, /resume/]);
});

test('the administration server cannot be shut down over REST', async () => {
  for (const op of ['shutdown', 'forceShutdown']) await refused('AdminServer', op, [/administration server/]);
  assert.deepEqual((await running())[0], 'AdminServer');
});

test('Prefer: wait=0 answers like respond-async', async () => {
  assert.equal(await lcState('ms2'), 'RUNNING');
  const r = await admin.post(`${LC}/ms2/suspend`, {}, { prefer: 'wait=0' });
  const location = assertAccepted(r, 'suspend ms2 with wait=0');
  assert.equal(location, `${srv.latest}/${LC}/ms2/tasks/${r.json.name}`);
  assert.equal(r.json.taskStatus, 'TASK IN PROGRESS');
  assert.equal(await lcState('ms2'), 'SUSPENDING');
  srv.advance(300);
  assert.equal((await completed(admin, location)).taskStatus, 'TASK COMPLETED');
  assert.equal(await lcState('ms2'), 'ADMIN');
});

test('an operation with nothing to do answers 200 with a FAILED task naming the state, and changes nothing', async () => {
  assert.equal(await lcState('ms2'), 'ADMIN');
  for (const prefer of [{ prefer: 'wait=0' }, ASYNC, { prefer: 'wait=5' }]) {
    const r = await admin.post(`${LC}/ms2/startInAdmin`, {}, prefer);
    assert.equal(r.status, 200, `startInAdmin on ADMIN (${prefer.prefer}): ${r.text}`);
    const href = `${srv.latest}/${LC}/ms2/tasks/${r.json.name}`;
    assert.deepEqual(r.json.links, [{ rel: 'job', href }]);
    assert.equal(r.json.type, 'ServerLifeCycleTaskRuntime');
    assert.equal(r.json.operation, 'startInAdmin');
    assert.equal(r.json.taskStatus, 'FAILED');
    assert.equal(r.json.progress, 'failed');
    assert.equal(r.json.completed, true);
    assert.match(r.json.taskError.message, /Server 'ms2' is already ADMIN/);
    assert.match(r.json.taskError.message, /'startInAdmin' can only be done from SHUTDOWN, FAILED/);
    assert.equal(await lcState('ms2'), 'ADMIN');
    assert.ok((await taskNames('ms2')).includes(r.json.name));
    const got = await admin.get(href);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.taskStatus, 'FAILED');
  }
  // Back to RUNNING for the tests that follow.
  await step('ms2', 'resume', { operation: 'resume', via: 'RESUMING', to: 'RUNNING', ms: 300 });
  // start on RUNNING: the case users meet most.
  const r = await admin.post(`${LC}/ms2/start`, {});
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.taskStatus, 'FAILED');
  assert.match(r.json.taskError.message, /already RUNNING/);
  assert.equal(await lcState('ms2'), 'RUNNING');
});

test('an Operator may start and stop servers; a Monitor and a Deployer may not', async () => {
  const operator = admin.as(await createUser(admin, 'operator1', 'operator-pw1', 'Operators'));
  const monitor = admin.as(await createUser(admin, 'monitor1', 'monitor-pw1', 'Monitors'));
  const deployer = admin.as(await createUser(admin, 'deployer1', 'deployer-pw1', 'Deployers'));

  assert.equal(await lcState('ms1'), 'SHUTDOWN');
  assert.equal(await lcState('ms2'), 'RUNNING');
  for (const [who, c] of [['Monitor', monitor], ['Deployer', deployer]] as const) {
    const read = await c.get(`${LC}/ms1?links=none&fields=state`);
    assert.equal(read.status, 200, `${who} reads the lifecycle runtime: ${read.text}`);
    const tasks1 = await taskNames('ms1');
    const tasks2 = await taskNames('ms2');
    errorDetails(await c.post(`${LC}/ms1/start`, {}, ASYNC), 403, `${who} starts ms1`);
    errorDetails(await c.post(`${LC}/ms2/shutdown`, {}, ASYNC), 403, `${who} shuts ms2 down`);
    errorDetails(await c.post(`${LC}/ms2/forceShutdown`, {}, ASYNC), 403, `${who} force-shuts ms2 down`);
    errorDetails(await c.post(`${LC}/ms2/suspend`, {}, ASYNC), 403, `${who} suspends ms2`);
    assert.equal(await lcState('ms1'), 'SHUTDOWN');
    assert.equal(await lcState('ms2'), 'RUNNING');
    assert.deepEqual(await taskNames('ms1'), tasks1);
    assert.deepEqual(await taskNames('ms2'), tasks2);
  }

  const start = await operator.post(`${LC}/ms1/start`, {}, ASYNC);
  const started = assertAccepted(start, 'Operator starts ms1');
  srv.advance(2000);
  await completed(operator, started);
  assert.equal(await lcState('ms1'), 'RUNNING');
  const stop = await operator.post(`${LC}/ms1/shutdown`, {}, ASYNC);
  const stopped = assertAccepted(stop, 'Operator shuts ms1 down');
  srv.advance(1000);
  await completed(operator, stopped);
  assert.equal(await lcState('ms1'), 'SHUTDOWN');
  assert.deepEqual(await running(), ['AdminServer', 'ms2']);
});

test('a server caught starting by a restart of the administration server does not stay STARTING', async () => {
  assert.equal(await lcState('ms1'), 'SHUTDOWN');
  assertAccepted(await admin.post(`${LC}/ms1/start`, {}, ASYNC), 'start ms1');
  assert.equal(await lcState('ms1'), 'STARTING');
  // The restarted process loses the step that would have ended the start.
  srv = await srv.restart();
  admin = srv.admin;
  srv.advance(10_000);
  const state = await lcState('ms1');
  assert.ok(['RUNNING', 'SHUTDOWN'].includes(state), `ms1 is ${state} after the restart; 'start' is refused in that state and nothing completes it`);
});
