// What is answered as done is done, and what is refused left nothing: when the store refuses the
// runtime write that follows a change it already committed (an activation's new servers), the change
// is answered as made and the write is retried until the store takes it; a runtime write refused
// earlier does not turn a later action that did not need it into a refusal.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { storeUnavailable } from '../../src/core/problems.js';
import type { StoredTask } from '../../src/store/store.js';
import { type Client, client } from '../support/edit.js';
import { basic, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
/** While true, the store refuses runtime state and task writes (as an unreachable store does). */
let refusing = false;
let refused = 0;
/** Runtime state keys the store took. */
const written = new Set<string>();

before(async () => {
  srv = await startTestServer();
  admin = client(() => srv.latest);
  const store = srv.server.domain.store;
  const writeRuntimeEntries = store.writeRuntimeEntries.bind(store);
  const putTasks = store.putTasks.bind(store);
  const refuse = () => {
    refused++;
    return storeUnavailable("The domain's store cannot be reached (test); nothing was changed.");
  };
  store.writeRuntimeEntries = async (put: Record<string, unknown>, remove: string[]) => {
    if (refusing) throw refuse();
    await writeRuntimeEntries(put, remove);
    for (const k of Object.keys(put)) written.add(k);
  };
  store.putTasks = async (tasks: StoredTask[]) => {
    if (refusing) throw refuse();
    await putTasks(tasks);
  };
});

after(async () => {
  refusing = false;
  await srv.stop(true);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('an activation stands when the runtime write that follows it is refused; that write is retried', async () => {
  assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
  for (const name of ['ack-1', 'ack-2']) assert.equal((await admin.post('edit/servers', { name })).status, 201);
  refusing = true;
  refused = 0;
  const a = await admin.post('edit/changeManager/activate', {});
  refusing = false;
  assert.ok(refused > 0, 'the store was not asked to write the new servers’ runtime state');
  assert.equal(a.status, 200, `the activation was committed, so it is answered as made: ${a.text}`);
  const servers = await admin.get('domainConfig/servers?fields=name&links=none');
  assert.deepEqual(
    (servers.json.items as { name: string }[]).map((s) => s.name).filter((n) => n.startsWith('ack-')),
    ['ack-1', 'ack-2'],
  );
  const lc = await admin.get('domainRuntime/serverLifeCycleRuntimes/ack-1?fields=state&links=none');
  assert.equal(lc.status, 200, lc.text);
  assert.equal(lc.json.state, 'SHUTDOWN');
  // The refused write is made again by itself once the store takes writes (every 2 s).
  for (let i = 0; i < 80 && ![...written].some((k) => k.includes('ack-1')); i++) await sleep(100);
  assert.ok([...written].some((k) => k.includes('ack-1')), `the new servers' state never reached the store: ${[...written].join(', ')}`);
});

test('a runtime write refused earlier does not refuse a later action that wrote nothing of it', async () => {
  refusing = true;
  refused = 0;
  try {
    const start = await admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, { prefer: 'respond-async' });
    assert.equal(start.status, 503, `a start the store refused: ${start.text}`);
    assert.match(String(start.json.detail), /nothing was changed/);
    assert.ok(refused > 0);
    const lc = await admin.get('domainRuntime/serverLifeCycleRuntimes/ms1?fields=state&links=none');
    assert.equal(lc.json.state, 'SHUTDOWN', 'the refused start was taken back');
    // Users live in the security store, which still takes writes: the user is made, and said so.
    const made = await admin.post('serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator/createUser', {
      userName: 'acked',
      password: 'acked-pw-1',
      description: 'made while runtime writes are refused',
    });
    assert.equal(made.status, 200, `createUser: ${made.text}`);
  } finally {
    refusing = false;
  }
  // The user signs in (in no group, it may read nothing: 403, where a stranger gets 401).
  const me = await client(() => srv.latest, basic('acked', 'acked-pw-1')).get('domainConfig?links=none');
  assert.equal(me.status, 403, me.text);
  assert.match(String(me.json.detail), /User 'acked' has no administrative role/);
});
