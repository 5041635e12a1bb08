// Conditional requests (issue 17.3): every bean and collection read carries an ETag; If-None-Match
// answers 304 while nothing changed; a stale If-Match on an update, a delete, a create or an action
// is a 412 that changes nothing, so two clients editing one bean in their own sessions cannot
// overwrite each other unknowingly. Runs on SQLite, and on PostgreSQL with APPSERVER_TEST_PG (where
// two servers sharing the store judge each other's tags too).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertProblem, type Client, createUser, errorItems, ESC, type Reply, serverForTests } from '../support/edit.js';
import { call, type TestServer } from '../support/server.js';
import { sharedStoreAvailable, startSharedPair } from '../support/shared-store.js';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

function etagOf(r: Reply, what: string): string {
  assert.equal(r.status, 200, `${what}: ${r.text.slice(0, 300)}`);
  const tag = r.headers.get('etag');
  assert.ok(tag && /^"[A-Za-z0-9_-]{22}"$/.test(tag), `${what}: ETag ${tag}`);
  return tag;
}

const tagOf = async (c: Client, path: string) => etagOf(await c.get(path), `GET ${path}`);
const valueOf = async (c: Client, path: string, prop: string) => (await c.get(`${path}?links=none`)).json[prop];

/** A 412 in the JSON envelope, naming the header, with the tag the resource has now. */
function assertPreconditionFailed(r: Reply, what: string, current?: string): void {
  assertProblem(errorItems(r, 412, what), /If-(None-)?Match/);
  if (current !== undefined) assert.equal(r.headers.get('etag'), current, `${what}: the 412 names the current tag`);
}

