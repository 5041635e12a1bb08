// Item 3: nobody can freeze the server with a body. Bodies used to go through a regular expression
// with overlapping quantifiers when they were neither JSON nor relaxed JSON (`a=`, 100,000 spaces,
// `&` took seconds, a megabyte minutes), and an application's context root read bodies from anyone.
// Now a context root refuses any body unread (413), every body is parsed by its content type in
// linear time, and management URLs authenticate before a byte of the body is read.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminAuth, startTestServer, type TestServer } from '../support/server.js';
import { begin, exchange, head } from '../support/raw-http.js';

let srv: TestServer;

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

const post = (path: string, body: string, headers: Record<string, string>) =>
  exchange(srv.server.port, head('POST', path, { 'content-length': Buffer.byteLength(body), ...headers }), Buffer.from(body));

test('item 03: a body sent anonymously to an application context root is refused unread', async () => {
  const evil = `a=${' '.repeat(100_000)}&`;
  for (const [path, ctype] of [['/inventory/', 'text/plain'], ['/inventory/', 'application/json'], ['/inventory/work?pool=eis/demo-adapter', 'application/x-www-form-urlencoded'], ['/inventory', 'text/plain']] as const) {
    const r = await post(path, evil, { 'content-type': ctype, accept: 'application/json' });
    assert.equal(r.status, 413, `${path} (${ctype}): ${r.status} ${r.text.slice(0, 300)}`);
    assert.equal(r.json?.status, 413);
    assert.match(r.json.detail, /'inventory' takes no request body/);
  }
  // Announced and never sent: the answer comes without waiting for it.
  const { socket, answer } = await begin(srv.server.port, head('PUT', '/inventory/', { 'content-length': 50 * 1024 * 1024, 'content-type': 'text/plain', expect: '100-continue' }));
  const early = await new Promise<ReturnType<typeof answer>>((resolve) => {
    const check = () => {
      const a = answer();
      if (a) resolve(a);
    };
    check();
    socket.on('data', check);
    socket.on('close', check);
  });
  socket.destroy();
  assert.equal(early?.status, 413, JSON.stringify(early));
  // Chunked, on any method.
  const chunked = await exchange(srv.server.port, head('DELETE', '/inventory/', { 'transfer-encoding': 'chunked', 'content-type': 'application/json' }), Buffer.from('5\r\n{"a":\r\n'));
  assert.equal(chunked.status, 413, chunked.text);
  // Without a body the application still answers.
  const plain = await exchange(srv.server.port, head('GET', '/inventory/', { accept: 'application/json' }));
  assert.equal(plain.status, 200, plain.text);
  assert.equal(plain.json.application, 'inventory');
});

test('item 03: pathological bodies on management URLs are parsed in linear time', { timeout: 60_000 }, async () => {
  const headers = { authorization: adminAuth, 'x-requested-by': 'item03', accept: 'application/json' };
  const path = '/management/appserver/latest/edit/servers/ms1';
  const spaces = ' '.repeat(1024 * 1024 - 16);
  // Neither JSON nor pairs (the '&' has no pair after it): refused as not JSON.
  for (const ctype of ['text/plain', 'application/json', 'text/plain; charset=utf-8']) {
    const r = await post(path, `a=${spaces}&`, { ...headers, 'content-type': ctype });
    assert.equal(r.status, 400, `${ctype}: ${r.status} ${r.text.slice(0, 300)}`);
    assert.match(r.json.detail, /not valid JSON/);
  }
  // Pairs with lots of white space are still pairs (and 'a' is no property of a server).
  const pairs = await post(path, `a=${' '.repeat(100_000)}&b=1`, { ...headers, 'content-type': 'text/plain' });
  assert.equal(pairs.status, 400, pairs.text.slice(0, 300));
  assert.match(pairs.text, /'a'/);
  // More shapes that are slow for backtracking or recursive readers.
  for (const body of [`{"a":${' '.repeat(1024 * 1024 - 16)}`, `[${'['.repeat(500_000)}`, `${'a=&'.repeat(300_000)}`, `{a:${' '.repeat(60_000)}`]) {
    const r = await post(path, body, { ...headers, 'content-type': 'text/plain' });
    assert.equal(r.status, 400, `${body.slice(0, 20)}...: ${r.status} ${r.text.slice(0, 300)}`);
  }
  const me = await exchange(srv.server.port, head('GET', '/management/appserver/latest/currentUser', headers));
  assert.equal(me.status, 200);
});

test('item 03: management URLs refuse an anonymous body before reading it', async () => {
  const { socket, answer } = await begin(
    srv.server.port,
    head('POST', '/management/appserver/latest/edit/servers', { 'content-length': 5 * 1024 * 1024, 'content-type': 'application/json', 'x-requested-by': 'item03', expect: '100-continue' }),
    Buffer.from(`{a:'${' '.repeat(1000)}`),
  );
  const r = await new Promise<ReturnType<typeof answer>>((resolve) => {
    const check = () => {
      const a = answer();
      if (a) resolve(a);
    };
    check();
    socket.on('data', check);
    socket.on('close', check);
  });
  socket.destroy();
  assert.equal(r?.status, 401, JSON.stringify(r));
});
