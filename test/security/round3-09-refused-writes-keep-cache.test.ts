// Round 3, item 9: requests refused before they could change anything never empty the read cache.
// A read is answered twice (the second from the cache); then strangers and under-privileged users
// send writes that are refused (no credentials, a wrong password, a Monitor's write, a write
// without X-Requested-By, a write to a missing bean), and the read is still answered from the
// cache. An administrator's write that changes something is shown at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, basic, createUser, request, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let monitor: Client;

before(async () => {
  srv = await startRuntimeServer();
  monitor = srv.admin.as(await createUser(srv.admin, 'monitor09', 'monitor09-pw', 'Monitors'));
});

after(async () => {
  await srv.stop(true);
});

const READ = 'domainConfig/servers/ms1?links=none&fields=notes,listenPort';
const hits = () => srv.server.api.readCache.hits;

/** Reads READ as the administrator; true when the answer came from the read cache. */
async function fromCache(): Promise<boolean> {
  const before = hits();
  const r = await srv.admin.get(READ);
  assert.equal(r.status, 200, r.text);
  return hits() === before + 1;
}

test('round3-09: refused or invalid writes leave the read cache as it was; an accepted write empties it', async () => {
  await fromCache();
  assert.equal(await fromCache(), true, 'the second read comes from the cache');
  const write = `${srv.latest}/edit/servers/ms1`;
  const refusals: [string, () => Promise<{ status: number }>, number][] = [
    ['an anonymous POST', () => request(write, { method: 'POST', body: { notes: 'x' }, auth: null, headers: { 'x-requested-by': 't' } }), 401],
    ['an anonymous DELETE', () => request(`${srv.latest}/edit/servers/ms2`, { method: 'DELETE', auth: null, headers: { 'x-requested-by': 't' } }), 401],
    ['a wrong password', () => request(write, { method: 'POST', body: { notes: 'x' }, auth: basic('admin', 'not-the-password'), headers: { 'x-requested-by': 't' } }), 401],
    ['a malformed Authorization header', () => request(write, { method: 'POST', body: { notes: 'x' }, auth: 'Basic !!!', headers: { 'x-requested-by': 't' } }), 401],
    ['a Monitor’s write', () => monitor.post('edit/servers/ms1', { notes: 'x' }), 403],
    ['a Monitor’s action', () => monitor.post('domainRuntime/serverLifeCycleRuntimes/ms1/start'), 403],
    ['a write without X-Requested-By', () => request(write, { method: 'POST', body: { notes: 'x' } }), 400],
    ['a POST to a missing bean', () => srv.admin.post('edit/servers/nowhere09', { notes: 'x' }), 404],
  ];
  for (const [what, send, status] of refusals) {
    const r = await send();
    assert.equal(r.status, status, what);
    assert.equal(await fromCache(), true, `${what} (${status}) emptied the read cache`);
  }
  // A write that changes the domain: the next read is made anew and shows it.
  const ok = await srv.admin.post('edit/servers/ms1', { notes: 'changed by round3-09' });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(await fromCache(), false, 'the read after an accepted write is made anew');
  const r = await srv.admin.get(READ);
  assert.equal(r.json.notes, 'changed by round3-09');
});
