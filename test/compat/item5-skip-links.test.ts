// Issue 26, item 5: X-Skip-Resource-Links: true (the product's console sends it on every call) leaves
// the links out, as links=none does, unless the query asks for links; and appserverVersion has the
// product's shape: product name, version, build date and build number.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
const SKIP = { 'x-skip-resource-links': 'true' };

before(async () => {
  srv = await startRuntimeServer();
});

after(async () => {
  await srv?.stop(true);
});

test('a bean and a collection read with the header have no links; without it, they have', async () => {
  const bean = await srv.admin.get('domainConfig/servers/AdminServer', SKIP);
  assert.equal(bean.status, 200, bean.text);
  assert.ok(!('links' in bean.json), 'no links on the bean');
  assert.equal(bean.json.name, 'AdminServer');
  const list = await srv.admin.get('domainConfig/servers', SKIP);
  assert.ok(!('links' in list.json), 'no links on the collection');
  assert.ok(list.json.items.length > 0 && list.json.items.every((i: object) => !('links' in i)), 'no links on its items');
  assert.ok(Array.isArray((await srv.admin.get('domainConfig/servers/AdminServer')).json.links), 'links without the header');
  // Case does not matter; anything but true leaves the links.
  assert.ok(!('links' in (await srv.admin.get('domainConfig', { 'x-skip-resource-links': 'TRUE' })).json));
  assert.ok(Array.isArray((await srv.admin.get('domainConfig', { 'x-skip-resource-links': 'false' })).json.links));
  // The query's own choice wins.
  const asked = await srv.admin.get('domainConfig?links=self', SKIP);
  assert.deepEqual(asked.json.links.map((l: { rel: string }) => l.rel), ['self']);
});

test("appserverVersion: product, version, build date and number", async () => {
  const r = await srv.admin.get('serverRuntime?fields=appserverVersion&links=none');
  assert.match(r.json.appserverVersion, /^AppServer Server 12\.2\.1\.4\.0 [A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d [A-Z]{3} \d{4} \d+$/);
});
