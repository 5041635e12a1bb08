// Faults on a managed server that listens on its own port: a crash closes the port (clients of the
// server see the connection refused), and a slow server answers late on its own port.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, assertAccepted, job, pollUntil, request } from '../support/runtime-server.js';
import { type ControlServer, startControlServer } from '../support/control.js';
import { freePortOffset, refused } from '../support/ports.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: ControlServer;
let offset: number;

before(async () => {
  offset = await freePortOffset([7003, 7005]);
  srv = await startControlServer({ portOffset: offset });
});

after(async () => {
  await srv?.stop();
});

async function start(server: string): Promise<void> {
  const location = assertAccepted(await srv.admin.post(`${LC}/${server}/start`, {}, ASYNC), `start ${server}`);
  srv.scheduler!.advance(2000);
  // Binding the ports ends the task a moment after the clock moved.
  const task = await pollUntil(() => job(srv.admin, location), (t) => t.completed === true, `start ${server}`);
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
}

const ready = () => request(`http://127.0.0.1:${7003 + offset}/appserver/ready`, { auth: null });

test("a crash closes the server's own port", async () => {
  await start('ms1');
  assert.equal((await ready()).status, 200);
  const crash = await srv.ctl.post('faults', { kind: 'crash', server: 'ms1' });
  assert.equal(crash.status, 201, crash.text);
  await pollUntil(() => refused(7003 + offset), (r) => r, 'the port of the crashed ms1 is closed');
});

test('a slow server answers late on its own port', async () => {
  await start('ms1');
  const fault = await srv.ctl.post('faults', { kind: 'slow', server: 'ms1', latencyMs: 400 });
  assert.equal(fault.status, 201, fault.text);
  const started = Date.now();
  assert.equal((await ready()).status, 200);
  assert.ok(Date.now() - started >= 390, `answered after ${Date.now() - started} ms`);
  await srv.ctl.post('faults/clear');
  assert.deepEqual((await srv.ctl.get('faults')).json.items, []);
});
