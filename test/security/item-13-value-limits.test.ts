// Item 13: values the server must not accept. Numbers outside a property's legal range; a number
// where a string is expected (or text that is not a plain number where a number is); strings
// holding NUL or a lone surrogate, anywhere (properties maps and list elements included); strings
// over 64 KiB. The same rules hold for the action arguments and Lifecycle Manager fields that are
// stored. A refused write leaves nothing behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem, AUTHN, changeManager, type Client, errorItems, ESC, type Reply, serverForTests } from '../support/edit.js';
import { call, type TestServer } from '../support/server.js';

const LIMIT = 64 * 1024;
const MS1 = 'edit/servers/ms1';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

/** The Lifecycle Manager's resources (same credentials, X-Requested-By on writes). */
const lcm = (path: string, body: unknown) =>
  call(`${srv.origin}/management/lifecycle/latest/${path}`, { method: 'POST', body, headers: { 'x-requested-by': 'item-13' } });

async function activeServer(name: string): Promise<Record<string, unknown>> {
  const r = await admin.get(`serverConfig/servers/${name}?links=none&fields=listenPort,notes,tags,listenPortEnabled`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** A write refused with 400, naming `path` and matching `detail`. */
async function refused(r: Promise<Reply> | Reply, path: string, detail: RegExp, what: string): Promise<void> {
  const items = errorItems(await r, 400, what);
  assertProblem(items, detail, path);
}

test('item 13: an integer outside its legal range is refused, naming the property and the range', async () => {
  const before = await activeServer('ms1');
  for (const port of [-1, 0, 65536, 2147483647]) {
    await refused(admin.post(MS1, { listenPort: port }), 'listenPort', new RegExp(`listenPort.*between 1 and 65535, not ${port}`), `listenPort ${port}`);
  }
  await refused(admin.post('edit/servers', { name: 'range1', listenPort: -1 }), 'listenPort', /between 1 and 65535/, 'create with listenPort -1');
  assert.equal((await admin.get('edit/servers/range1')).status, 404, 'a refused create made a server');
  await refused(admin.post(`${MS1}/SSL`, { listenPort: 70000 }), 'listenPort', /between 1 and 65535, not 70000/, 'SSL listenPort');
  await refused(admin.post('edit', { administrationPort: 0 }), 'administrationPort', /between 1 and 65535, not 0/, 'the domain administration port');
  await refused(admin.post('edit/clusters/cluster1', { frontendHTTPPort: -5 }), 'frontendHTTPPort', /between 0 and 65535, not -5/, 'a negative front-end port');
  assert.deepEqual(await activeServer('ms1'), before, 'a refused write changed ms1');
  // The ends of a range are legal; 0 is legal where it means "not set".
  for (const port of [1, 65535, 7003]) assert.equal((await admin.post(MS1, { listenPort: port })).status, 200, `listenPort ${port}`);
  assert.equal((await admin.post('edit/clusters/cluster1', { frontendHTTPPort: 0 })).status, 200);
  assert.equal((await changeManager(admin)).locked, false);
});

test('item 13: a number is not taken for a string, and only plain decimal text for a number', async () => {
  const before = await activeServer('ms1');
  for (const value of [5, true, { text: 'x' }, ['x']]) {
    await refused(admin.post(MS1, { notes: value }), 'notes', /notes.*must be a string, not /, `notes ${JSON.stringify(value)}`);
  }
  await refused(admin.post(MS1, { tags: ['ok', 7] }), 'tags', /tags.*element \(at index 1\) that must be a string, not 7/, 'a number in a list of strings');
  for (const text of [' 7010', '7010 ', '7e3', '0x1b5a', '7010abc', '', '+7010', '7010.0', 'NaN']) {
    await refused(admin.post(MS1, { listenPort: text }), 'listenPort', /listenPort.*must be an integer/, `listenPort ${JSON.stringify(text)}`);
  }
  assert.deepEqual(await activeServer('ms1'), before, 'a refused write changed ms1');
  // Plain decimal text is a number (the `key=value` form has nothing but text), stored as a number.
  assert.equal((await admin.post(MS1, { listenPort: '7010' })).status, 200);
  assert.equal((await activeServer('ms1')).listenPort, 7010);
  const form = await admin.post(MS1, 'listenPort=7011&notes=5&listenPortEnabled=false', { 'content-type': 'text/plain' });
  assert.equal(form.status, 200, form.text);
  assert.deepEqual(await activeServer('ms1'), { ...before, listenPort: 7011, notes: '5', listenPortEnabled: false });
  assert.equal((await admin.post(MS1, { listenPort: 7003, notes: null, listenPortEnabled: null })).status, 200);
  // Action arguments and the fields of the Lifecycle Manager follow the same rule.
  await refused(admin.post(`${AUTHN}/createUser`, { userName: 'num1', password: 'secret-num1', description: 42 }), 'description', /description.*must be a string, not 42/, 'createUser');
  assert.equal((await admin.post(`${AUTHN}/userExists`, { userName: 'num1' })).json.return, false);
  await refused(admin.post(`${AUTHN}/setUserDescription`, { userName: 'admin', description: 1 }), 'description', /must be a string/, 'setUserDescription');
  await refused(admin.post(ESC, { name: 'num-session', description: 7 }), 'description', /description.*must be a string, not 7/, 'edit session');
  await refused(lcm('tenants', { name: 'num-tenant', topLevelDir: 12 }), 'topLevelDir', /topLevelDir.*must be a string, not 12/, 'tenant');
  await refused(lcm('runtimes', { name: 'num-rt', type: 'database', hostName: 'h', port: 1, properties: [{ name: 'p', value: 5 }] }), 'properties', /value.*must be a string, not 5/, 'runtime property');
});

test('item 13: NUL and lone surrogates are refused in every string, lists and maps included', async () => {
  const before = await activeServer('ms1');
  const bad: [string, RegExp][] = [
    ['a\u0000b', /NUL/],
    ['\ud800x', /lone surrogate \(\\ud800\) at position 0/],
    ['x\udc00', /lone surrogate \(\\udc00\) at position 1/],
  ];
  for (const [text, why] of bad) {
    const what = JSON.stringify(text);
    await refused(admin.post(MS1, { notes: text }), 'notes', why, `notes ${what}`);
    await refused(admin.post(MS1, { tags: ['fine', text] }), 'tags', new RegExp(`element \\(at index 1\\) that .*${why.source}`), `tags ${what}`);
    await refused(admin.post('edit/mailSessions', { name: 'mail-bad', properties: { key: text } }), 'properties', why, `properties value ${what}`);
    await refused(admin.post('edit/mailSessions', { name: 'mail-bad', properties: { [text]: 'v' } }), 'properties', why, `properties name ${what}`);
    await refused(admin.post(`${AUTHN}/createUser`, { userName: 'nul1', password: 'secret-nul1', description: text }), 'description', why, `user description ${what}`);
    await refused(admin.post(`${AUTHN}/createGroup`, { groupName: 'nulgroup', description: text }), 'description', why, `group description ${what}`);
    await refused(admin.post(`${AUTHN}/setUserDescription`, { userName: 'admin', description: text }), 'description', why, `setUserDescription ${what}`);
    await refused(admin.post(ESC, { name: 'nul-session', description: text }), 'description', why, `edit session ${what}`);
    await refused(lcm('tenants', { name: 'nul-tenant', topLevelDir: text }), 'topLevelDir', why, `tenant ${what}`);
    await refused(lcm('runtimes', { name: 'nul-rt', type: 'database', hostName: 'h', port: 1, properties: [{ name: 'p', values: ['a', text] }] }), 'properties', why, `runtime property ${what}`);
    await refused(lcm('runtimes', { name: 'nul-rt', type: 'database', hostName: 'h', port: 1, properties: [{ name: text, value: 'v' }] }), 'properties', why, `runtime property name ${what}`);
  }
  await refused(admin.post(MS1, 'notes=a%00b', { 'content-type': 'text/plain' }), 'notes', /NUL/, 'a NUL in a form');
  // A reference naming a bean with a lone surrogate names nothing: a 400, not a fault of the server.
  await refused(admin.post(MS1, { cluster: ['clusters', '\ud800'] }), 'cluster', /must be a reference/, 'a lone surrogate in a reference');
  await refused(admin.post(MS1, { cluster: { identity: ['clusters', 'c\udc00'] } }), 'cluster', /must be a reference/, 'a lone surrogate in an identity');
  assert.deepEqual(await activeServer('ms1'), before, 'a refused write changed ms1');
  assert.equal((await admin.get(`${ESC}/nul-session`)).status, 404);
  assert.equal((await admin.post(`${AUTHN}/userExists`, { userName: 'nul1' })).json.return, false);
  assert.equal((await admin.post(`${AUTHN}/groupExists`, { groupName: 'nulgroup' })).json.return, false);
  assert.equal((await admin.get('serverConfig/mailSessions/mail-bad')).status, 404);
  assert.equal((await call(`${srv.origin}/management/lifecycle/latest/tenants/nul-tenant`)).status, 404);
  // A surrogate pair is a character like any other.
  assert.equal((await admin.post(MS1, { notes: 'smile \ud83d\ude00', tags: ['\ud83d\ude00'] })).status, 200);
  assert.equal((await activeServer('ms1')).notes, 'smile \ud83d\ude00');
});

test('item 13: a configuration string holds at most 64 KiB, and the 400 says which and how long', async () => {
  const before = await activeServer('ms2');
  const at = 'x'.repeat(LIMIT);
  assert.equal((await admin.post('edit/servers/ms2', { notes: at })).status, 200, 'exactly 64 KiB');
  assert.equal((await activeServer('ms2')).notes, at);
  await refused(admin.post('edit/servers/ms2', { notes: `${at}y` }), 'notes', new RegExp(`notes.*is ${LIMIT + 1} bytes long.*at most ${LIMIT} bytes`), 'one byte over');
  // Bytes of UTF-8 count, not characters.
  await refused(admin.post('edit/servers/ms2', { notes: '\u00e9'.repeat(LIMIT / 2 + 1) }), 'notes', new RegExp(`is ${LIMIT + 2} bytes long`), 'two-byte characters');
  // The 9 MB value that made every read of a bean 9 MB: the body limit (1 MiB) refuses it unread.
  const huge = await admin.post('edit/servers/ms2', { notes: 'z'.repeat(9 * 1024 * 1024) });
  assert.equal(huge.status, 413, huge.text.slice(0, 300));
  // Below the body limit, the string limit names the property and its length.
  const big = await admin.post('edit/servers/ms2', { notes: 'z'.repeat(900 * 1024) });
  await refused(big, 'notes', new RegExp(`is ${900 * 1024} bytes long`), '900 KiB of notes');
  const read = await admin.get('edit/servers/ms2');
  assert.ok(read.text.length < 2 * LIMIT, `ms2 reads ${read.text.length} characters`);
  await refused(admin.post('edit/servers/ms2', { tags: ['a'.repeat(40_000), 'b'.repeat(40_000)] }), 'tags', /more than 65536 bytes/, 'a list of long strings');
  await refused(admin.post('edit/mailSessions', { name: 'mail-long', properties: { a: 'a'.repeat(40_000), b: 'b'.repeat(40_000) } }), 'properties', /more than 65536 bytes/, 'a map of long strings');
  assert.equal((await admin.post('edit/servers/ms2', { notes: before.notes ?? null })).status, 200);
  const long = 'd'.repeat(LIMIT + 1);
  await refused(admin.post(`${AUTHN}/createUser`, { userName: 'long1', password: 'secret-long1', description: long }), 'description', /65537 bytes long/, 'user description');
  await refused(admin.post(ESC, { name: 'long-session', description: long }), 'description', /65537 bytes long/, 'edit session description');
  await refused(lcm('tenants', { name: 'long-tenant', topLevelDir: long }), 'topLevelDir', /65537 bytes long/, 'tenant');
  await refused(lcm('runtimes', { name: 'long-rt', type: 'database', hostName: 'h', port: 1, properties: [{ name: 'p', value: long }] }), 'properties', /65537 bytes long/, 'runtime property');
  assert.equal((await admin.post(`${AUTHN}/userExists`, { userName: 'long1' })).json.return, false);
  assert.equal((await changeManager(admin)).locked, false);
});
