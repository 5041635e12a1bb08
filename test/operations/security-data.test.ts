// Security operations with real effects: refreshCache makes the next request check its password
// again; hasSecurityValidationWarnings reports real warnings (data files open to other accounts, a
// lockout switched off); the default authenticator exports its users and groups to a private file
// of the data directory and imports them back (a user removed since logs in again with its old
// password); single sign-on metadata is published from the server's configuration.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hashing } from '../../src/security/passwords.js';
import { AUTHN, type Client, type RuntimeServer, basic, createUser, errorDetails, startRuntimeServer } from '../support/runtime-server.js';

const SECURITY = 'domainRuntime/domainSecurityRuntime';
const LOCKOUT = 'edit/securityConfiguration/realms/myrealm/userLockoutManager';
const EDIT_AUTHN = 'edit/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
});

after(async () => {
  await srv.stop(true);
});

const ret = async (path: string, body: Record<string, unknown> = {}) => {
  const r = await admin.post(path, body);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.json;
};

test('refreshCache: the next request of a user checks its password again, once', async () => {
  const alice = admin.as(await createUser(admin, 'alice', 'alice-pw1', 'Monitors'));
  assert.equal((await alice.get('domainRuntime')).status, 200);
  const cached = hashing.computations;
  assert.equal((await alice.get('domainRuntime')).status, 200);
  assert.equal(hashing.computations, cached, 'a known credential was checked again');
  assert.deepEqual(await ret(`${SECURITY}/refreshCache`), {});
  const checked = hashing.computations;
  assert.equal((await alice.get('domainRuntime')).status, 200);
  assert.ok(hashing.computations > checked, 'the credential was not checked again after refreshCache');
  const again = hashing.computations;
  assert.equal((await alice.get('domainRuntime')).status, 200);
  assert.equal(hashing.computations, again, 'the credential is cached again afterwards');
  const record = (await admin.get('domainRuntime/auditRecords?links=none')).json.items.find((r: { action: string }) => r.action === 'refreshCache');
  assert.match(record.detail, /verified credentials? forgotten/);
});

test('hasSecurityValidationWarnings: data files open to other accounts, and a lockout switched off, are warnings', async () => {
  assert.deepEqual(await ret(`${SECURITY}/hasSecurityValidationWarnings`), { return: false });
  chmodSync(srv.dataDir, 0o755);
  try {
    assert.deepEqual(await ret(`${SECURITY}/hasSecurityValidationWarnings`), { return: true });
  } finally {
    chmodSync(srv.dataDir, 0o700);
  }
  assert.deepEqual(await ret(`${SECURITY}/hasSecurityValidationWarnings`), { return: false });
  assert.equal((await admin.post(LOCKOUT, { lockoutEnabled: false })).status, 200);
  assert.deepEqual(await ret(`${SECURITY}/hasSecurityValidationWarnings`), { return: true });
  assert.equal((await admin.post(LOCKOUT, { lockoutEnabled: true })).status, 200);
  assert.deepEqual(await ret(`${SECURITY}/hasSecurityValidationWarnings`), { return: false });
  // Monitors may ask (a query of a type they may read).
  const monitor = admin.as(await createUser(admin, 'watcher', 'watcher-pw1', 'Monitors'));
  assert.equal((await monitor.post(`${SECURITY}/hasSecurityValidationWarnings`, {})).status, 200);
});

