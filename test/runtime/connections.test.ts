// The connections of a resource adapter's pool are beans: listed, tested, deleted when free.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, adminAuth, call, startTestServer } from '../support/server.js';

let srv: TestServer;
let pool: string;

before(async () => {
  srv = await startTestServer();
  pool = `${srv.latest}/serverRuntime/connectorServiceRuntime/activeRAs/demo-adapter/connectionPools/eis%2Fdemo-adapter`;
});

after(async () => {
  await srv.stop(true);
});

const post = (url: string) => call(url, { method: 'POST', body: {}, headers: { 'x-requested-by': 'connections-test' } });

async function connections(): Promise<{ name: string; currentlyInUse: boolean }[]> {
  const r = await call(`${pool}/connections?links=none&fields=name,currentlyInUse`);
  assert.equal(r.status, 200, r.text);
  return r.json.items;
}

/** Polls (a request at a time, no fixed sleeps) until the pool reaches a condition. */
async function until(what: string, ok: (list: { currentlyInUse: boolean }[]) => boolean): Promise<{ name: string; currentlyInUse: boolean }[]> {
  for (let i = 0; i < 2000; i++) {
    const list = await connections();
    if (ok(list)) return list;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`the pool never reached: ${what}`);
}

test('a held connection is listed in use, cannot be deleted, and can be once released', async () => {
  const abort = new AbortController();
  const holding = fetch(`${srv.origin}/inventory/work?pool=eis/demo-adapter&hold=120`, { headers: { authorization: adminAuth }, signal: abort.signal }).catch(() => undefined);
  const list = await until('a connection in use', (l) => l.some((c) => c.currentlyInUse));
  const used = list.find((c) => c.currentlyInUse)!;
  const refused = await post(`${pool}/connections/${used.name}/delete`);
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.json.detail, /in use/);
  assert.deepEqual((await post(`${pool}/connections/${used.name}/testConnection`)).json, { return: true });
  assert.deepEqual((await post(`${pool}/connections/${used.name}/hasError`)).json, { return: false });
  abort.abort();
  await holding;
  await until('no connection in use', (l) => l.length > 0 && l.every((c) => !c.currentlyInUse));
  const before = (await call(`${pool}?links=none&fields=connectionsDestroyedTotalCount`)).json.connectionsDestroyedTotalCount;
  assert.deepEqual((await post(`${pool}/connections/${used.name}/delete`)).json, {});
  assert.ok(!(await connections()).some((c) => c.name === used.name), 'the deleted connection is still listed');
  const afterCount = (await call(`${pool}?links=none&fields=connectionsDestroyedTotalCount`)).json.connectionsDestroyedTotalCount;
  assert.equal(afterCount, before + 1);
  assert.equal((await call(`${pool}/connections/${used.name}`)).status, 404);
});

test('asyncSuspend and asyncShutdown of a data source are tasks in its tasks collection, the last one in lastTask', async () => {
  const ds = `${srv.latest}/serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds`;
  const act = (op: string) => call(`${ds}/${op}`, { method: 'POST', body: { operationSecs: 0 }, headers: { 'x-requested-by': 'connections-test', prefer: 'wait=5' } });
  const suspended = await act('asyncSuspend');
  assert.equal(suspended.status, 200, suspended.text);
  assert.equal(suspended.json.type, 'JDBCDataSourceTaskRuntime');
  assert.equal(suspended.json.taskStatus, 'TASK COMPLETED');
  assert.equal(suspended.json.links[0].rel, 'job');
  assert.equal((await call(`${ds}?links=none&fields=state`)).json.state, 'Suspended');
  const again = await act('asyncSuspend');
  assert.equal(again.status, 400, 'a suspended data source cannot be suspended again');
  const shut = await act('asyncShutdown');
  assert.equal(shut.json.taskStatus, 'TASK COMPLETED');
  const view = await call(`${ds}?links=none&fields=state,lastTask`);
  assert.equal(view.json.state, 'Shutdown');
  assert.deepEqual(view.json.lastTask.slice(-2), ['tasks', shut.json.name]);
  const tasks = await call(`${ds}/tasks?links=none&fields=name`);
  assert.deepEqual(tasks.json.items.map((t: { name: string }) => t.name), [suspended.json.name, shut.json.name]);
  assert.equal((await call(`${ds}/start`, { method: 'POST', body: {}, headers: { 'x-requested-by': 'connections-test' } })).status, 200);
});
