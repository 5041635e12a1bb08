// Wire fidelity (issue 14): what real clients of the product send and expect, byte for byte. One
// test per item of the issue, named after it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { ASYNC, errorDetails, startRuntimeServer } from '../support/runtime-server.js';
import { adminAuth, call, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
const M = () => `${srv.origin}/management/appserver`;
const LC = () => `${srv.origin}/management/lifecycle`;
const write = { 'x-requested-by': 'wire-test' };

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

/** Sends bytes as they are and reads the raw answer (status line, headers, body). */
async function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(srv.server.port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

test('item 01: the relaxed reader takes {target=\'cluster1\'}, = and => as separators, single quotes and unquoted keys', async () => {
  // A real deployment script's call: the state of an application on a target.
  const r = await call(`${srv.latest}/domainRuntime/appRuntimeStateRuntime/getCurrentState`, { method: 'POST', headers: write, body: "{appid='benefits', target='cluster1'}" });
  assert.equal(r.status, 200, r.text);
  assert.ok(typeof r.json.return === 'string', r.text);
  const arrow = await call(`${srv.latest}/domainRuntime/appRuntimeStateRuntime/getCurrentState`, { method: 'POST', headers: write, body: '{appid => "benefits", target => "cluster1"}' });
  assert.deepEqual(arrow.json, r.json);
  // What is not JSON-like at all is still a 400 that says where it broke.
  const bad = await call(`${srv.latest}/domainRuntime/appRuntimeStateRuntime/getCurrentState`, { method: 'POST', headers: write, body: '{appid = = }' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.detail, /not valid JSON at line 1, column \d+/);
});

test('item 02: a form body (curl -d) is answered 415, not misread', async () => {
  const r = await call(`${srv.latest}/serverRuntime/search`, { method: 'POST', headers: { ...write, 'content-type': 'application/x-www-form-urlencoded' }, body: 'fields=name' });
  assert.equal(r.status, 415, r.text);
  assert.match(r.json.detail, /Unsupported Media Type: 'application\/x-www-form-urlencoded'/);
  // key=value pairs as plain text still work.
  const pairs = await call(`${srv.latest}/edit/servers/ms1`, { method: 'POST', headers: { ...write, 'content-type': 'text/plain' }, body: 'notes=from%20pairs' });
  assert.equal(pairs.status, 200, pairs.text);
});

test('item 03: registering a wls runtime whose host does not answer yet is 201 with Location and {}', async () => {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  const r = await call(`${LC()}/latest/runtimes`, {
    method: 'POST',
    headers: write,
    body: { name: 'later', type: 'wls', hostName: '127.0.0.1', port, protocol: 'http', properties: [{ name: 'username', value: 'admin' }, { name: 'password', confidentialValue: 'x' }] },
  });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.text, '{}');
  assert.equal(r.headers.get('location'), `${LC()}/latest/runtimes/later`);
  // It is contacted when it is used.
  const used = await call(`${LC()}/latest/runtimes/later/partitions`);
  assert.equal(used.status, 502, used.text);
  assert.match(used.json.detail, /'later'/);
});

test('item 04: /management/lifecycle/12.2.1.3.0 resolves, as every documented spelling does', async () => {
  for (const v of ['12.2.1.3.0', '12.2.1.0', 'latest', '12.2.1.0.0']) {
    const r = await call(`${LC()}/${v}`);
    assert.equal(r.status, 200, `${v}: ${r.text}`);
    assert.ok(Array.isArray(r.json.links) && r.json.links.some((l: { rel: string }) => l.rel === 'environments'), v);
  }
  assert.equal((await call(`${LC()}/12.2.1.9.0`)).status, 404);
});

test('item 05: the path, the method and the media types are checked before the X-Requested-By header', async () => {
  // No X-Requested-By in any of these: each gets its own answer, not the CSRF 400.
  assert.equal((await call(`${srv.latest}/edit/nothingHere`, { method: 'POST', body: {} })).status, 404);
  assert.equal((await call(`${srv.latest}/edit/servers/ms1/nothingHere`, { method: 'DELETE' })).status, 404);
  const method = await call(`${srv.latest}/serverConfig/servers/ms1`, { method: 'POST', body: {} });
  assert.equal(method.status, 405);
  assert.equal((await call(`${srv.latest}/edit/servers/ms1`, { method: 'DELETE', headers: { accept: 'text/html' } })).status, 406);
  assert.equal((await call(`${srv.latest}/edit/servers/ms1`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<x/>' })).status, 415);
  // Everything right but the header: the 400 says exactly what is missing.
  const csrf = await call(`${srv.latest}/edit/servers/ms1`, { method: 'POST', body: {} });
  assert.equal(csrf.status, 400);
  assert.match(csrf.json.detail, /header 'X-Requested-By' is required on POST/);
  const bodyless = await call(`${srv.latest}/edit/machines/machine1`, { method: 'DELETE' });
  assert.equal(bodyless.status, 400);
  assert.match(bodyless.json.detail, /X-Requested-By/);
});

test('item 06: an array holding one object opens and closes on its lines; Content-Type without charset; Vary: Accept-Encoding', async () => {
  const text = await raw(`POST /management/appserver/latest/domainRuntime/serverLifeCycleRuntimes/ms1/start HTTP/1.1\r\nHost: host:7001\r\nAuthorization: ${adminAuth}\r\nX-Requested-By: wire\r\nPrefer: respond-async\r\nContent-Length: 2\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{}`);
  const [head, body] = text.split('\r\n\r\n');
  assert.match(head!, /^HTTP\/1\.1 202/);
  assert.match(head!, /\r\ncontent-type: application\/json\r\n/i);
  assert.doesNotMatch(head!, /charset/i);
  assert.match(head!, /\r\nvary: Accept-Encoding\r\n/i);
  assert.match(body!, /^\{\n {4}"links": \[\{\n {8}"rel": "job",\n {8}"href": "http:\\\/\\\/host:7001\\\/management\\\/appserver\\\/latest\\\/domainRuntime\\\/serverLifeCycleRuntimes\\\/ms1\\\/tasks\\\/_\d+_start"\n {4}\}\],\n {4}"identity": \[\n {8}"serverLifeCycleRuntimes",/);
});

test('item 07: one product version everywhere: the domain\'s (12.2.1.4.0 for a new one) is current, and servers report it', async () => {
  const list = await call(`${M()}`);
  assert.deepEqual(list.json.items.map((i: { version: string; isLatest: boolean }) => [i.version, i.isLatest]), [['12.2.1.4.0', true], ['12.2.1.0', false]]);
  assert.equal((await call(`${M()}/latest`)).json.version, '12.2.1.4.0');
  const server = await call(`${srv.latest}/serverRuntime?fields=appserverVersion&links=none`);
  assert.match(server.json.appserverVersion, /12\.2\.1\.4\.0/);
  // The older documented spellings still resolve.
  for (const v of ['12.2.1.1.0', '12.2.1.2.0', '12.2.1.4.0', '12.2.1.0']) assert.equal((await call(`${M()}/${v}/serverRuntime?links=none&fields=name`)).status, 200, v);
});

test('item 10: properties the product\'s REST layer never shows (JMX composite data) are left out', async () => {
  const r = await call(`${srv.latest}/serverRuntime?links=none`);
  for (const name of ['healthStateJMX', 'overallHealthStateJMX']) assert.ok(!(name in r.json), `${name} is shown`);
  const search = await call(`${srv.latest}/serverRuntime/search`, { method: 'POST', headers: write, body: { fields: ['healthStateJMX', 'name'], links: [] } });
  assert.deepEqual(search.json, { name: 'AdminServer' });
});

test('item 09: tasks are numbered per server: _0_, _1_, _2_ ...', async () => {
  const rt = await startRuntimeServer();
  try {
    const names: string[] = [];
    for (const op of ['start', 'forceShutdown', 'start']) {
      const r = await rt.admin.post(`domainRuntime/serverLifeCycleRuntimes/ms2/${op}`, {}, ASYNC);
      assert.equal(r.status, 202, `ms2 ${op}: ${r.status} ${r.text.slice(0, 200)}`);
      names.push(String(r.json.name));
      rt.advance(120_000);
    }
    assert.deepEqual(names, ['_0_start', '_1_forceShutdown', '_2_start']);
    // Another server counts its own tasks from 0.
    const r = await rt.admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, ASYNC);
    assert.equal(r.json.name, '_0_start');
  } finally {
    await rt.stop(true);
  }
});

test('item 08: an action from a state where it makes no sense fails, naming the state, and changes nothing', async () => {
  const rt = await startRuntimeServer();
  const lc = (s: string, op: string) => rt.admin.post(`domainRuntime/serverLifeCycleRuntimes/${s}/${op}`, {}, ASYNC);
  const state = async (s: string) => (await rt.admin.get(`domainRuntime/serverLifeCycleRuntimes/${s}?links=none&fields=state`)).json.state;
  try {
    assert.equal((await lc('ms2', 'start')).status, 202);
    rt.advance(120_000);
    assert.equal(await state('ms2'), 'RUNNING');
    // Reaching a state the server is in already: a FAILED task (HTTP 200, as the product answers).
    for (const [op, named] of [['start', 'RUNNING'], ['resume', null]] as const) {
      const r = await lc('ms2', op);
      if (named === null) {
        // Not a state the operation starts from at all: refused outright, the state named.
        assert.equal(r.status, 400, r.text);
        assert.match(r.text, /is RUNNING; 'resume' can only be done from ADMIN, STANDBY/);
        continue;
      }
      assert.equal(r.status, 200, `${op} on RUNNING: ${r.text.slice(0, 300)}`);
      assert.equal(r.json.taskStatus, 'FAILED');
      assert.equal(r.json.progress, 'failed');
      assert.match(r.json.taskError.message, new RegExp(`Server 'ms2' is already ${named}; '${op}'`));
    }
    assert.equal((await lc('ms2', 'suspend')).status, 202);
    rt.advance(120_000);
    const again = await lc('ms2', 'suspend');
    assert.equal(again.json.taskStatus, 'FAILED');
    assert.match(again.json.taskError.message, /already ADMIN/);
    assert.equal(await state('ms2'), 'ADMIN', 'nothing changed');
    // A SHUTDOWN server cannot be reached to be suspended or shut down: the product's 400.
    const down = await lc('ms1', 'shutdown');
    assert.equal(down.status, 400, down.text);
    assert.match(down.text, /SHUTDOWN state/);
  } finally {
    await rt.stop(true);
  }
});

test('item 11: a JDBCSystemResource refers to its descriptor as resource; a refused create lists every problem and leaves nothing', async () => {
  const rt = await startRuntimeServer();
  try {
    assert.equal((await rt.admin.post('edit/changeManager/startEdit', {})).status, 200);
    const bad = await rt.admin.post('edit/JDBCSystemResources', { name: 'halfDS', targets: [{ identity: ['servers', 'nope'] }], deploymentOrder: 'first' });
    const details = errorDetails(bad, 400, 'create with two problems');
    assert.ok(details.some((d) => d.includes('targets') && d.includes('nope')), JSON.stringify(details));
    assert.ok(details.some((d) => d.includes('deploymentOrder') && d.includes('first')), JSON.stringify(details));
    assert.equal((await rt.admin.get('edit/JDBCSystemResources/halfDS')).status, 404, 'nothing half made');
    assert.equal((await rt.admin.get('edit/changeManager?links=none')).json.hasChanges, false, 'the session holds no change');

    assert.equal((await rt.admin.post('edit/JDBCSystemResources', { name: 'myDS' })).status, 201);
    const ds = (await rt.admin.get('edit/JDBCSystemResources/myDS')).json;
    assert.deepEqual(ds.resource, ['JDBCSystemResources', 'myDS', 'JDBCResource']);
    assert.ok(ds.links.some((l: { rel: string; href: string }) => l.rel === 'resource' && l.href.endsWith('/edit/JDBCSystemResources/myDS/JDBCResource')));
    // The descriptor is there to follow, named after its resource.
    const descriptor = await rt.admin.get('edit/JDBCSystemResources/myDS/JDBCResource?links=none');
    assert.equal(descriptor.status, 200, descriptor.text);
    assert.equal(descriptor.json.name, 'myDS');
    assert.equal((await rt.admin.post('edit/changeManager/activate', {})).status, 200);
    const active = await rt.admin.get('domainConfig/JDBCSystemResources/myDS?links=none&fields=resource');
    assert.deepEqual(active.json.resource, ['JDBCSystemResources', 'myDS', 'JDBCResource']);
  } finally {
    await rt.stop(true);
  }
});
