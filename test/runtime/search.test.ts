// `POST <tree>/search`: the query selects exactly the fields, links and children asked for at every
// level, `name` filters collections, relaxed JSON is accepted, `{}` is the root entity, a malformed
// query is a 400 naming the problem, GET is 405; on serverRuntime, domainRuntime (and one of its
// server runtimes), edit and serverConfig; a Monitor may search.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, createUser, errorDetails, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
});

after(async () => {
  await srv.stop(true);
});

const keys = (o: object) => Object.keys(o).sort();

async function search(c: Client, path: string, query: unknown): Promise<any> {
  const r = await c.post(`${path}/search`, query);
  assert.equal(r.status, 200, `${path}/search ${typeof query === 'string' ? query : JSON.stringify(query)}: ${r.text}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/);
  return r.json;
}

const EXPORTER = {
  links: [],
  fields: ['name', 'state'],
  children: {
    applicationRuntimes: {
      links: [],
      fields: ['name'],
      name: ['inventory'],
      children: { componentRuntimes: { links: [], fields: ['name', 'deploymentState'] } },
    },
    JVMRuntime: { links: [], fields: ['heapSizeCurrent'] },
  },
};

test('an exporter-shaped query returns exactly the selected fields at every level', async () => {
  const body = await search(admin, 'serverRuntime', EXPORTER);
  assert.deepEqual(keys(body), ['JVMRuntime', 'applicationRuntimes', 'name', 'state']);
  assert.equal(body.name, 'AdminServer');
  assert.equal(body.state, 'RUNNING');
  assert.deepEqual(keys(body.applicationRuntimes), ['items']);
  assert.equal(body.applicationRuntimes.items.length, 1);
  const app = body.applicationRuntimes.items[0];
  assert.deepEqual(keys(app), ['componentRuntimes', 'name']);
  assert.equal(app.name, 'inventory');
  assert.deepEqual(keys(app.componentRuntimes), ['items']);
  assert.ok(app.componentRuntimes.items.length > 0);
  for (const c of app.componentRuntimes.items) {
    assert.deepEqual(keys(c), ['deploymentState', 'name']);
    assert.equal(typeof c.name, 'string');
    assert.equal(c.deploymentState, 2);
  }
  assert.deepEqual(keys(body.JVMRuntime), ['heapSizeCurrent']);
  assert.equal(typeof body.JVMRuntime.heapSizeCurrent, 'number');
  assert.ok(body.JVMRuntime.heapSizeCurrent > 0);
});

test('the name filter selects exactly the named items; without it every item comes', async () => {
  const all = await search(admin, 'serverRuntime', { links: [], fields: [], children: { applicationRuntimes: { links: [], fields: ['name'] } } });
  assert.deepEqual(keys(all), ['applicationRuntimes']);
  const names = all.applicationRuntimes.items.map((i: { name: string }) => i.name).sort();
  assert.ok(names.length > 1 && names.includes('inventory') && names.includes('demo-adapter'), JSON.stringify(names));
  const some = await search(admin, 'serverRuntime', { links: [], fields: [], children: { applicationRuntimes: { links: [], fields: ['name'], name: ['demo-adapter', 'no-such-app'] } } });
  assert.deepEqual(some, { applicationRuntimes: { items: [{ name: 'demo-adapter' }] } });
  const none = await search(admin, 'serverRuntime', { links: [], fields: [], children: { applicationRuntimes: { links: [], fields: ['name'], name: [] } } });
  assert.deepEqual(none, { applicationRuntimes: { items: [] } });
});

test('a relaxed JSON query is accepted', async () => {
  const body = await search(admin, 'serverRuntime', "{ links: [], fields: [ 'name', 'state' ], children: { JVMRuntime: { links: [], fields: [ 'OSName' ], }, }, }");
  assert.deepEqual(keys(body), ['JVMRuntime', 'name', 'state']);
  assert.equal(body.name, 'AdminServer');
  assert.deepEqual(keys(body.JVMRuntime), ['OSName']);
});

test('{} returns the root entity with all its fields and links, and no children', async () => {
  const body = await search(admin, 'serverRuntime', {});
  const get = await admin.get('serverRuntime');
  assert.equal(get.status, 200, get.text);
  assert.deepEqual(keys(body), keys(get.json));
  assert.deepEqual(body.identity, []);
  assert.equal(body.name, 'AdminServer');
  assert.equal(body.type, 'ServerRuntime');
  assert.equal(body.state, 'RUNNING');
  assert.ok(Array.isArray(body.links) && body.links.length > 0);
  const rels = (links: { rel: string; href: string }[]) => links.map((l) => `${l.rel} ${l.href}`).sort();
  assert.deepEqual(rels(body.links), rels(get.json.links));
  assert.ok(body.links.some((l: { rel: string; href: string }) => l.rel === 'self' && l.href === `${srv.latest}/serverRuntime`));
  assert.ok(!('JVMRuntime' in body) && !('applicationRuntimes' in body));
});

test("links must be an array: 'none' is a 400 naming the property", async () => {
  const r = await admin.post('serverRuntime/search', { links: 'none' });
  const [detail] = errorDetails(r, 400, 'links: none');
  assert.equal(detail, "The property 'links' must be an array.");
});

test('GET on search is 405', async () => {
  for (const path of ['serverRuntime/search', 'domainRuntime/search', 'edit/search']) {
    errorDetails(await admin.get(path), 405, `GET ${path}`);
  }
});

test('domainRuntime/search reaches the server runtimes and their children', async () => {
  const query = {
    fields: [],
    links: [],
    children: {
      serverRuntimes: {
        name: ['AdminServer'],
        fields: ['name', 'state'],
        links: [],
        children: { threadPoolRuntime: { fields: ['completedRequestCount'], links: [] } },
      },
    },
  };
  const body = await search(admin, 'domainRuntime', query);
  assert.deepEqual(keys(body), ['serverRuntimes']);
  assert.equal(body.serverRuntimes.items.length, 1);
  const s = body.serverRuntimes.items[0];
  assert.deepEqual(keys(s), ['name', 'state', 'threadPoolRuntime']);
  assert.equal(s.name, 'AdminServer');
  assert.equal(s.state, 'RUNNING');
  assert.deepEqual(keys(s.threadPoolRuntime), ['completedRequestCount']);
  assert.equal(typeof s.threadPoolRuntime.completedRequestCount, 'number');

  // Without fields/links at the top, the domain runtime's own fields and links come too.
  const { fields: _f, links: _l, ...children } = query;
  const full = await search(admin, 'domainRuntime', children);
  assert.equal(full.type, 'DomainRuntime');
  assert.ok(Array.isArray(full.links));
  assert.equal(full.name, 'demo_domain');
  assert.equal(full.serverRuntimes.items.length, 1);
  assert.deepEqual(keys(full.serverRuntimes.items[0]), ['name', 'state', 'threadPoolRuntime']);
  assert.equal(full.serverRuntimes.items[0].name, 'AdminServer');
});

test('domainRuntime/serverRuntimes/AdminServer/search works like serverRuntime/search', async () => {
  const body = await search(admin, 'domainRuntime/serverRuntimes/AdminServer', { fields: ['name', 'state'], links: [], children: { JVMRuntime: { fields: ['OSName'], links: [] } } });
  assert.deepEqual(keys(body), ['JVMRuntime', 'name', 'state']);
  assert.equal(body.name, 'AdminServer');
  assert.equal(body.state, 'RUNNING');
  assert.deepEqual(keys(body.JVMRuntime), ['OSName']);
});

test('edit and serverConfig search the configuration', async () => {
  for (const tree of ['edit', 'serverConfig']) {
    const body = await search(admin, tree, { fields: ['name'], links: [], children: { servers: { fields: ['name', 'listenPort'], links: [] } } });
    assert.deepEqual(keys(body), ['name', 'servers'], tree);
    assert.equal(body.name, 'demo_domain');
    const servers = body.servers.items;
    assert.deepEqual(servers.map((s: { name: string }) => s.name), ['AdminServer', 'ms1', 'ms2'], tree);
    for (const s of servers) {
      assert.deepEqual(keys(s), ['listenPort', 'name'], tree);
      assert.equal(typeof s.listenPort, 'number');
    }
    assert.equal(servers[1].listenPort, 7003);
    assert.equal(servers[2].listenPort, 7005);
    const one = await search(admin, tree, { fields: [], links: [], children: { servers: { name: ['ms2'], fields: ['listenPort'], links: [] } } });
    assert.deepEqual(one, { servers: { items: [{ listenPort: 7005 }] } }, tree);
  }
});

test('a Monitor may search', async () => {
  const monitor = admin.as(await createUser(admin, 'monitor1', 'monitor-pw1', 'Monitors'));
  const body = await search(monitor, 'serverRuntime', EXPORTER);
  assert.deepEqual(keys(body), ['JVMRuntime', 'applicationRuntimes', 'name', 'state']);
  const dr = await search(monitor, 'domainRuntime', { fields: [], links: [], children: { serverRuntimes: { fields: ['name'], links: [] } } });
  assert.deepEqual(dr, { serverRuntimes: { items: [{ name: 'AdminServer' }] } });
  const cfg = await search(monitor, 'serverConfig', { fields: [], links: [], children: { servers: { fields: ['name'], links: [], name: ['ms1'] } } });
  assert.deepEqual(cfg, { servers: { items: [{ name: 'ms1' }] } });
});