describe('reads carry an ETag; If-None-Match gives 304', () => {
  test('a bean: the same tag whatever fields and links are asked for, 304 while unchanged, a new tag once changed', async () => {
    const path = 'serverConfig/servers/ms1';
    const tag = await tagOf(admin, path);
    assert.equal(await tagOf(admin, path), tag, 'a second read, nothing changed');
    assert.equal(await tagOf(admin, `${path}?fields=name,listenPort&links=none`), tag, 'a read of two fields');
    assert.equal(await tagOf(admin, `${path}?excludeFields=notes&excludeLinks=action`), tag, 'a read without a field');

    const cached = await admin.get(path, { 'if-none-match': tag });
    assert.equal(cached.status, 304, cached.text);
    assert.equal(cached.text, '', 'a 304 has no body');
    assert.equal(cached.headers.get('etag'), tag);
    // Weak comparison, lists and *.
    assert.equal((await admin.get(path, { 'if-none-match': `W/${tag}` })).status, 304, 'the weak form of the tag');
    assert.equal((await admin.get(path, { 'if-none-match': `"nope", ${tag}` })).status, 304, 'a list naming the tag');
    assert.equal((await admin.get(path, { 'if-none-match': '*' })).status, 304, '*');
    const other = await admin.get(path, { 'if-none-match': '"not-this-one"' });
    assert.equal(other.status, 200);
    assert.equal(other.json.name, 'ms1');
    // HEAD answers the same way.
    const head = await fetch(`${srv.latest}/${path}`, { method: 'HEAD', headers: { authorization: admin.auth, 'if-none-match': tag } });
    assert.equal(head.status, 304);

    assert.equal((await admin.post('edit/servers/ms1', { notes: 'moved the tag' })).status, 200);
    const fresh = await admin.get(path, { 'if-none-match': tag });
    assert.equal(fresh.status, 200, 'changed since: the bean is sent again');
    assert.equal(fresh.json.notes, 'moved the tag');
    assert.notEqual(etagOf(fresh, 'after the change'), tag);
  });

  test('a collection: tagged by its items; a change of one item, or a new item, moves it', async () => {
    const tag = await tagOf(admin, 'serverConfig/servers');
    assert.equal(await tagOf(admin, 'serverConfig/servers?links=none&fields=name'), tag);
    assert.equal((await admin.get('serverConfig/servers', { 'if-none-match': tag })).status, 304);
    assert.equal((await admin.post('edit/servers/ms2', { notes: 'an item changed' })).status, 200);
    const afterUpdate = await tagOf(admin, 'serverConfig/servers');
    assert.notEqual(afterUpdate, tag);
    assert.equal((await admin.post('edit/servers', { name: 'cond-new', listenPort: 7701 })).status, 201);
    const afterCreate = await admin.get('serverConfig/servers', { 'if-none-match': afterUpdate });
    assert.equal(afterCreate.status, 200);
    assert.ok(afterCreate.json.items.some((i: { name: string }) => i.name === 'cond-new'));
  });

  test('runtime beans carry a tag of their state; serverRuntimes of the domain runtime too', async () => {
    const path = 'domainRuntime/serverLifeCycleRuntimes/ms1';
    const tag = await tagOf(admin, path);
    assert.equal((await admin.get(path, { 'if-none-match': tag })).status, 304, 'a stopped server does not move');
    await tagOf(admin, 'domainRuntime/serverRuntimes');
    await tagOf(admin, 'serverRuntime/JVMRuntime');
  });

  test('the edit tree is the session view: pending changes move the tag in that session only', async () => {
    const path = 'edit/servers/ms1';
    const before = await tagOf(admin, path);
    await admin.post(`${ESC}`, { name: 'cond-view' });
    const viewer = admin.inSession('cond-view');
    assert.equal(await tagOf(viewer, path), before, 'an untouched session sees the activated bean');
    assert.equal((await viewer.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await viewer.post(path, { notes: 'pending in cond-view' })).status, 200);
    const pending = await tagOf(viewer, path);
    assert.notEqual(pending, before, 'the session shows its pending change');
    assert.equal(await tagOf(admin, path), before, 'the default session does not');
    assert.equal(await tagOf(admin, 'serverConfig/servers/ms1'), await tagOf(admin, 'serverConfig/servers/ms1'));
    assert.equal((await viewer.post('edit/changeManager/cancelEdit', {})).status, 200);
    assert.equal(await tagOf(viewer, path), before, 'cancelled: back to the activated bean');
  });

  test('a malformed condition is a 400 naming the header', async () => {
    const r = await admin.get('serverConfig/servers/ms1', { 'if-none-match': 'no-quotes' });
    assertProblem(errorItems(r, 400), 'If-None-Match', 'If-None-Match');
    const w = await admin.post('edit/servers/ms1', { notes: 'never' }, { 'if-match': '"unterminated' });
    assertProblem(errorItems(w, 400), 'If-Match', 'If-Match');
    assert.notEqual(await valueOf(admin, 'serverConfig/servers/ms1', 'notes'), 'never');
  });
});

