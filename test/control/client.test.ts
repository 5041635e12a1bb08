// The control interface from the typed client (`appserver-admin/client`), as a test suite of a tool
// would use it: reset, freeze, a fault, advance, read the task and the journal, a snapshot round trip.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppserverClient, AppserverError, ControlClient, type Task } from 'appserver-admin/client';
import { type ControlServer, startControlServer } from '../support/control.js';

let srv: ControlServer;
let client: AppserverClient;
let control: ControlClient;

before(async () => {
  srv = await startControlServer({ manual: false });
  client = new AppserverClient({ url: srv.origin, user: 'admin', password: 'welcome1' });
  control = new ControlClient(client);
});

after(async () => {
  await srv.stop();
});

test('faults, clock, snapshots and journal through ControlClient', async () => {
  await control.reset();
  await control.clearJournal();
  const frozen = await control.freeze();
  assert.equal(frozen.frozen, true);
  const fault = await control.addFault({ kind: 'startFailure', server: 'ms2', message: 'no licence' });
  assert.equal(fault.active, true);
  assert.deepEqual((await control.faults()).map((f) => f.name), [fault.name]);

  const r = await client.request('POST', 'domainRuntime/serverLifeCycleRuntimes/ms2/start', { prefer: 'respond-async' });
  assert.equal(r.status, 202);
  await control.advance(2000);
  const task = (await client.get(r.headers.get('location')!)) as unknown as Task;
  assert.equal(task.taskStatus, 'FAILED');
  assert.equal((await client.get('domainRuntime/serverLifeCycleRuntimes/ms2')).state, 'FAILED');

  const journal = await control.journal({ method: 'POST', path: '*/ms2/start' });
  assert.equal(journal.length, 1);
  assert.equal(journal[0]!.status, 202);

  await control.saveSnapshot('failed-ms2');
  await control.reset();
  assert.equal((await client.get('domainRuntime/serverLifeCycleRuntimes/ms2')).state, 'SHUTDOWN');
  await control.restoreSnapshot('failed-ms2');
  assert.equal((await client.get('domainRuntime/serverLifeCycleRuntimes/ms2')).state, 'FAILED');
  assert.deepEqual((await control.snapshots()).map((s) => s.name), ['failed-ms2']);
  await control.deleteSnapshot('failed-ms2');

  await assert.rejects(() => control.addFault({ kind: 'crash', server: 'nosuch' }), (err: unknown) => err instanceof AppserverError && err.status === 400);
  await control.removeFault(fault.name);
  assert.deepEqual(await control.faults(), []);
  assert.equal((await control.resume()).frozen, false);
  assert.equal((await control.setTimings({ preset: 'instant' })).timings.serverStart, 0);
});