test('exportData and importData move users and groups through a private file of the data directory', async () => {
  await createUser(admin, 'bob', 'bob-pw-123', 'Operators');
  assert.equal((await admin.post(`${AUTHN}/createGroup`, { groupName: 'Night', description: 'night shift' })).status, 200);
  assert.equal((await admin.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Night', memberUserOrGroupName: 'bob' })).status, 200);
  assert.deepEqual(await ret(`${EDIT_AUTHN}/exportData`, { format: 'DefaultAtn', filename: 'realm.json', constraints: {} }), {});
  const file = join(srv.dataDir, 'security-data', 'realm.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(srv.dataDir, 'security-data')).mode & 0o777, 0o700);
  const data = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(data.format, 'DefaultAtn');
  const bob = data.users.find((u: { name: string }) => u.name === 'bob');
  assert.match(bob.passwordHash, /^scrypt\$/);
  assert.ok(!readFileSync(file, 'utf8').includes('bob-pw-123'), 'a password in clear text');
  assert.deepEqual(data.groups.find((g: { name: string }) => g.name === 'Night').members, ['bob']);

  // Constraints choose what goes out; passwords=false leaves the hashes behind.
  assert.deepEqual(await ret(`${EDIT_AUTHN}/exportData`, { format: 'DefaultAtn', filename: 'night.json', constraints: { users: 'bob', groups: 'Night', passwords: 'false' } }), {});
  const night = JSON.parse(readFileSync(join(srv.dataDir, 'security-data', 'night.json'), 'utf8'));
  assert.deepEqual(night.users, [{ name: 'bob', description: 'test user bob' }]);
  assert.deepEqual(night.groups.map((g: { name: string }) => g.name), ['Night']);

  // bob and his group go; the import brings them back, and bob logs in with his old password.
  assert.equal((await admin.post(`${AUTHN}/removeUser`, { userName: 'bob' })).status, 200);
  assert.equal((await admin.post(`${AUTHN}/removeGroup`, { groupName: 'Night' })).status, 200);
  assert.equal((await admin.as(basic('bob', 'bob-pw-123')).get('domainRuntime')).status, 401);
  assert.deepEqual(await ret(`${EDIT_AUTHN}/importData`, { format: 'DefaultAtn', filename: 'realm.json', constraints: {} }), {});
  assert.equal((await admin.as(basic('bob', 'bob-pw-123')).get('domainRuntime')).status, 200);
  assert.deepEqual(await ret(`${AUTHN}/isMember`, { parentGroupName: 'Night', memberUserOrGroupName: 'bob', recursive: false }), { return: true });
  assert.deepEqual(await ret(`${AUTHN}/isMember`, { parentGroupName: 'Operators', memberUserOrGroupName: 'bob', recursive: false }), { return: true });
  const record = (await admin.get('domainRuntime/auditRecords?links=none')).json.items.find((r: { action: string }) => r.action === 'importData');
  assert.match(record.detail, /1 user, 1 group and 2 memberships added; existing .*'admin'/);
});

test('realm data files: names stay inside their folder, formats and constraints are checked, bad files change nothing', async () => {
  const refused = async (op: string, body: Record<string, unknown>, pattern: RegExp) => {
    const details = errorDetails(await admin.post(`${EDIT_AUTHN}/${op}`, body), 400, `${op} ${JSON.stringify(body)}`);
    assert.match(details.join(' '), pattern);
  };
  for (const filename of ['../escape.json', '..', 'a/b.json', 'c\\d.json', '']) {
    await refused('exportData', { format: 'DefaultAtn', filename, constraints: {} }, /file name|must name a file/);
  }
  assert.equal(existsSync(join(srv.dataDir, 'escape.json')), false);
  await refused('exportData', { format: 'XML', filename: 'x.json', constraints: {} }, /"XML" is unknown.*'DefaultAtn'/);
  await refused('exportData', { format: 'DefaultAtn', filename: 'x.json', constraints: { colour: 'red' } }, /'colour' is unknown/);
  await refused('exportData', { format: 'DefaultAtn', filename: 'x.json', constraints: { users: 'nobody-here' } }, /names no user 'nobody-here'/);
  await refused('importData', { format: 'DefaultAtn', filename: 'missing.json', constraints: {} }, /There is no file 'security-data\/missing.json'/);
  await refused('importData', { format: 'DefaultAtn', filename: 'realm.json', constraints: { users: 'bob' } }, /takes no import constraints/);
  // A file edited by hand with a hash this server would not make is refused whole.
  const users = (await admin.post(`${AUTHN}/listUsers`, { nameWildcard: '*', maximumToReturn: 0 })).json.return;
  const forged = join(srv.dataDir, 'security-data', 'forged.json');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(forged, JSON.stringify({ format: 'DefaultAtn', users: [{ name: 'mallory', description: '', passwordHash: 'scrypt$1048576$8$1$AAAA$BBBB' }], groups: [] }), { mode: 0o600 });
  await refused('importData', { format: 'DefaultAtn', filename: 'forged.json', constraints: {} }, /password hash of 'mallory'.*is not one this server makes/);
  assert.deepEqual((await admin.post(`${AUTHN}/listUsers`, { nameWildcard: '*', maximumToReturn: 0 })).json.return, users);
});

test('publish writes the server single sign-on metadata from its configuration, and may refuse to overwrite', async () => {
  const publish = (body: Record<string, unknown>) => admin.post('serverRuntime/singleSignOnServicesRuntime/publish', body);
  const none = errorDetails(await publish({ fileName: 'idp.xml', prohibitOverwrite: false }), 400, 'publish without an entity id');
  assert.match(none[0]!, /no entityID.*edit\/servers\/AdminServer\/singleSignOnServices/);
  const sso = 'edit/servers/AdminServer/singleSignOnServices';
  const set = await admin.post(sso, { entityID: 'urn:example:idp', identityProviderEnabled: true, identityProviderArtifactBindingEnabled: false, publishedSiteURL: 'https://sso.example.com/saml2' });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual((await publish({ fileName: 'idp.xml', prohibitOverwrite: true })).json, {});
  const file = join(srv.dataDir, 'saml-metadata', 'idp.xml');
  const xml = readFileSync(file, 'utf8');
  assert.match(xml, /<md:EntityDescriptor [^>]*entityID="urn:example:idp"/);
  assert.match(xml, /<md:IDPSSODescriptor /);
  assert.match(xml, /Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https:\/\/sso.example.com\/saml2\/idp\/sso\/post"/);
  assert.match(xml, /HTTP-Redirect/);
  assert.doesNotMatch(xml, /HTTP-Artifact/, 'a binding switched off is published');
  assert.doesNotMatch(xml, /SPSSODescriptor/, 'the service provider is not enabled');
  const again = errorDetails(await publish({ fileName: 'idp.xml', prohibitOverwrite: true }), 400, 'publish over an existing file');
  assert.match(again[0]!, /already exists/);
  assert.deepEqual((await publish({ fileName: 'idp.xml', prohibitOverwrite: false })).json, {});
  errorDetails(await publish({ fileName: '../idp.xml', prohibitOverwrite: false }), 400, 'a path in the file name');
});