describe('If-Match on changes: a stale tag is a 412 and changes nothing', () => {
  test('update: the tag read last works once; the same tag again is stale', async () => {
    const path = 'edit/servers/ms1';
    const tag = await tagOf(admin, path);
    const first = await admin.post(path, { listenPort: 7301 }, { 'if-match': tag });
    assert.equal(first.status, 200, first.text);
    const now = await tagOf(admin, path);
    const stale = await admin.post(path, { listenPort: 7302 }, { 'if-match': tag });
    assertPreconditionFailed(stale, 'a second write with the first tag', now);
    assert.equal(await valueOf(admin, 'serverConfig/servers/ms1', 'listenPort'), 7301, 'the stale write changed nothing');
    assert.equal((await admin.post(path, { listenPort: 7303 }, { 'if-match': '*' })).status, 200, '* matches a bean that exists');
    assert.equal((await admin.post(path, { listenPort: 7304 }, { 'if-match': `W/${await tagOf(admin, path)}` })).status, 412, 'a weak tag never matches If-Match');
    assert.equal((await admin.post(path, { listenPort: 7305 }, { 'if-none-match': await tagOf(admin, path) })).status, 412, 'If-None-Match naming the current tag refuses a change');
    assert.equal(await valueOf(admin, 'serverConfig/servers/ms1', 'listenPort'), 7303);
  });

  test('delete: a stale tag keeps the bean; the current one deletes it', async () => {
    assert.equal((await admin.post('edit/servers', { name: 'cond-del', listenPort: 7702 })).status, 201);
    const tag = await tagOf(admin, 'edit/servers/cond-del');
    assert.equal((await admin.post('edit/servers/cond-del', { notes: 'changed by someone else' })).status, 200);
    assertPreconditionFailed(await admin.del('edit/servers/cond-del', { 'if-match': tag }), 'delete with a stale tag');
    assert.equal((await admin.get('serverConfig/servers/cond-del')).status, 200, 'still there');
    const current = await tagOf(admin, 'edit/servers/cond-del');
    assert.equal((await admin.del('edit/servers/cond-del', { 'if-match': current })).status, 200);
    assert.equal((await admin.get('serverConfig/servers/cond-del')).status, 404);
    assert.equal((await admin.del('edit/servers/cond-del', { 'if-match': current })).status, 404, 'gone: nothing to match');
  });

  test('create: If-Match names the collection, If-None-Match: * creates an optional child only where there is none', async () => {
    const tag = await tagOf(admin, 'edit/clusters');
    assert.equal((await admin.post('edit/clusters', { name: 'cond-c1' }, { 'if-match': tag })).status, 201);
    assertPreconditionFailed(await admin.post('edit/clusters', { name: 'cond-c2' }, { 'if-match': tag }), 'a create against a collection that changed');
    assert.equal((await admin.get('serverConfig/clusters/cond-c2')).status, 404);
    // An optional singleton: absent, then present.
    assert.equal((await admin.post('edit/partitions', { name: 'cond-p' })).status, 201);
    const absent = 'edit/partitions/cond-p/partitionWorkManager';
    assert.equal((await admin.get(absent)).status, 404, 'no work manager yet');
    assertPreconditionFailed(await admin.post(absent, {}, { 'if-match': '*' }), 'If-Match: * where there is nothing');
    const made = await admin.post(absent, {}, { 'if-none-match': '*' });
    assert.equal(made.status, 201, made.text);
    assertPreconditionFailed(await admin.post(absent, { sharedCapacityPercent: 40 }, { 'if-none-match': '*' }), 'the child exists now');
  });

  test('an action: a stale tag of its bean refuses it and starts nothing', async () => {
    const path = 'domainRuntime/serverLifeCycleRuntimes/ms1';
    const before = await admin.get(`${path}?links=none`);
    const wrong = await admin.post(`${path}/start`, {}, { 'if-match': '"stale-tag-of-ms1-000000"', prefer: 'respond-async' });
    assertPreconditionFailed(wrong, 'start with a wrong tag');
    const after = await admin.get(`${path}?links=none`);
    assert.equal(after.json.state, before.json.state, 'the server did not move');
    const tasks = await admin.get(`${path}/tasks?links=none`);
    assert.equal(tasks.json.items.length, 0, 'no task was made');
  });

  test('two clients editing one bean in their own sessions: the second learns of the first instead of overwriting it', async () => {
    const bob = admin.as(await createUser(admin, 'cond-bob', 'cond-bob-pw1', 'Deployers'));
    assert.equal((await admin.post(ESC, { name: 'cond-alice' })).status, 201);
    assert.equal((await admin.post(ESC, { name: 'cond-bob' })).status, 201);
    const alice = admin.inSession('cond-alice');
    const bobs = bob.inSession('cond-bob');
    const path = 'edit/JDBCSystemResources';
    assert.equal((await admin.post(path, { name: 'cond-ds', targets: [] })).status, 201);
    const bean = 'edit/JDBCSystemResources/cond-ds/JDBCResource/JDBCConnectionPoolParams';
    const seenByAlice = await tagOf(alice, bean);
    const seenByBob = await tagOf(bobs, bean);
    assert.equal(seenByAlice, seenByBob, 'both read the same bean');

    // Bob edits in his session (under his lock) and activates.
    assert.equal((await bobs.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await bobs.post(bean, { maxCapacity: 30 }, { 'if-match': seenByBob })).status, 200);
    assert.equal((await bobs.post('edit/changeManager/activate', {})).status, 200);

    // Alice writes with what she read: refused, whether she writes at once or under a lock.
    assertPreconditionFailed(await alice.post(bean, { maxCapacity: 5 }, { 'if-match': seenByAlice }), "alice's implicit write");
    assert.equal((await alice.post('edit/changeManager/startEdit', {})).status, 200);
    assertPreconditionFailed(await alice.post(bean, { maxCapacity: 5 }, { 'if-match': seenByAlice }), "alice's write in her locked session");
    assert.equal(await valueOf(admin, bean.replace('edit/', 'serverConfig/'), 'maxCapacity'), 30, "bob's value stands");
    assert.equal((await changeManagerOf(alice)).hasChanges, false, "nothing entered alice's session");

    // She reads again, sees Bob's value, and decides.
    const reread = await alice.get(`${bean}?links=none`);
    assert.equal(reread.json.maxCapacity, 30);
    assert.equal((await alice.post(bean, { maxCapacity: 40 }, { 'if-match': etagOf(reread, 'reread') })).status, 200);
    assert.equal((await alice.post('edit/changeManager/activate', {})).status, 200);
    assert.equal(await valueOf(admin, bean.replace('edit/', 'serverConfig/'), 'maxCapacity'), 40);
  });

  test('If-Match on activate: the change manager tag covers the pending changes reviewed', async () => {
    assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await admin.post('edit/servers/ms2', { notes: 'reviewed' })).status, 200);
    const reviewed = await tagOf(admin, 'edit/changeManager');
    assert.equal((await admin.post('edit/servers/ms2', { listenPort: 7399 })).status, 200, 'one more change after the review');
    assertPreconditionFailed(await admin.post('edit/changeManager/activate', {}, { 'if-match': reviewed }), 'activate what was not reviewed');
    assert.equal(await valueOf(admin, 'serverConfig/servers/ms2', 'notes'), 'an item changed', 'nothing activated');
    assert.equal((await changeManagerOf(admin)).locked, true, 'the lock is kept');
    const current = await tagOf(admin, 'edit/changeManager');
    assert.equal((await admin.post('edit/changeManager/activate', {}, { 'if-match': current })).status, 200);
    assert.equal(await valueOf(admin, 'serverConfig/servers/ms2', 'listenPort'), 7399);
  });
});

