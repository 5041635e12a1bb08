// Issue 26, item 3: the product answers 400 to GET domainRuntime/serverRuntimes without
// X-Requested-By while a managed server runs (its fan-out to the servers is refused by their CSRF
// check): JSON, title FAILURE, detail starting "Bad Request". With the header, or while only the
// administration server runs, the read answers 200; a single server's entry is not a fan-out.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RuntimeServer, assertAccepted, job, pollUntil, request, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;

before(async () => {
  srv = await startRuntimeServer();
});

after(async () => {
  await srv?.stop(true);
});

/** A read without X-Requested-By (an exporter's or a script's plain GET). */
const bare = (path: string) => request(`${srv.latest}/${path}`);

test('only the administration server runs: the read needs no header', async () => {
  const r = await bare('domainRuntime/serverRuntimes?links=none&fields=name');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.items.map((i: { name: string }) => i.name), ['AdminServer']);
});

test('while ms1 runs: 400 without X-Requested-By, 200 with it; one server is not a fan-out', async () => {
  const location = assertAccepted(await srv.admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, { prefer: 'respond-async' }), 'start ms1');
  srv.advance(2000);
  const task = await pollUntil(() => job(srv.admin, location), (t) => t.completed === true, 'start ms1');
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));

  const refused = await bare('domainRuntime/serverRuntimes');
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(refused.json.status, 400);
  assert.equal(refused.json.title, 'FAILURE');
  assert.match(refused.json.detail, /^Bad Request/);
  assert.match(refused.json.detail, /X-Requested-By/);
  // An empty header is no header.
  assert.equal((await request(`${srv.latest}/domainRuntime/serverRuntimes`, { headers: { 'x-requested-by': ' ' } })).status, 400);

  const allowed = await srv.admin.get('domainRuntime/serverRuntimes?links=none&fields=name');
  assert.equal(allowed.status, 200, allowed.text);
  assert.deepEqual(allowed.json.items.map((i: { name: string }) => i.name).sort(), ['AdminServer', 'ms1']);
  assert.equal((await bare('domainRuntime/serverRuntimes/ms1?links=none&fields=name')).status, 200);
  assert.equal((await bare('domainRuntime?links=none&fields=name')).status, 200);
});
