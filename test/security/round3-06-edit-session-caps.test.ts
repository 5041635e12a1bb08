// Round 3, item 6: named edit sessions are bounded. Each user may have a few (the per-user cap) and
// the domain a few more (the total cap): one more is refused with a 429 naming the cap, so the
// listing of the sessions stays bounded too. A named session nobody uses for the idle limit is
// discarded with its lock and changes, which is recorded in the audit trail; one in use is kept.
// The server's clock is manual; the caps are small here (3 per user, 5 in all, 2 hours idle).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, createUser, errorDetails, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
const HOUR = 3_600_000;

let srv: RuntimeServer;
let dep: Client;
let other: Client;

before(async () => {
  srv = await startRuntimeServer(undefined, undefined, { sessionLimits: { perUser: 3, total: 5, idleMs: 2 * HOUR } });
  dep = srv.admin.as(await createUser(srv.admin, 'deployer06', 'deployer06-pw', 'Deployers'));
  other = srv.admin.as(await createUser(srv.admin, 'other06', 'other06-pw', 'Deployers'));
});

after(async () => {
  await srv.stop(true);
});

const create = (c: Client, name: string) => c.post(ESC, { name, description: 'round3-06' });

async function listed(): Promise<string[]> {
  const r = await srv.admin.get(`${ESC}?links=none&fields=name`);
  assert.equal(r.status, 200, r.text);
  return r.json.items.map((i: { name: string }) => i.name).sort();
}

test('round3-06: one user past the per-user cap, and anyone past the total cap, get a 429 naming the cap', async () => {
  for (const name of ['d1', 'd2', 'd3']) assert.equal((await create(dep, name)).status, 201, name);
  const mine = await create(dep, 'd4');
  const [perUser] = errorDetails(mine, 429, 'a fourth session of one user');
  assert.match(perUser!, /deployer06.*has 3 named edit sessions.*per-user cap.*--max-edit-sessions-per-user 3/);
  assert.ok(Number(mine.headers.get('retry-after')) > 0);
  for (const name of ['a1', 'a2']) assert.equal((await create(srv.admin, name)).status, 201, name);
  const [total] = errorDetails(await create(other, 'o1'), 429, 'a session past the total cap');
  assert.match(total!, /5 named edit sessions.*total cap.*--max-edit-sessions 5/);
  assert.deepEqual(await listed(), ['a1', 'a2', 'd1', 'd2', 'd3'], 'the listing holds what the caps allow, and no more');
  // Destroying one makes room again.
  assert.equal((await dep.del(`${ESC}/d3`)).status, 200);
  assert.equal((await create(other, 'o1')).status, 201);
});

test('round3-06: a named session unused for the idle limit is discarded with its lock and changes; one in use stays', async () => {
  // a1 is locked by its creator with a change pending; d1 is locked, unchanged; d2 is used again after an hour.
  const s1 = { 'appserver.edit.session': 'a1' };
  const l1 = await srv.admin.post('edit/changeManager/startEdit', { waitTime: 0, timeOut: -1 }, s1);
  assert.equal(l1.status, 200, l1.text);
  const w1 = await srv.admin.post('edit/servers/ms1', { notes: 'pending in a1' }, s1);
  assert.equal(w1.status, 200, w1.text);
  assert.equal((await dep.post('edit/changeManager/startEdit', { waitTime: 0, timeOut: -1 }, { 'appserver.edit.session': 'd1' })).status, 200);
  srv.advance(HOUR);
  const s2 = { 'appserver.edit.session': 'd2' };
  assert.equal((await dep.post('edit/changeManager/startEdit', { waitTime: 0, timeOut: -1 }, s2)).status, 200);
  srv.advance(HOUR + 11 * 60_000);
  // The look for idle sessions runs on the server's clock; its audit record follows.
  const names = await pollUntil(listed, (n) => !n.includes('a1'), 'the idle sessions discarded');
  assert.ok(!names.includes('d1') && !names.includes('a1') && !names.includes('o1'), `idle sessions remain: ${names}`);
  assert.ok(names.includes('d2'), `a session used an hour ago is gone: ${names}`);
  errorDetails(await srv.admin.get('edit/servers/ms1?links=none', s1), 404, 'the discarded session');
  const audit = await srv.admin.get('domainRuntime/auditRecords?links=none');
  const expired = audit.json.items.filter((r: { action: string }) => r.action === 'editSessionExpired');
  const a1 = expired.find((r: { detail: string }) => r.detail.includes("'a1'"));
  assert.ok(a1, JSON.stringify(expired));
  assert.match(a1.detail, /unused for 120 minutes.*edit lock of 'admin'.*1 unactivated change dropped/);
  assert.ok(expired.some((r: { detail: string }) => /'d1'.*edit lock of 'deployer06'/.test(r.detail)), JSON.stringify(expired));
  // The configuration never saw a1's change, and its creator may create sessions again.
  assert.notEqual((await srv.admin.get('domainConfig/servers/ms1?links=none&fields=notes')).json.notes, 'pending in a1');
  assert.equal((await create(dep, 'd5')).status, 201);
});
