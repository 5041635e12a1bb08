// Partition and resource-group lifecycles over HTTP on a manual clock: the spec's transition table
// walked on partition2 (targeted to cluster1, with ms1 and ms2 running) and on partition1 (on the
// administration server); partition tasks with one sub-task per server; resource groups taking
// their data sources down and up; forceRestartPartition on the server runtime; purgeTasks; and the
// desired states surviving a restart of the server process.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ASYNC,
  type Client,
  type RuntimeServer,
  assertAccepted,
  completed,
  errorDetails,
  names,
  startRuntimeServer,
} from '../support/runtime-server.js';

const plc = (p: string) => `domainRuntime/domainPartitionRuntimes/${p}/partitionLifeCycleRuntime`;
const rgPath = (p: string, rg: string) => `${plc(p)}/resourceGroupLifeCycleRuntimes/${rg}`;
const P1_DS = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans';

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  // partition2 needs running targets: start both servers of cluster1.
  const jobs = [];
  for (const s of ['ms1', 'ms2']) jobs.push(assertAccepted(await admin.post(`domainRuntime/serverLifeCycleRuntimes/${s}/start`, {}, ASYNC), `start ${s}`));
  srv.advance(2000);
  for (const j of jobs) await completed(admin, j);
  assert.deepEqual(await names(admin, 'domainRuntime/serverRuntimes'), ['AdminServer', 'ms1', 'ms2']);
});

after(async () => {
  await srv?.stop(true);
});

interface PState {
  state: string;
  subState: string | null;
}

async function pstate(p: string): Promise<PState> {
  const r = await admin.get(`${plc(p)}?links=none&fields=state,subState`);
  assert.equal(r.status, 200, r.text);
  return { state: r.json.state, subState: r.json.subState };
}

async function onServer(p: string, server: string): Promise<PState> {
  const s = await admin.post(`${plc(p)}/getState`, { serverName: server });
  assert.equal(s.status, 200, `getState ${p} on ${server}: ${s.text}`);
  const sub = await admin.post(`${plc(p)}/getSubState`, { serverName: server });
  assert.equal(sub.status, 200, `getSubState ${p} on ${server}: ${sub.text}`);
  return { state: s.json.return, subState: sub.json.return };
}

const partitionRuntimes = (server: string) => names(admin, `domainRuntime/serverRuntimes/${server}/partitionRuntimes`);
const partitionTasks = (p: string) => names(admin, `${plc(p)}/tasks`);

const SHUTDOWN_HALTED = { state: 'SHUTDOWN', subState: 'HALTED' };
const SHUTDOWN_BOOTED = { state: 'SHUTDOWN', subState: 'BOOTED' };
const RUNNING = { state: 'RUNNING', subState: null };
const ADMIN = { state: 'ADMIN', subState: null };

/** A partition operation with respond-async: 202 task, then completed after `ms`. Returns the task URL and body. */
async function partitionOp(p: string, op: string, body: Record<string, unknown>, operation: string, ms = 500): Promise<{ location: string; task: any }> {
  const r = await admin.post(`${plc(p)}/${op}`, body, ASYNC);
  const location = assertAccepted(r, `${op} ${p}`);
  assert.equal(location, `${srv.latest}/${plc(p)}/tasks/${r.json.name}`);
  assert.equal(r.json.type, 'PartitionLifeCycleTaskRuntime');
  assert.equal(r.json.operation, operation);
  assert.match(r.json.name, new RegExp(`^_\\d+_${operation}$`));
  assert.equal(r.json.partitionName, p);
  assert.equal(r.json.taskStatus, 'TASK IN PROGRESS');
  srv.advance(ms);
  const task = await completed(admin, location);
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
  assert.equal(task.progress, 'success');
  return { location, task };
}

