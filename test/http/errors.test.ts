// Error answers, table-driven: status, headers and the JSON error envelope (src/http/errors.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { basic, call, startTestServer, type TestServer } from '../support/server.js';

const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';
const JAVA_ACCEPT = 'text/html, image/gif, image/jpeg, */*; q=0.2';
const PLC = 'domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime';

let srv: TestServer;

before(async () => {
  srv = await startTestServer(undefined, { maxEventLoopDelay: 1000 });
});

after(async () => {
  await srv.stop(true);
});

interface Case {
  name: string;
  /** Relative to the version root (`latest`) unless it starts with '/', then relative to the origin. */
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** null: no Authorization header. */
  auth?: string | null;
  status: number;
  /** Expected detail: exact string, or a pattern. */
  detail?: string | RegExp;
  check?: (r: Awaited<ReturnType<typeof call>>) => void;
}

const url = (path: string) => (path.startsWith('/') ? srv.origin + path : `${srv.latest}${path === '' ? '' : `/${path}`}`);

const challenge = (r: Awaited<ReturnType<typeof call>>) => {
  const h = r.headers.get('www-authenticate');
  assert.ok(h, 'no WWW-Authenticate header');
  assert.match(h, /^Basic\b/i);
  assert.match(h, /realm="[^"]+"/);
};

const cases: Case[] = [
  // authentication
  { name: 'no credentials', path: '', auth: null, status: 401, check: challenge },
  { name: 'no credentials on a deep URL', path: 'edit/servers/AdminServer', auth: null, status: 401, check: challenge },
  { name: 'no credentials on an unknown URL', path: 'noSuchTree', auth: null, status: 401, check: challenge },
  { name: 'wrong password', path: '', auth: basic('admin', 'not-the-password'), status: 401, check: challenge },
  { name: 'unknown user', path: '', auth: basic('nobody', 'welcome1'), status: 401, check: challenge },
  { name: 'password of another case', path: '', auth: basic('admin', 'WELCOME1'), status: 401, check: challenge },
  { name: 'not a basic credential', path: '', auth: 'Bearer abc.def', status: 401, check: challenge },
  { name: 'malformed basic credential', path: '', auth: 'Basic !!!notbase64', status: 401, check: challenge },

  // CSRF header on writes
  { name: 'POST without X-Requested-By', path: 'domainRuntime/search', method: 'POST', body: {}, status: 400, detail: /X-Requested-By/ },
  {
    name: 'POST with an empty X-Requested-By',
    path: 'domainRuntime/search',
    method: 'POST',
    body: {},
    headers: { 'x-requested-by': '' },
    status: 400,
    detail: /X-Requested-By/,
  },
  {
    name: 'POST with only another CSRF-looking header',
    path: `${PLC}/start`,
    method: 'POST',
    body: {},
    headers: { 'requested-by': 'MyClient', 'x-csrf-token': 'abc' },
    status: 400,
    detail: /X-Requested-By/,
  },
  { name: 'DELETE without X-Requested-By', path: 'edit/servers/ms1', method: 'DELETE', status: 400, detail: /X-Requested-By/ },
  {
    name: 'DELETE with an empty X-Requested-By',
    path: 'edit/servers/ms1',
    method: 'DELETE',
    headers: { 'x-requested-by': '' },
    status: 400,
    detail: /X-Requested-By/,
  },

  // unknown resources
  { name: 'unknown child of a bean', path: 'domainRuntime/noSuchChild', status: 404, detail: "'noSuchChild' was not found." },
  { name: 'unknown tree', path: 'noSuchTree', status: 404, detail: "'noSuchTree' was not found." },
  { name: 'unknown segment below a singleton', path: 'serverRuntime/JVMRuntime/bogus', status: 404, detail: "'bogus' was not found." },
  { name: 'unknown version', path: '/management/appserver/9.9.9', status: 404, detail: "'9.9.9' was not found." },
  { name: 'unknown version below it', path: '/management/appserver/13.0/domainRuntime', status: 404, detail: "'13.0' was not found." },
  { name: 'unknown collection item', path: 'edit/servers/noSuchServer', status: 404, detail: "'noSuchServer' was not found." },
  { name: 'unknown item with an encoded name', path: 'edit/clusters/no%20such%20cluster', status: 404, detail: "'no such cluster' was not found." },
  { name: 'a configured but not running server', path: 'domainRuntime/serverRuntimes/ms1', status: 404, detail: "'ms1' was not found." },
  { name: 'unknown partition runtime', path: 'domainRuntime/domainPartitionRuntimes/partition9', status: 404, detail: "'partition9' was not found." },
  { name: 'create forms exist only in edit', path: 'serverConfig/serverCreateForm', status: 404, detail: "'serverCreateForm' was not found." },
  { name: 'search only on tree roots', path: 'serverRuntime/JVMRuntime/search', status: 404, detail: "'search' was not found." },

  // malformed request paths
  { name: 'malformed percent-encoding in an item name', path: 'edit/servers/%zz', status: 400 },
  { name: 'malformed percent-encoding in the partition prefix', path: '/%E0%A4%A/management/appserver/latest', status: 400 },

  // wrong method
  { name: 'PUT on a bean', path: 'edit/servers/ms1', method: 'PUT', body: {}, headers: { 'x-requested-by': 'MyClient' }, status: 405, detail: /Method not allowed/ },
  { name: 'PATCH on a bean', path: 'serverRuntime', method: 'PATCH', body: {}, headers: { 'x-requested-by': 'MyClient' }, status: 405, detail: /Method not allowed/ },
  { name: 'GET on a partition action', path: `${PLC}/start`, status: 405, detail: /Method not allowed/ },
  { name: 'GET on a server runtime action', path: 'serverRuntime/shutdown', status: 405, detail: /Method not allowed/ },
  { name: 'GET on domainRuntime/search', path: 'domainRuntime/search', status: 405, detail: /Method not allowed/ },
  { name: 'POST on the version list', path: '/management/appserver', method: 'POST', body: {}, headers: { 'x-requested-by': 'MyClient' }, status: 405 },
  { name: 'DELETE on currentUser', path: 'currentUser', method: 'DELETE', headers: { 'x-requested-by': 'MyClient' }, status: 405 },

  // content negotiation
  { name: 'Accept: text/plain', path: '', headers: { accept: 'text/plain' }, status: 406 },
  // (text/html gets the browsable page: test/browser/browse.test.ts)
  { name: 'Accept: image/png only', path: 'domainRuntime', headers: { accept: 'image/png' }, status: 406 },
  { name: 'Accept: application/json;q=0', path: '', headers: { accept: 'application/json;q=0' }, status: 406 },
];

