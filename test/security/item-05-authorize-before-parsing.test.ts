// Item 5: a body is read only once its sender may send it there. A Monitor (or anyone at a context
// root) could make the server parse multi-megabyte relaxed-JSON bodies at write URLs before being
// refused, and three such clients starved the administrators. Now the target is resolved and the
// caller's right to write or invoke it checked before the body is read; bodies are limited to 1 MiB
// (uploads aside); the relaxed reader is tried only on bodies up to 64 KiB. And since the parser is
// the server's own: a `null` body and a key given twice in one object are refused, naming the key.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, createUser, errorDetails, startRuntimeServer } from '../support/runtime-server.js';
import { type RawAnswer, begin, exchange, head } from '../support/raw-http.js';

let srv: RuntimeServer;
let admin: Client;
let monitor: Client;

const DS = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds';
const LATEST = '/management/appserver/latest';

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  monitor = admin.as(await createUser(admin, 'monitor5', 'monitor-pw5', 'Monitors'));
});

after(async () => {
  await srv.stop(true);
});

/** Sends the head of a request announcing `length` bytes and a few of them; resolves with the answer that comes before the rest. */
async function announce(method: string, path: string, auth: string, length: number, ctype = 'application/json'): Promise<RawAnswer> {
  const { socket, answer } = await begin(
    srv.server.port,
    head(method, path, { authorization: auth, 'x-requested-by': 'item05', accept: 'application/json', 'content-type': ctype, 'content-length': length, expect: '100-continue' }),
    Buffer.from(`{name: 'x', notes: '${'n'.repeat(1000)}`),
  );
  try {
    return await new Promise<RawAnswer>((resolve, reject) => {
      const check = () => {
        const a = answer();
        if (a) resolve(a);
      };
      check();
      socket.on('data', check);
      socket.on('close', () => (answer() ? check() : reject(new Error('closed without an answer'))));
    });
  } finally {
    socket.destroy();
  }
}

const WRITES: [string, string][] = [
  ['POST', `${LATEST}/edit/servers`],
  ['POST', `${LATEST}/edit/servers/ms1`],
  ['DELETE', `${LATEST}/edit/servers/ms1`],
  ['POST', `${LATEST}/edit/changeManager/startEdit`],
  ['POST', `${LATEST}/domainRuntime/serverLifeCycleRuntimes/ms1/start`],
  ['POST', `${LATEST}/edit/appDeployments`],
  ['POST', `${LATEST}/domainRuntime/editSessionConfigurationManager/editSessionConfigurations`],
  ['POST', '/management/lifecycle/latest/environments'],
];

test('item 05: a Monitor is refused at write URLs before its body is parsed', async () => {
  // A body that cannot be parsed: refused for the right, not for the syntax.
  for (const [method, path] of WRITES) {
    const r = await exchange(srv.server.port, head(method, path, { authorization: monitor.auth, 'x-requested-by': 'item05', accept: 'application/json', 'content-type': 'application/json', 'content-length': 9 }), Buffer.from('{name: x,'));
    assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    assert.match(r.json.detail ?? JSON.stringify(r.json), /monitor5/);
  }
});

test('item 05: a Monitor announcing a large body is refused before sending it', { timeout: 30_000 }, async () => {
  for (const [method, path] of WRITES) {
    const r = await announce(method, path, monitor.auth, 5 * 1024 * 1024);
    assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  }
  // The same for an upload.
  const up = await announce('POST', `${LATEST}/edit/appDeployments`, monitor.auth, 100 * 1024 * 1024, 'multipart/form-data; boundary=xyz');
  assert.equal(up.status, 403, up.text);
});

test('item 05: what a Monitor may do with a body still works', async () => {
  const search = await monitor.post('serverRuntime/search', { fields: ['name'], links: [] });
  assert.equal(search.status, 200, search.text);
  const testPool = await monitor.post(`${DS}/testPool`, {});
  assert.equal(testPool.status, 200, testPool.text);
});

test('item 05: bodies over 1 MiB are refused with 413 before they are read', { timeout: 30_000 }, async () => {
  const r = await announce('POST', `${LATEST}/edit/servers/ms1`, admin.auth, 1024 * 1024 + 1);
  assert.equal(r.status, 413, r.text);
  assert.match(r.json.detail, /larger than the server accepts/);
  // A body of exactly 1 MiB is read (white space pads it: one string may hold at most 64 KiB).
  const exact = await admin.post('edit/servers/ms1', JSON.stringify({ notes: 'n'.repeat(60 * 1024) }).padEnd(1024 * 1024, ' '));
  assert.equal(exact.status, 200, exact.text.slice(0, 300));
});

