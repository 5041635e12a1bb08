// The record of activations (who, when, what changed, restart required) and the root actions of the
// edit tree, through HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, call, startTestServer } from '../support/server.js';

let srv: TestServer;
const write = { 'x-requested-by': 'records-test' };

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

const post = (path: string, body: unknown) => call(`${srv.latest}/${path}`, { method: 'POST', body, headers: write });
const get = (path: string) => call(`${srv.latest}/${path}`);

test('every activation is recorded: who, when, what changed, and whether a restart is needed', async () => {
  const before = Date.now();
  assert.equal((await post('edit/servers/AdminServer', { listenAddress: '0.0.0.0', notes: 'moved' })).status, 200);
  const records = await get('edit/changeManager/activations?links=none');
  assert.equal(records.status, 200, records.text);
  const newest = records.json.items[0];
  assert.equal(newest.user, 'admin');
  assert.equal(newest.editSession, 'default');
  assert.equal(newest.restartRequired, true);
  assert.ok(Date.parse(newest.startTime) >= before - 1000, newest.startTime);
  const change = newest.changes.find((c: { identity: string[] }) => c.identity.join('/') === 'servers/AdminServer');
  assert.equal(change.operation, 'modify');
  const props = Object.fromEntries(change.properties.map((p: { name: string }) => [p.name, p]));
  assert.deepEqual(
    { old: props.listenAddress.oldValue, new: props.listenAddress.newValue, restart: props.listenAddress.restartRequired },
    { old: '127.0.0.1', new: '0.0.0.0', restart: true },
  );
  assert.equal(props.notes.restartRequired, false);
  // The running server the change concerns says it needs a restart.
  assert.equal((await get('serverRuntime?links=none&fields=restartRequired')).json.restartRequired, true);
  // One record by itself, under its number.
  const one = await get(`edit/changeManager/activations/${newest.name}?links=none&fields=user,version`);
  assert.equal(one.status, 200, one.text);
  assert.equal(one.json.user, 'admin');
});

test('findConfigBeansWithTags and listTags: tags with spaces, by type, any or all', async () => {
  assert.equal((await post('edit/servers/ms1', { tags: ['blue team', 'x'] })).status, 200);
  assert.equal((await post('edit/clusters/cluster1', { tags: ['blue team'] })).status, 200);
  const find = async (body: Record<string, unknown>) => {
    const r = await post('edit/findConfigBeansWithTags', body);
    assert.equal(r.status, 200, r.text);
    return (r.json.return as { identity: string[] }[]).map((x) => x.identity.join('/')).sort();
  };
  assert.deepEqual(await find({ type: '', tags: ['blue team'] }), ['clusters/cluster1', 'servers/ms1']);
  assert.deepEqual(await find({ type: 'Server', tags: ['blue team'] }), ['servers/ms1']);
  assert.deepEqual(await find({ type: '', tags: ['blue team', 'x'], matchAll: true }), ['servers/ms1']);
  assert.deepEqual(await find({ type: '', tags: ['blue team', 'x'], matchAll: false }), ['clusters/cluster1', 'servers/ms1']);
  assert.deepEqual(await find({ type: '', tags: ['blue'] }), [], 'a tag is matched whole, spaces included');
  const tags = await post('edit/listTags', {});
  assert.deepEqual(tags.json.return, ['blue team', 'x']);
});

test('lookupSystemResource, lookupTarget, arePartitionsPresent and findPartitionByID', async () => {
  assert.equal((await post('edit/JDBCSystemResources', { name: 'ds-root' })).status, 201);
  assert.deepEqual((await post('edit/lookupSystemResource', { name: 'ds-root' })).json, { return: ['JDBCSystemResources', 'ds-root'] });
  assert.deepEqual((await post('edit/lookupSystemResource', { name: 'nothing' })).json, { return: null });
  assert.deepEqual((await post('edit/lookupTarget', { name: 'cluster1' })).json, { return: ['clusters', 'cluster1'] });
  assert.deepEqual((await post('serverConfig/lookupTarget', { name: 'vt2' })).json, { return: ['virtualTargets', 'vt2'] });
  assert.deepEqual((await post('edit/arePartitionsPresent', {})).json, { return: true });
  const id = (await get('serverConfig/partitions/partition2?links=none&fields=partitionID')).json.partitionID;
  assert.deepEqual((await post('edit/findPartitionByID', { partitionID: id })).json, { return: ['partitions', 'partition2'] });
  const effective = await post('serverConfig/partitions/partition2/findEffectiveServerNames', {});
  assert.deepEqual(effective.json.return, ['ms1', 'ms2']);
  // A call that matches no signature is refused with the valid ones listed.
  const wrong = await post('edit/lookupTarget', { target: 'cluster1' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.json.detail, /valid signatures are: lookupTarget\(name: string\)/);
});
