// Item 11: HTTP basic credentials are decoded strictly (canonical base64, valid UTF-8, a colon),
// so that one credential has one spelling: odd spellings of the right password are refused, and
// every accepted spelling of one credential shares one check (one password hash).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as passwords from '../../src/security/passwords.js';
import { ADMIN, adminAuth, basic, call, startTestServer, type TestServer } from '../support/server.js';

/** Password hashes (key derivations) computed so far by this process, where the servers under test run. */
const hashes = (): number => (passwords as { hashing?: { computations: number } }).hashing?.computations ?? Number.NaN;

let srv: TestServer;
const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

const me = (authorization: string) => call(`${srv.latest}/currentUser?links=none`, { auth: authorization });

async function createUser(name: string, password: string): Promise<void> {
  const post = (op: string, body: unknown) => call(`${srv.latest}/${AUTHN}/${op}`, { method: 'POST', body, headers: { 'x-requested-by': 'item-11' } });
  const made = await post('createUser', { userName: name, password, description: 'item 11' });
  assert.equal(made.status, 200, made.text);
  const joined = await post('addMemberToGroup', { groupName: 'Monitors', memberUserOrGroupName: name });
  assert.equal(joined.status, 200, joined.text);
}

function assertRefused(r: Awaited<ReturnType<typeof me>>, what: string, detail?: RegExp): void {
  assert.equal(r.status, 401, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.status, 401, what);
  assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm=/, what);
  if (detail) assert.match(r.json.detail, detail, what);
}

// "admin:welcome1" is YWRtaW46d2VsY29tZTE= in canonical base64.
const CANONICAL = Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64');

test('item 11: other spellings of the right base64 are refused', async () => {
  assert.equal(CANONICAL, 'YWRtaW46d2VsY29tZTE=');
  const spellings: [string, string][] = [
    ['junk after the padding', `${CANONICAL}junk`],
    ['punctuation after the padding', `${CANONICAL}!!!`],
    ['a character outside the alphabet', 'YWRt*aW46d2VsY29tZTE='],
    ['white space inside', 'YWRtaW46d2Vs Y29tZTE='],
    ['padding left out', 'YWRtaW46d2VsY29tZTE'],
    ['padding doubled', `${CANONICAL}=`],
    ['stray bits before the padding', 'YWRtaW46d2VsY29tZTF='],
  ];
  for (const [what, token] of spellings) {
    assertRefused(await me(`Basic ${token}`), what, /base64/);
  }
  // The canonical spelling still works.
  const ok = await me(`Basic ${CANONICAL}`);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.user, ADMIN.user);
});

test('item 11: the URL-safe base64 alphabet is refused', async () => {
  // Passwords whose canonical base64 holds '/' and '+'.
  await createUser('u11', 'pw?>?>1234');
  await createUser('u11b', 'pw>>>~~~1');
  const slash = Buffer.from('u11:pw?>?>1234').toString('base64');
  const plus = Buffer.from('u11b:pw>>>~~~1').toString('base64');
  assert.ok(slash.includes('/') && plus.includes('+'));
  assert.equal((await me(`Basic ${slash}`)).status, 200);
  assert.equal((await me(`Basic ${plus}`)).status, 200);
  assertRefused(await me(`Basic ${slash.replaceAll('/', '_')}`), "'_' for '/'", /base64/);
  assertRefused(await me(`Basic ${plus.replaceAll('+', '-')}`), "'-' for '+'", /base64/);
});

test('item 11: credentials that are not valid UTF-8 are refused', async () => {
  // A password holding U+FFFD: the invalid byte 0xFF decoded leniently would turn into it.
  await createUser('utf11', 'pw\uFFFD-12345');
  assert.equal((await me(basic('utf11', 'pw\uFFFD-12345'))).status, 200);
  const bytes = Buffer.concat([Buffer.from('utf11:pw'), Buffer.from([0xff]), Buffer.from('-12345')]);
  assertRefused(await me(`Basic ${bytes.toString('base64')}`), 'an invalid UTF-8 byte', /UTF-8/);
  // An overlong encoding of '/' (0xC0 0xAF) is no spelling of anything either.
  const overlong = Buffer.concat([Buffer.from('utf11:pw'), Buffer.from([0xc0, 0xaf])]);
  assertRefused(await me(`Basic ${overlong.toString('base64')}`), 'an overlong UTF-8 sequence', /UTF-8/);
});

test('item 11: a colon between user name and password is required, and the user name may not be empty', async () => {
  assertRefused(await me(`Basic ${Buffer.from('admin').toString('base64')}`), 'no colon', /':'/);
  assertRefused(await me(`Basic ${Buffer.from(':welcome1').toString('base64')}`), 'empty user name', /user name/);
  assertRefused(await me('Basic '), 'nothing after the scheme', /empty/);
  assertRefused(await me(`Basic ${'A'.repeat(6000)}`), 'too long', /longer/);
});

test('item 11: malformed credentials cost no password check and count as no failed login', async () => {
  const before = hashes();
  for (let i = 0; i < 12; i++) assertRefused(await me(`Basic ${CANONICAL}junk${i}`), `malformed #${i}`);
  assert.equal(hashes(), before, 'a malformed credential was hashed');
  // Twelve malformed tries are not twelve failed logins: the administrator is not locked out.
  const ok = await me(adminAuth);
  assert.equal(ok.status, 200, ok.text);
});

test('item 11: every accepted spelling of one credential is one check (one hash)', async () => {
  // A credential no request used yet, so that nothing about it is remembered.
  await createUser('one11', 'one-spelling-1');
  const token = Buffer.from('one11:one-spelling-1').toString('base64');
  const before = hashes();
  for (const header of [`Basic ${token}`, `basic ${token}`, `BASIC ${token}`, `Basic  ${token}`, `bAsIc ${token}`]) {
    const r = await me(header);
    assert.equal(r.status, 200, `${header}: ${r.text}`);
    assert.equal(r.json.user, 'one11');
  }
  assert.equal(hashes() - before, 1, 'each spelling of the scheme was checked again');
});
