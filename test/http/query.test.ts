// Query parameters that shape a GET response (rest-behavior.md §3): fields, excludeFields, links, excludeLinks.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, startTestServer, type TestServer } from '../support/server.js';

const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';

let srv: TestServer;
/** The unshaped AdminServer bean of the edit tree, for comparisons. */
let full: Record<string, any>;

before(async () => {
  srv = await startTestServer();
  full = (await get('edit/servers/AdminServer')).json;
});

after(async () => {
  await srv.stop(true);
});

async function get(path: string) {
  const r = await call(`${srv.latest}/${path}`);
  assert.equal(r.status, 200, `GET ${path}: ${r.status} ${r.text}`);
  return r;
}

const rels = (body: any): string[] => (body.links as { rel: string }[]).map((l) => l.rel);
const keys = (body: any): string[] => Object.keys(body).filter((k) => k !== 'links').sort();

/** The detail text(s) of an error body, flat or nested. */
function errorText(body: any): string {
  if (typeof body.detail === 'string') return body.detail;
  const details = body['appserver:errorsDetails'] ?? [];
  return details.map((d: any) => d.detail).join(' | ');
}

test('an unshaped bean has identity, many properties and its links', () => {
  assert.deepEqual(full.identity, ['servers', 'AdminServer']);
  assert.equal(full.name, 'AdminServer');
  assert.equal(typeof full.listenPort, 'number');
  assert.ok(keys(full).length > 50, `only ${keys(full).length} properties`);
  assert.ok(rels(full).includes('self') && rels(full).includes('parent') && rels(full).includes('log'));
});

test('fields=name,listenPort returns only those properties, without identity, links kept', async () => {
  const { json } = await get('edit/servers/AdminServer?fields=name,listenPort');
  assert.deepEqual(keys(json), ['listenPort', 'name']);
  assert.equal(json.name, 'AdminServer');
  assert.equal(json.listenPort, full.listenPort);
  assert.deepEqual(rels(json), rels(full), 'fields does not touch the links');
});

test('fields applies to every item of a collection', async () => {
  const { json } = await get('edit/servers?fields=name,listenPort');
  assert.deepEqual(
    json.items.map((i: any) => i.name),
    ['AdminServer', 'ms1', 'ms2'],
  );
  for (const item of json.items) {
    assert.deepEqual(keys(item), ['listenPort', 'name'], `item ${item.name}`);
    assert.deepEqual(rels(item), ['self', 'canonical'], `item ${item.name} keeps its links`);
  }
  assert.deepEqual(
    json.items.map((i: any) => i.listenPort).slice(1),
    [7003, 7005],
  );
});

test('unknown field names are ignored', async () => {
  const { json } = await get('edit/servers/AdminServer?fields=name,noSuchProperty,alsoMissing');
  assert.deepEqual(keys(json), ['name']);
  const none = await get('edit/servers/AdminServer?fields=noSuchProperty');
  assert.deepEqual(keys(none.json), [], 'only unknown names: no properties at all');
  assert.ok(Array.isArray(none.json.links));
});

test('identity counts as a field', async () => {
  const withIdentity = await get('edit/servers/AdminServer?fields=identity,name');
  assert.deepEqual(keys(withIdentity.json), ['identity', 'name']);
  assert.deepEqual(withIdentity.json.identity, ['servers', 'AdminServer']);
  const items = await get('edit/servers?fields=identity');
  assert.deepEqual(
    items.json.items.map((i: any) => keys(i)),
    [['identity'], ['identity'], ['identity']],
  );
  const excluded = await get('edit/servers/AdminServer?excludeFields=identity');
  assert.ok(!('identity' in excluded.json), 'excludeFields=identity drops it');
  assert.equal(excluded.json.name, 'AdminServer');
});

test('excludeFields drops exactly the listed properties', async () => {
  const { json } = await get('edit/servers/AdminServer?excludeFields=name,listenPort,noSuchProperty');
  const expected = keys(full).filter((k) => k !== 'name' && k !== 'listenPort');
  assert.deepEqual(keys(json), expected);
  for (const k of expected) if (k !== 'identity') assert.deepEqual(json[k], full[k], `property ${k}`);
  assert.deepEqual(rels(json), rels(full));
});

test('excludeFields applies to every item of a collection', async () => {
  const { json } = await get('edit/servers?excludeFields=listenPort');
  assert.equal(json.items.length, 3);
  for (const item of json.items) {
    assert.ok(!('listenPort' in item), `item ${item.name} still has listenPort`);
    assert.ok('name' in item && 'identity' in item);
  }
});

test('links=none removes the links key at both levels of a collection', async () => {
  const { json } = await get('edit/servers?links=none');
  assert.ok(!('links' in json), 'collection still has links');
  assert.equal(json.items.length, 3);
  for (const item of json.items) {
    assert.ok(!('links' in item), `item ${item.name} still has links`);
    assert.ok('name' in item);
  }
  const bean = await get('edit/servers/AdminServer?links=none');
  assert.ok(!('links' in bean.json));
  assert.deepEqual(keys(bean.json), keys(full), 'links=none keeps every property');
});

test('links=none with fields gives the compact form clients use', async () => {
  const { json } = await get('edit/servers?links=none&fields=name');
  assert.deepEqual(json, { items: [{ name: 'AdminServer' }, { name: 'ms1' }, { name: 'ms2' }] });
});

test('links=self,parent keeps only those rels', async () => {
  const { json } = await get('edit/servers/AdminServer?links=self,parent');
  assert.deepEqual(rels(json).sort(), ['parent', 'self']);
  assert.deepEqual(keys(json), keys(full), 'links does not touch the properties');
  const collection = await get('edit/servers?links=self,parent');
  assert.deepEqual(rels(collection.json).sort(), ['parent', 'self']);
  for (const item of collection.json.items) assert.deepEqual(rels(item), ['self']);
});

test('excludeLinks=action drops every action link and nothing else', async () => {
  const before = await get('serverRuntime');
  const allRels = rels(before.json);
  assert.ok(allRels.includes('action'), 'serverRuntime has action links to drop');
  const { json } = await get('serverRuntime?excludeLinks=action');
  assert.deepEqual(
    rels(json),
    allRels.filter((r) => r !== 'action'),
  );
});

test('fields and excludeFields together are refused with 400 JSON', async () => {
  const r = await call(`${srv.latest}/edit/servers?fields=name&excludeFields=listenPort`);
  assert.equal(r.status, 400);
  assert.ok(r.json, `body is not JSON: ${r.text}`);
  assert.equal(r.json.status, 400);
  assert.equal(r.json.type, ERROR_TYPE);
  assert.match(errorText(r.json), /fields/);
  assert.match(errorText(r.json), /excludeFields/);
});

test('links and excludeLinks together are refused with 400 JSON', async () => {
  const r = await call(`${srv.latest}/edit/servers/AdminServer?links=self&excludeLinks=action`);
  assert.equal(r.status, 400);
  assert.ok(r.json, `body is not JSON: ${r.text}`);
  assert.equal(r.json.status, 400);
  assert.equal(r.json.type, ERROR_TYPE);
  assert.match(errorText(r.json), /links/);
  assert.match(errorText(r.json), /excludeLinks/);
});

test('query parameters also shape the version entity and currentUser', async () => {
  const version = await call(`${srv.latest}?fields=version&links=self`);
  assert.equal(version.status, 200);
  assert.deepEqual(version.json, { links: [{ rel: 'self', href: srv.latest }], version: '12.2.1.4.0' });
  const user = await call(`${srv.latest}/currentUser?links=none&fields=user`);
  assert.deepEqual(user.json, { user: 'admin' });
});