test('the Lifecycle Manager: its resources are tagged, and a stale If-Match keeps a delete from happening', async () => {
  const lc = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    call(`${srv.origin}/management/lifecycle/latest/${path}`, { ...init, headers: { 'x-requested-by': 'conditional-tests', ...init.headers } });
  assert.equal((await lc('environments', { method: 'POST', body: { name: 'cond-env' } })).status, 201);
  const read = await lc('environments/cond-env');
  const tag = etagOf(read, 'GET environments/cond-env');
  assert.equal((await lc('environments/cond-env', { headers: { 'if-none-match': tag } })).status, 304);
  const list = etagOf(await lc('environments'), 'GET environments');
  assert.equal((await lc('environments', { headers: { 'if-none-match': list } })).status, 304);
  assertPreconditionFailed(await lc('environments/cond-env', { method: 'DELETE', headers: { 'if-match': '"an-older-tag-0000000000"' } }), 'delete with a stale tag', tag);
  assert.equal((await lc('environments/cond-env')).status, 200, 'still there');
  assert.equal((await lc('environments/cond-env', { method: 'DELETE', headers: { 'if-match': tag } })).status, 200);
  assert.equal((await lc('environments/cond-env')).status, 404);
});

test('the OpenAPI document describes the tags, the conditions and their answers, the pending diff and dryRun', async () => {
  const r = await admin.get('openapi.json');
  assert.equal(r.status, 200, r.text.slice(0, 300));
  const doc = r.json;
  const refs = (list: { $ref?: string }[]) => list.map((x) => x.$ref);
  assert.ok(doc.components.headers.ETag);
  assert.equal(doc.components.parameters['If-Match'].in, 'header');
  assert.equal(doc.components.parameters['If-None-Match'].in, 'header');
  const server = doc.paths['/appserver/latest/edit/servers/{server}'];
  assert.ok(refs(server.get.parameters).includes('#/components/parameters/If-None-Match'));
  assert.equal(server.get.responses['304'].$ref, '#/components/responses/NotModified');
  assert.ok(refs(server.post.parameters).includes('#/components/parameters/If-Match'));
  assert.equal(server.post.responses['412'].$ref, '#/components/responses/PreconditionFailed');
  assert.ok(refs(server.delete.parameters).includes('#/components/parameters/If-Match'));
  const read = doc.components.responses[server.get.responses['200'].$ref.split('/').pop()];
  assert.ok(read.headers.ETag, 'a read answers with an ETag');
  assert.equal(doc.components.responses.PreconditionFailed.headers.ETag.$ref, '#/components/headers/ETag');
  const activate = doc.paths['/appserver/latest/edit/changeManager/activate'].post;
  assert.ok(refs(activate.parameters).includes('#/components/parameters/If-Match'));
  assert.match(JSON.stringify(doc.components.requestBodies), /dryRun/);
  assert.match(JSON.stringify(doc.components.schemas), /pendingChanges/);
});

