// The connections of a resource adapter's pool are beans: listed, tested, deleted when free.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, call, startTestServer } from '../support/server.js';

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
  const holding = fetch(`${srv.origin}/inventory/work?pool=eis/demo-adapter&hold=120`, { signal: abort.signal }).catch(() => undefined);
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