async function subTasks(location: string): Promise<{ serverName: string; taskStatus: string; operation: string }[]> {
  const r = await admin.get(`${location}/subTasks?links=none&fields=serverName,taskStatus,operation`);
  assert.equal(r.status, 200, r.text);
  return [...r.json.items].sort((a, b) => a.serverName.localeCompare(b.serverName));
}

/** A refused partition operation: 400, the detail matching, state and tasks unchanged. */
async function refused(p: string, op: string, body: Record<string, unknown>, patterns: RegExp[]): Promise<string[]> {
  const state = await pstate(p);
  const tasks = await partitionTasks(p);
  const r = await admin.post(`${plc(p)}/${op}`, body, ASYNC);
  const details = errorDetails(r, 400, `${op} ${JSON.stringify(body)} on ${p} (${state.state})`);
  for (const re of patterns) assert.ok(details.some((d) => re.test(d)), `${op} on ${p}: no detail matching ${re} in ${JSON.stringify(details)}`);
  assert.deepEqual(await pstate(p), state, `${op} on ${p} changed the state`);
  assert.deepEqual(await partitionTasks(p), tasks, `${op} on ${p} left a task`);
  return details;
}

// ---- partition2 (vt2 -> cluster1: ms1, ms2) ----

test('partition2 starts SHUTDOWN/HALTED with no partition runtime anywhere', async () => {
  assert.deepEqual(await pstate('partition2'), SHUTDOWN_HALTED);
  for (const s of ['ms1', 'ms2']) {
    assert.deepEqual(await onServer('partition2', s), SHUTDOWN_HALTED);
    assert.ok(!(await partitionRuntimes(s)).includes('partition2'));
  }
});

test('boot: SHUTDOWN/HALTED -> SHUTDOWN/BOOTED, still no partition runtime', async () => {
  const r = await admin.post(`${plc('partition2')}/boot`, {}, ASYNC);
  const location = assertAccepted(r, 'boot partition2');
  assert.equal(r.json.operation, 'BOOT');
  srv.advance(500);
  await completed(admin, location);
  assert.deepEqual(await pstate('partition2'), SHUTDOWN_BOOTED);
  for (const s of ['ms1', 'ms2']) {
    assert.deepEqual(await onServer('partition2', s), SHUTDOWN_BOOTED);
    assert.ok(!(await partitionRuntimes(s)).includes('partition2'));
  }
});

test('start: -> RUNNING on ms1 and ms2, one sub-task per targeted server', async () => {
  const r = await admin.post(`${plc('partition2')}/start`, {}, ASYNC);
  const location = assertAccepted(r, 'start partition2');
  assert.equal(r.json.operation, 'START');
  assert.equal(r.json.serverName, '');
  assert.equal((await pstate('partition2')).state, 'STARTING');
  srv.advance(500);
  const task = await completed(admin, location);
  assert.equal(task.taskStatus, 'TASK COMPLETED');
  assert.equal(task.progress, 'success');
  assert.deepEqual(await pstate('partition2'), RUNNING);
  const subs = await subTasks(location);
  assert.deepEqual(subs.map((s) => s.serverName), ['ms1', 'ms2']);
  for (const s of subs) {
    assert.equal(s.taskStatus, 'TASK COMPLETED');
    assert.equal(s.operation, 'START');
  }
  for (const s of ['ms1', 'ms2']) {
    assert.deepEqual(await onServer('partition2', s), RUNNING);
    assert.ok((await partitionRuntimes(s)).includes('partition2'), `no partitionRuntimes/partition2 on ${s}`);
    const pr = await admin.get(`domainRuntime/serverRuntimes/${s}/partitionRuntimes/partition2?links=none&fields=state`);
    assert.equal(pr.json.state, 'RUNNING');
  }
  assert.ok(!(await partitionRuntimes('AdminServer')).includes('partition2'));
});