async function changeManagerOf(c: Client): Promise<Record<string, unknown>> {
  return (await c.get('edit/changeManager?links=none')).json;
}

test('servers sharing a store: the same tags, and a stale If-Match through one after a change through the other', { skip: !sharedStoreAvailable() && 'needs PostgreSQL (APPSERVER_TEST_PG)' }, async () => {
  const pair = await startSharedPair();
  try {
    const path = 'edit/servers/ms1';
    const viaA = await pair.a.get(path);
    const viaB = await pair.b.get(path);
    const tag = viaA.headers.get('etag');
    assert.ok(tag);
    assert.equal(viaB.headers.get('etag'), tag, 'both servers tag the bean alike');
    assert.equal((await pair.b.get('serverConfig/servers', { 'if-none-match': (await pair.a.get('serverConfig/servers')).headers.get('etag')! })).status, 304);

    assert.equal((await pair.a.post(path, { notes: 'through a' }, { 'if-match': tag })).status, 200);
    const stale = await pair.b.post(path, { notes: 'through b' }, { 'if-match': tag });
    assert.equal(stale.status, 412, stale.text);
    assert.equal((await pair.b.get(`${path}?links=none`)).json.notes, 'through a');
    const now = (await pair.b.get(path)).headers.get('etag')!;
    assert.equal(stale.headers.get('etag'), now);
    assert.equal((await pair.a.get(path)).headers.get('etag'), now);

    // Both at once with the same tag: exactly one wins.
    const [x, y] = await Promise.all([pair.a.post(path, { notes: 'race a' }, { 'if-match': now }), pair.b.post(path, { notes: 'race b' }, { 'if-match': now })]);
    assert.deepEqual([x.status, y.status].sort(), [200, 412], `${x.status} ${x.text} / ${y.status} ${y.text}`);
    const winner = x.status === 200 ? 'race a' : 'race b';
    assert.equal((await pair.a.get(`${path}?links=none`)).json.notes, winner);
  } finally {
    await pair.stop();
  }
});
