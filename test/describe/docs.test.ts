// The API reference page at /management/appserver/docs, seen through HTTP: it loads behind the
// login, every file it names is served from this server, and it points at this server's document.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminAuth, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function get(path: string, headers: Record<string, string> = {}) {
  const r = await fetch(new URL(path, srv.origin), { headers: { authorization: adminAuth, ...headers } });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

test('a browser without a login is asked for one', async () => {
  const r = await fetch(`${srv.origin}/management/appserver/docs`, { headers: { accept: BROWSER_ACCEPT } });
  assert.equal(r.status, 401);
  assert.equal(r.headers.get('www-authenticate'), 'Basic realm="appserver"');
});

test('the page loads, names only files of this server, and each is served with its type', async () => {
  const page = await get('/management/appserver/docs', { accept: BROWSER_ACCEPT });
  assert.equal(page.status, 200, page.text.slice(0, 300));
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(page.text, /<div id="reference"><\/div>/);
  const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(refs.length >= 4, refs.join(' '));
  const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, png: /^image\/png/ };
  for (const ref of refs) {
    assert.ok(ref.startsWith('/management/appserver/docs/'), `${ref} is served here, not fetched from elsewhere`);
    const r = await get(ref);
    assert.equal(r.status, 200, ref);
    assert.match(r.headers.get('content-type') ?? '', types[ref.split('.').pop()!]!, ref);
  }
  const bundle = await get('/management/appserver/docs/swagger-ui-bundle.js');
  assert.ok(bundle.text.length > 500_000, 'the Swagger UI bundle of the npm package');
  assert.match(bundle.text, /SwaggerUIBundle/);
});

test("the page's start script loads this server's document, and that URL serves it", async () => {
  const start = await get('/management/appserver/docs/reference.js');
  assert.equal(start.status, 200);
  assert.match(start.text, /SwaggerUIBundle\(/);
  assert.match(start.text, /window\.location\.origin \+ '\/management\/appserver\/' \+ version \+ '\/openapi\.json\?tree='/);
  // One document per tree: each URL the page lists serves that tree's paths only.
  const trees = /var trees = \[([^\]]+)\]/.exec(start.text)![1]!.split(',').map((t) => t.trim().replace(/'/g, ''));
  assert.deepEqual(trees, ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime', 'lifecycle', 'versions']);
  const edit = await get('/management/appserver/latest/openapi.json?tree=edit');
  assert.equal(edit.status, 200);
  const editDoc = JSON.parse(edit.text);
  assert.deepEqual(editDoc.tags.map((t: any) => t.name), ['edit']);
  assert.ok(Object.keys(editDoc.paths).every((p) => p.startsWith('/appserver/latest/edit')));
  assert.ok(editDoc.components.schemas.Server && !editDoc.components.schemas.ServerRuntime, 'only the components the tree uses');
  assert.match(start.text, /X-Requested-By/, 'try it sends the header writes need');
  const doc = await get('/management/appserver/latest/openapi.json', { accept: 'application/json,*/*' });
  assert.equal(doc.status, 200);
  assert.equal(JSON.parse(doc.text).openapi, '3.1.0');
});

test('"try it" from the page works against this server: same origin, the login, the header the script adds', async () => {
  // What Swagger UI sends for the GET of a server and for an action: the document's server URL is
  // relative, so the request goes to this origin with the credentials the browser holds.
  const doc = JSON.parse((await get('/management/appserver/latest/openapi.json')).text);
  const base = new URL(doc.servers[0].url, `${srv.origin}/management/appserver/docs`).href;
  const read = await fetch(`${base}/appserver/latest/serverConfig/servers/ms1`, { headers: { authorization: adminAuth } });
  assert.equal(read.status, 200);
  const call = await fetch(`${base}/appserver/latest/domainRuntime/serverLifeCycleRuntimes/AdminServer/getIPv4URL`, {
    method: 'POST',
    headers: { authorization: adminAuth, 'content-type': 'application/json', 'x-requested-by': 'api-reference' },
    body: JSON.stringify({ protocol: 'http' }),
  });
  assert.ok(doc.paths['/appserver/latest/domainRuntime/serverLifeCycleRuntimes/{serverLifeCycleRuntime}/getIPv4URL'], 'getIPv4URL is in the document');
  const answer = await call.text();
  assert.equal(call.status, 200, answer);
  assert.match(JSON.parse(answer).return, /^http:\/\//);
});

test('unknown files are 404 in the error envelope, and the page needs no JSON Accept', async () => {
  const missing = await get('/management/appserver/docs/index.html');
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.text).status, 404);
  const traversal = await get('/management/appserver/docs/..%2Fpackage.json');
  assert.equal(traversal.status, 404);
});