test('forceSuspend: RUNNING -> ADMIN; resume: ADMIN -> RUNNING', async () => {
  await partitionOp('partition2', 'forceSuspend', {}, 'FORCE_SUSPEND');
  assert.deepEqual(await pstate('partition2'), ADMIN);
  for (const s of ['ms1', 'ms2']) {
    assert.deepEqual(await onServer('partition2', s), ADMIN);
    const pr = await admin.get(`domainRuntime/serverRuntimes/${s}/partitionRuntimes/partition2?links=none&fields=state`);
    assert.equal(pr.json.state, 'ADMIN');
  }
  await partitionOp('partition2', 'resume', {}, 'RESUME');
  assert.deepEqual(await pstate('partition2'), RUNNING);
  for (const s of ['ms1', 'ms2']) assert.deepEqual(await onServer('partition2', s), RUNNING);
});

test('boot of a RUNNING partition is refused and changes nothing', async () => {
  await refused('partition2', 'boot', {}, [/RUNNING/, /boot/]);
});

// operations.md B.3: an operation whose success state the partition is already in has nothing to
// do and completes at once (the server's choice, documented in docs/compatibility.md).
test('resume of a RUNNING partition completes at once and changes nothing', async () => {
  const state = await pstate('partition2');
  const r = await admin.post(`${plc('partition2')}/resume`, {}, ASYNC);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.taskStatus, 'TASK COMPLETED');
  assert.equal(r.json.operation, 'RESUME');
  assert.deepEqual(await pstate('partition2'), state);
});

test("start with an initialState other than RUNNING or ADMIN is refused", async () => {
  await refused('partition2', 'start', { initialState: 'STANDBY' }, []);
  const details = await refused('partition2', 'start', { initialState: 'STANDBY', timeOut: 60000 }, [/"ADMIN" or "RUNNING"/]);
  assert.ok(details.some((d) => d.includes('initialState')), `the error does not name initialState: ${JSON.stringify(details)}`);
});

test('halt: RUNNING -> SHUTDOWN/HALTED, the partition runtimes go away', async () => {
  await partitionOp('partition2', 'halt', {}, 'HALT');
  assert.deepEqual(await pstate('partition2'), SHUTDOWN_HALTED);
  for (const s of ['ms1', 'ms2']) {
    assert.deepEqual(await onServer('partition2', s), SHUTDOWN_HALTED);
    assert.ok(!(await partitionRuntimes(s)).includes('partition2'), `partitionRuntimes/partition2 still on ${s}`);
  }
});

test('a resource group of a halted partition cannot be started', async () => {
  const path = rgPath('partition2', 'partition2-rg');
  const before = await names(admin, `${path}/tasks`);
  for (const op of ['start', 'startInAdmin']) {
    const [detail] = errorDetails(await admin.post(`${path}/${op}`, {}, ASYNC), 400, `${op} partition2-rg`);
    assert.match(detail!, /partition2/);
    assert.match(detail!, /HALTED/);
  }
  assert.deepEqual(await names(admin, `${path}/tasks`), before);
  assert.equal((await admin.get(`${path}?links=none&fields=state`)).json.state, 'SHUTDOWN');
});

test('start with targetNames [ms1] moves ms1 only', async () => {
  const { location } = await partitionOp('partition2', 'start', { targetNames: ['ms1'] }, 'START');
  assert.deepEqual((await subTasks(location)).map((s) => s.serverName), ['ms1']);
  assert.deepEqual(await onServer('partition2', 'ms1'), RUNNING);
  assert.deepEqual(await onServer('partition2', 'ms2'), SHUTDOWN_HALTED);
  assert.ok((await partitionRuntimes('ms1')).includes('partition2'));
  assert.ok(!(await partitionRuntimes('ms2')).includes('partition2'));
  // The partition reports its highest state over its servers.
  assert.deepEqual(await pstate('partition2'), RUNNING);
});

// ---- partition1 (vt1 -> AdminServer) ----