test('item 05: searches are limited to 64 KiB and action arguments to 256 KiB, for everyone', async () => {
  const query = (size: number) => JSON.stringify({ fields: ['name'], links: [], pad: 'p'.repeat(size) });
  for (const c of [monitor, admin]) {
    const big = await c.post('serverRuntime/search', query(64 * 1024));
    assert.equal(big.status, 413, big.text.slice(0, 300));
    assert.match(big.json.detail, /search query.*64 KiB/);
    const args = await c.post(`${DS}/testPool`, { pad: 'p'.repeat(256 * 1024) });
    assert.equal(args.status, 413, args.text.slice(0, 300));
    assert.match(args.json.detail, /arguments.*256 KiB/);
  }
  // Chunked, no length announced: counted as it arrives.
  const chunk = Buffer.from(query(80 * 1024));
  const chunked = await exchange(
    srv.server.port,
    head('POST', `${LATEST}/serverRuntime/search`, { authorization: monitor.auth, 'x-requested-by': 'item05', 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
    Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n0\r\n\r\n')]),
  );
  assert.equal(chunked.status, 413, chunked.text.slice(0, 300));
  // Just under the limit is read.
  const under = await monitor.post('serverRuntime/search', query(60 * 1024));
  assert.equal(under.status, 200, under.text.slice(0, 300));
});

test('item 05: the relaxed reader takes bodies up to 64 KiB; larger ones must be strict JSON', async () => {
  // Under 64 KiB of notes (the longest string a property holds), padded past 64 KiB of body.
  const notes = 'r'.repeat(60 * 1024);
  const relaxed = await admin.post('edit/servers/ms1', `{notes: '${notes}'}`.padEnd(70 * 1024, ' '));
  const [detail] = errorDetails(relaxed, 400, 'a 70 KiB relaxed body');
  assert.match(detail!, /not valid JSON.*64 KiB/);
  const strict = await admin.post('edit/servers/ms1', JSON.stringify({ notes }));
  assert.equal(strict.status, 200, strict.text.slice(0, 300));
  const small = await admin.post('edit/servers/ms1', "{notes: 'small and relaxed',}");
  assert.equal(small.status, 200, small.text);
  assert.equal((await admin.get('edit/servers/ms1?links=none&fields=notes')).json.notes, 'small and relaxed');
});

test('item 05: a null body is refused', async () => {
  for (const path of ['edit/servers/ms1', 'edit/servers', 'serverRuntime/search', 'edit/changeManager/startEdit']) {
    const r = await admin.post(path, 'null');
    const [detail] = errorDetails(r, 400, `null to ${path}`);
    assert.match(detail!, /null/);
  }
  const lcm = await admin.post('/management/lifecycle/latest/environments'.replace(/^/, srv.origin), ' null ');
  assert.match(errorDetails(lcm, 400, 'null to the Lifecycle Manager')[0]!, /null/);
});

test('item 05: a key given twice in one object is refused, naming the key', async () => {
  const cases: [string, string, RegExp][] = [
    ['{"notes": "a", "notes": "b"}', 'notes', /'notes'/],
    ['{"notes": "a", "not\\u0065s": "b"}', 'notes', /'notes'/],
    ["{notes: 'a', 'notes': 'b'}", 'notes', /'notes'/],
    ['{"name": "dup1", "targets": [{"identity": ["servers", "ms1"], "identity": ["servers", "ms2"]}]}', 'targets[0].identity', /'identity'.*targets\[0\]/],
  ];
  for (const [body, path, detail] of cases) {
    const r = await admin.post(body.includes('dup1') ? 'edit/clusters' : 'edit/servers/ms1', body);
    const details = errorDetails(r, 400, body);
    assert.ok(details.some((d) => d.startsWith(`[${path}]`) && detail.test(d)), `${body}: ${details.join(' | ')}`);
  }
  // The same key in different objects is fine.
  const ok = await admin.post('edit/servers/ms1', '{"notes": "x", "tags": [], "listenPortEnabled": true, "name": "ms1"}');
  assert.equal(ok.status, 200, ok.text);
  // A pair given twice in a text body too.
  const pairs = await admin.post('edit/servers/ms1', 'notes=a&notes=b', { 'content-type': 'text/plain' });
  assert.match(errorDetails(pairs, 400, 'pairs')[0]!, /'notes'/);
});