for (const c of cases) {
  test(`${c.name} -> ${c.status}`, async () => {
    const init: Parameters<typeof call>[1] = { method: c.method ?? 'GET' };
    if (c.headers) init.headers = c.headers;
    if (c.body !== undefined) init.body = c.body;
    if (c.auth !== undefined) init.auth = c.auth;
    const r = await call(url(c.path), init);
    assert.equal(r.status, c.status, `${c.method ?? 'GET'} ${c.path}: ${r.status} ${r.text}`);
    assert.equal(r.headers.get('content-type')?.split(';')[0], 'application/json');
    assert.ok(r.json !== undefined, `the body is not JSON: ${r.text}`);
    assert.deepEqual(Object.keys(r.json).sort(), ['detail', 'status', 'title', 'type']);
    assert.equal(r.json.status, c.status);
    assert.equal(r.json.type, ERROR_TYPE);
    assert.equal(r.json.title, 'FAILURE');
    assert.equal(typeof r.json.detail, 'string');
    assert.ok(r.json.detail.length > 0);
    if (typeof c.detail === 'string') assert.equal(r.json.detail, c.detail);
    else if (c.detail) assert.match(r.json.detail, c.detail);
    c.check?.(r);
  });
}

test('a 405 names in Allow the methods the resource does accept', async () => {
  // Probes whose follow-up requests cannot change anything: a bean (followed up with GET only), a
  // query action and a search (both reads, followed up with GET and POST).
  const probes: { path: string; method: string; safe: string[] }[] = [
    { path: 'edit/servers/ms1', method: 'PUT', safe: ['GET', 'HEAD'] },
    { path: `${PLC}/getState`, method: 'GET', safe: ['GET', 'HEAD', 'POST'] },
    { path: 'domainRuntime/search', method: 'GET', safe: ['GET', 'HEAD', 'POST'] },
    { path: `${PLC}/getState`, method: 'POST', safe: ['GET', 'HEAD', 'POST'] },
    { path: 'domainRuntime/search', method: 'POST', safe: ['GET', 'HEAD', 'POST'] },
  ];
  const send = (path: string, method: string) =>
    call(url(path), { method, headers: { 'x-requested-by': 'MyClient' }, ...(method === 'GET' || method === 'HEAD' ? {} : { body: {} }) });
  for (const probe of probes) {
    const r = await send(probe.path, probe.method);
    if (r.status !== 405) continue;
    const allow = r.headers.get('allow');
    assert.ok(allow, `${probe.method} ${probe.path}: 405 without an Allow header`);
    const methods = allow.split(',').map((m) => m.trim()).filter(Boolean);
    assert.ok(methods.length > 0, `${probe.method} ${probe.path}: empty Allow header`);
    assert.ok(!methods.includes(probe.method), `${probe.method} ${probe.path}: Allow lists the refused method itself`);
    for (const m of methods.filter((x) => probe.safe.includes(x))) {
      const again = await send(probe.path, m);
      assert.notEqual(
        again.status,
        405,
        `${probe.method} ${probe.path} answered 405 with Allow: ${allow}, but ${m} on it answers 405 too (${again.json?.detail})`,
      );
    }
  }
});

test("Java's default Accept header gets JSON", async () => {
  const r = await call(url('domainRuntime'), { headers: { accept: JAVA_ACCEPT } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type')?.split(';')[0], 'application/json');
  assert.equal(r.json.type, 'DomainRuntime');
});

test('a missing Accept header and wildcards get JSON', async () => {
  for (const accept of ['*/*', 'application/*', 'application/json', 'application/json, text/plain;q=0.5']) {
    const r = await call(url(''), { headers: { accept } });
    assert.equal(r.status, 200, `Accept: ${accept}`);
    assert.equal(r.json.version, '12.2.1.4.0');
  }
  const res = await fetch(url('currentUser'), { headers: { authorization: basic('admin', 'welcome1') } });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { user: string }).user, 'admin');
});

test('GET needs no X-Requested-By', async () => {
  const r = await call(url('edit/servers/ms1'));
  assert.equal(r.status, 200);
  assert.equal(r.json.name, 'ms1');
});

test('a server whose event loop runs over a second late answers 503 with Retry-After, then recovers', async () => {
  // The server runs in this process: blocking the loop here blocks it.
  const end = performance.now() + 1300;
  while (performance.now() < end) {
    // busy
  }
  const late = await call(`${srv.latest}/serverRuntime`);
  assert.equal(late.status, 503, late.text);
  assert.equal(late.headers.get('retry-after'), '2');
  assert.match(late.json.detail, /overloaded \(the event loop runs \d+ ms late\)/);
  let back = late;
  for (let i = 0; i < 40 && back.status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    back = await call(`${srv.latest}/serverRuntime`);
  }
  assert.equal(back.status, 200, 'the server did not recover');
});