test('partition1 walks the table on the administration server', async () => {
  const dsNames = () => names(admin, P1_DS);
  assert.deepEqual(await pstate('partition1'), RUNNING);
  assert.deepEqual(await onServer('partition1', 'AdminServer'), RUNNING);
  assert.ok((await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));
  assert.deepEqual(await dsNames(), ['partition1-ds']);

  await partitionOp('partition1', 'forceSuspend', {}, 'FORCE_SUSPEND');
  assert.deepEqual(await pstate('partition1'), ADMIN);
  await partitionOp('partition1', 'resume', {}, 'RESUME');
  assert.deepEqual(await pstate('partition1'), RUNNING);

  await partitionOp('partition1', 'halt', {}, 'HALT');
  assert.deepEqual(await pstate('partition1'), SHUTDOWN_HALTED);
  assert.deepEqual(await onServer('partition1', 'AdminServer'), SHUTDOWN_HALTED);
  assert.ok(!(await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));

  await partitionOp('partition1', 'boot', {}, 'BOOT');
  assert.deepEqual(await pstate('partition1'), SHUTDOWN_BOOTED);
  assert.ok(!(await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));

  const { location } = await partitionOp('partition1', 'start', {}, 'START');
  assert.deepEqual((await subTasks(location)).map((s) => s.serverName), ['AdminServer']);
  assert.deepEqual(await pstate('partition1'), RUNNING);
  assert.ok((await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));
  assert.deepEqual(await dsNames(), ['partition1-ds']);
});

test('resource group partition1-rg: forceShutdown/start and forceSuspend/resume', async () => {
  const path = rgPath('partition1', 'partition1-rg');
  const rgState = async () => (await admin.get(`${path}?links=none&fields=state`)).json.state;
  const dsNames = () => names(admin, P1_DS);
  const rgOp = async (op: string, operation: string, via: string, to: string) => {
    const r = await admin.post(`${path}/${op}`, {}, ASYNC);
    const location = assertAccepted(r, `${op} partition1-rg`);
    assert.equal(location, `${srv.latest}/${path}/tasks/${r.json.name}`);
    assert.equal(r.json.type, 'ResourceGroupLifeCycleTaskRuntime');
    assert.equal(r.json.operation, operation);
    assert.equal(r.json.resourceGroupName, 'partition1-rg');
    assert.equal(await rgState(), via);
    srv.advance(300);
    const task = await completed(admin, location);
    assert.equal(task.taskStatus, 'TASK COMPLETED');
    assert.equal(await rgState(), to);
    return r.json.name as string;
  };
  assert.equal(await rgState(), 'RUNNING');
  const tasks = [];
  tasks.push(await rgOp('forceShutdown', 'FORCE_SHUTDOWN', 'FORCE_SHUTTING_DOWN', 'SHUTDOWN'));
  assert.deepEqual(await dsNames(), [], 'the data source of a shut-down resource group still has a runtime');
  const gone = await admin.get(`${P1_DS}/partition1-ds`);
  errorDetails(gone, 404, 'data source runtime of a shut-down resource group');
  // The partition itself is still running.
  assert.deepEqual(await pstate('partition1'), RUNNING);

  tasks.push(await rgOp('start', 'START', 'STARTING', 'RUNNING'));
  assert.deepEqual(await dsNames(), ['partition1-ds']);
  tasks.push(await rgOp('forceSuspend', 'FORCE_SUSPEND', 'FORCE_SUSPENDING', 'ADMIN'));
  tasks.push(await rgOp('resume', 'RESUME', 'RESUMING', 'RUNNING'));
  assert.deepEqual(await dsNames(), ['partition1-ds']);
  assert.deepEqual(await names(admin, `${path}/tasks`), tasks);
});

