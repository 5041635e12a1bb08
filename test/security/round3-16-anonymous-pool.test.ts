// Round 3, item 16: ten anonymous requests to the inventory application's unit of work held every
// connection of the demo pool for five minutes. A unit of work now needs the credentials of a user
// with a role: strangers, wrong passwords and users without a role are answered at once (401, 403)
// and hold nothing. The application's description stays open to all, as a context root is.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, basic, createUser, request, startRuntimeServer } from '../support/runtime-server.js';

const POOL = 'serverRuntime/connectorServiceRuntime/activeRAs/demo-adapter/connectionPools/eis%2Fdemo-adapter';
const WORK = '/inventory/work?pool=eis/demo-adapter&hold=300';

let srv: RuntimeServer;
let admin: Client;
let monitorAuth: string;
let noRoleAuth: string;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  monitorAuth = await createUser(admin, 'monitor16r3', 'Monitor-16r3-pw', 'Monitors');
  // A user in no group: signed in, but with no role.
  const r = await admin.post('serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator/createUser', {
    userName: 'norole16r3',
    password: 'Norole-16r3-pw',
    description: '',
  });
  assert.equal(r.status, 200, r.text);
  noRoleAuth = basic('norole16r3', 'Norole-16r3-pw');
});

after(async () => {
  await srv.stop(true);
});

async function inUse(): Promise<number> {
  const r = await admin.get(`${POOL}?links=none&fields=activeConnectionsCurrentCount,reserveRequestCount`);
  assert.equal(r.status, 200, r.text);
  return r.json.activeConnectionsCurrentCount;
}

test('round 3, item 16: anonymous units of work are refused at once and hold no connection', async () => {
  const capacity = (await admin.get(`${POOL}?links=none`)).json;
  assert.equal(await inUse(), 0);
  // More requests than the pool has connections, all at once, each asking to hold one for 300 s.
  const anonymous = Array.from({ length: 12 }, () => request(`${srv.origin}${WORK}`, { auth: null, signal: AbortSignal.timeout(20_000) }));
  const wrong = Array.from({ length: 3 }, () => request(`${srv.origin}${WORK}`, { auth: basic('admin', 'not-the-password'), signal: AbortSignal.timeout(20_000) }));
  for (const r of await Promise.all([...anonymous, ...wrong])) {
    assert.equal(r.status, 401, r.text);
    assert.equal(r.json?.status, 401, r.text);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic /);
  }
  const noRole = await request(`${srv.origin}${WORK}`, { auth: noRoleAuth, signal: AbortSignal.timeout(20_000) });
  assert.equal(noRole.status, 403, noRole.text);
  assert.equal(noRole.json?.status, 403, noRole.text);
  assert.equal(await inUse(), 0, 'a refused request holds a connection');
  const after = (await admin.get(`${POOL}?links=none`)).json;
  assert.equal(after.connectionsCreatedTotalCount ?? 0, capacity.connectionsCreatedTotalCount ?? 0, 'a refused request made a connection');
});

test('round 3, item 16: the description stays open; a user with a role may still do work', async () => {
  const described = await request(`${srv.origin}/inventory/`, { auth: null });
  assert.equal(described.status, 200, described.text);
  const work = await request(`${srv.origin}/inventory/work?pool=eis/demo-adapter&hold=0`, { auth: monitorAuth });
  assert.equal(work.status, 200, work.text);
  assert.equal(work.json.pool, 'eis/demo-adapter');
  assert.equal(await inUse(), 0, 'the connection went back to the pool');
});
