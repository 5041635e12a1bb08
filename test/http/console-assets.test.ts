// The console's files are served by name from a list made once at start-up (every module and style
// sheet of its folder), without credentials. Hostile names — climbing, encoded, NUL, very long, other
// methods — find nothing and get a JSON 404 (or the method's refusal, or a 401 once outside /console),
// never a file from elsewhere.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { basic, call, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

test("every module and style sheet of the console's folder is served without credentials, even with wrong ones", async () => {
  const folder = new URL('../../../src/console/static/', import.meta.url);
  const names = readdirSync(folder).filter((n) => /\.(js|css)$/.test(n));
  assert.ok(names.includes('app.js') && names.includes('lib.js') && names.includes('app.css'), names.join(', '));
  for (const name of names) {
    const r = await call(`${srv.origin}/console/${name}`, { auth: null });
    assert.equal(r.status, 200, name);
    assert.match(r.headers.get('content-type') ?? '', name.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, name);
    assert.equal(r.headers.get('www-authenticate'), null, name);
  }
  const wrong = await call(`${srv.origin}/console/app.js`, { auth: basic('nobody', 'wrong') });
  assert.equal(wrong.status, 200);
});

test('hostile names find nothing: a JSON 404 naming no file of the machine', async () => {
  const hostile = [
    '../package.json',
    '..%2fpackage.json',
    '%2e%2e%2f%2e%2e%2fREADME.md',
    '%2e%2e/%2e%2e/package.json',
    'vendor/../../package.json',
    'vendor/..%2f..%2fpackage.json',
    '....//....//etc/passwd',
    '%252e%252e%252fpackage.json',
    'app.js%00.css',
    'app.js/',
    'APP.JS',
    '.hidden.js',
    'index.html',
    'static/app.js',
    '..\\..\\package.json',
    `${'a'.repeat(4000)}.js`,
    'assets.ts',
    'vendor/',
    'vendor/preact.js',
  ];
  for (const name of hostile) {
    const r = await call(`${srv.origin}/console/${name}`, { auth: null });
    // A name the client itself resolves out of /console (../) reaches the interface, which asks for credentials.
    assert.ok([400, 401, 404, 414].includes(r.status), `${name}: ${r.status}`);
    assert.ok(!/"name":\s*"appserver-admin"|"dependencies"|root:x:0/.test(r.text), `${name} served a file: ${r.text.slice(0, 80)}`);
    if (r.status === 404) assert.match(r.headers.get('content-type') ?? '', /application\/json/, name);
  }
  // The server goes on serving its files.
  assert.equal((await call(`${srv.origin}/console/app.js`, { auth: null })).status, 200);
});

test('other methods are not served the files, and the server does not fail', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    const r = await call(`${srv.origin}/console/app.js`, { method, auth: null, body: { x: 1 }, headers: { 'x-requested-by': 't' } });
    assert.ok(r.status >= 400 && r.status < 500, `${method}: ${r.status}`);
    assert.ok(!r.text.includes('import '), `${method} was served the script`);
  }
  assert.equal((await call(`${srv.origin}/console/app.js`, { method: 'HEAD', auth: null })).status, 200);
});