test('serverRuntime/forceRestartPartition halts partition1 and returns it to RUNNING', async () => {
  assert.deepEqual(await pstate('partition1'), RUNNING);
  const r = await admin.post('serverRuntime/forceRestartPartition', { partitionName: 'partition1', timeout: 100 }, ASYNC);
  const location = assertAccepted(r, 'forceRestartPartition');
  assert.equal(location, `${srv.latest}/${plc('partition1')}/tasks/${r.json.name}`);
  assert.equal(r.json.partitionName, 'partition1');
  assert.notDeepEqual(await pstate('partition1'), RUNNING, 'nothing happened before the clock moved');
  srv.advance(500);
  // Halted on the server, waiting `timeout` ms before coming back.
  assert.deepEqual(await onServer('partition1', 'AdminServer'), SHUTDOWN_HALTED);
  assert.ok(!(await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));
  srv.advance(100);
  const task = await completed(admin, location);
  assert.equal(task.taskStatus, 'TASK COMPLETED');
  assert.deepEqual(await pstate('partition1'), RUNNING);
  assert.deepEqual(await onServer('partition1', 'AdminServer'), RUNNING);
  assert.ok((await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));
  assert.deepEqual(await names(admin, P1_DS), ['partition1-ds']);
});

test('purgeTasks removes the completed tasks and keeps the running one', async () => {
  assert.ok((await partitionTasks('partition1')).length > 1);
  const r = await admin.post(`${plc('partition1')}/shutdown`, {}, ASYNC);
  const location = assertAccepted(r, 'shutdown partition1');
  assert.equal(r.json.operation, 'SHUTDOWN');
  const purge = await admin.post(`${plc('partition1')}/purgeTasks`, {});
  assert.equal(purge.status, 200, purge.text);
  assert.deepEqual(purge.json, {});
  assert.deepEqual(await partitionTasks('partition1'), [r.json.name]);
  srv.advance(500);
  await completed(admin, location);
  assert.deepEqual(await pstate('partition1'), SHUTDOWN_BOOTED);
  await admin.post(`${plc('partition1')}/purgeTasks`, {});
  assert.deepEqual(await partitionTasks('partition1'), []);
  errorDetails(await admin.get(location), 404, 'a purged task');
});

test('the desired states of the partitions survive a restart of the server process', async () => {
  // partition2 on all its servers: halt, then start in admin mode. partition1 is SHUTDOWN/BOOTED.
  await partitionOp('partition2', 'halt', {}, 'HALT');
  await partitionOp('partition2', 'startInAdmin', {}, 'ADMIN');
  assert.deepEqual(await pstate('partition2'), ADMIN);
  assert.deepEqual(await pstate('partition1'), SHUTDOWN_BOOTED);

  srv = await srv.restart();
  admin = srv.admin;
  assert.deepEqual(await pstate('partition1'), SHUTDOWN_BOOTED);
  assert.deepEqual(await pstate('partition2'), ADMIN);
  assert.ok(!(await names(admin, 'serverRuntime/partitionRuntimes')).includes('partition1'));
  // The new clock drives the restored partitions as before.
  await partitionOp('partition1', 'start', {}, 'START');
  assert.deepEqual(await pstate('partition1'), RUNNING);
});

test('a partition caught mid-transition by a restart is not left in the transitional state', async () => {
  assert.deepEqual(await pstate('partition1'), RUNNING);
  // The restarted process loses the step that would have ended the forced suspension.
  assertAccepted(await admin.post(`${plc('partition1')}/forceSuspend`, {}, ASYNC), 'forceSuspend partition1');
  assert.equal((await pstate('partition1')).state, 'FORCE_SUSPENDING');
  srv = await srv.restart();
  admin = srv.admin;
  srv.advance(10_000);
  const after = await pstate('partition1');
  assert.ok(['RUNNING', 'ADMIN'].includes(after.state), `partition1 after the restart: ${JSON.stringify(after)}; no operation leads out of a transitional state`);
  assert.ok(['RUNNING', 'ADMIN'].includes((await onServer('partition1', 'AdminServer')).state));
});
