// Stateless basic authentication under concurrency: every request is judged on its own credentials.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ADMIN, basic, call, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;

before(async () => {
  srv = await startTestServer();
  // These tests are about concurrent checks of one credential, not about lockouts (item 10 has
  // those): the realm allows more failed logins than they make.
  const r = await call(`${srv.latest}/edit/securityConfiguration/realms/myrealm/userLockoutManager`, {
    method: 'POST',
    body: { lockoutThreshold: 1000 },
    headers: { 'x-requested-by': 'auth-tests' },
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await srv.stop(true);
});

const me = (auth: string) => call(`${srv.latest}/currentUser`, { auth });

test('20 concurrent first requests with the same credentials all succeed', async () => {
  // The very first requests of a fresh server: nothing is remembered yet, all check at once.
  const results = await Promise.all(Array.from({ length: 20 }, () => me(basic(ADMIN.user, ADMIN.password))));
  assert.deepEqual(
    results.map((r) => r.status),
    Array(20).fill(200),
  );
  for (const r of results) assert.equal(r.json.user, 'admin');
});

test('a wrong password among 20 concurrent requests fails alone with 401', async () => {
  const wrongAt = 7;
  const auths = Array.from({ length: 20 }, (_, i) => (i === wrongAt ? basic(ADMIN.user, 'wrong-password') : basic(ADMIN.user, ADMIN.password)));
  const results = await Promise.all(auths.map((auth, i) => call(`${srv.latest}/${i % 2 ? 'currentUser' : 'domainRuntime'}`, { auth })));
  const statuses = results.map((r) => r.status);
  assert.deepEqual(
    statuses,
    statuses.map((_, i) => (i === wrongAt ? 401 : 200)),
  );
  const refused = results[wrongAt]!;
  assert.equal(refused.json.status, 401);
  assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic /);
  for (const [i, r] of results.entries()) {
    if (i === wrongAt) continue;
    if (i % 2) assert.equal(r.json.user, 'admin');
    else assert.equal(r.json.type, 'DomainRuntime');
  }
});

test('a wrong password checked concurrently with the right one, first time for both', async () => {
  // Fresh credentials neither of which was seen before: a right and a wrong password for a new
  // spelling of the header, interleaved, must not share a verdict.
  const right = `basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;
  const wrong = `basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}x`).toString('base64')}`;
  const auths = Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? wrong : right));
  const results = await Promise.all(auths.map((auth) => me(auth)));
  assert.deepEqual(
    results.map((r) => r.status),
    auths.map((a) => (a === wrong ? 401 : 200)),
  );
});

test('repeated wrong passwords stay refused and do not disturb the right one', async () => {
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => me(i < 10 ? basic(ADMIN.user, `guess-${i}`) : basic('nobody', ADMIN.password))),
  );
  assert.deepEqual(
    results.map((r) => r.status),
    Array(20).fill(401),
  );
  const ok = await me(basic(ADMIN.user, ADMIN.password));
  assert.equal(ok.status, 200);
  const again = await me(basic(ADMIN.user, 'guess-0'));
  assert.equal(again.status, 401, 'a refused credential is not remembered as good');
});
