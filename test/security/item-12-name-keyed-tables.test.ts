// Item 12: names that are also names of Object.prototype's members. Servers, partitions, resource
// groups, applications, users, groups and edit sessions called `__proto__`, `constructor`... are
// ordinary names: they are created, activated, started and stopped, and survive a restart. And no
// request, whatever keys its body or query holds, changes Object.prototype in the server process.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ASYNC,
  AUTHN,
  type Client,
  type RuntimeServer,
  assertAccepted,
  basic,
  completed,
  names,
  request,
  startRuntimeServer,
} from '../support/runtime-server.js';

const NAMES = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'];
const seg = encodeURIComponent;
const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
const plc = (p: string) => `domainRuntime/domainPartitionRuntimes/${seg(p)}/partitionLifeCycleRuntime`;
const password = (i: number) => `secret-${i}-pw`;
/** Every own property of Object.prototype before any request: nothing may be added to it. */
const PROTOTYPE = Object.getOwnPropertyNames(Object.prototype).sort();

let srv: RuntimeServer;
let admin: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
});

after(async () => {
  await srv?.stop(true);
});

function assertPrototypeUntouched(what: string): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), PROTOTYPE, `${what}: Object.prototype gained properties`);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, what);
}

async function ok(r: Promise<{ status: number; text: string }>, status: number, what: string): Promise<void> {
  const got = await r;
  assert.equal(got.status, status, `${what}: ${got.text.slice(0, 400)}`);
}

async function state(path: string): Promise<unknown> {
  const r = await admin.get(`${path}?links=none&fields=state`);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.json.state;
}

test('item 12: servers, partitions, resource groups, applications and edit sessions named like Object.prototype members are created, activated and started', async () => {
  for (const [i, n] of NAMES.entries()) {
    const target = [{ identity: ['servers', n] }];
    const created = await admin.post('edit/servers', { name: n, listenPort: 7100 + i, notes: `server ${n}` });
    assert.equal(created.status, 201, `server ${n}: ${created.text}`);
    assert.equal(created.headers.get('location'), `${srv.latest}/edit/servers/${seg(n)}`);
    await ok(admin.post('edit/partitions', { name: n, availableTargets: target, defaultTargets: target }), 201, `partition ${n}`);
    await ok(admin.post(`edit/partitions/${seg(n)}/resourceGroups`, { name: n, useDefaultTarget: true }), 201, `resource group ${n}`);
    assertAccepted(await admin.post('edit/appDeployments', { name: n, sourcePath: `/srv/apps/app${i}.war`, targets: target }, ASYNC), `application ${n}`);
    await ok(admin.post(ESC, { name: n, description: `session ${n}` }), 201, `edit session ${n}`);
  }
  srv.advance(1000);
  for (const c of ['servers', 'partitions', 'appDeployments']) {
    const listed = await names(admin, `serverConfig/${c}`);
    for (const n of NAMES) assert.ok(listed.includes(n), `${c}: ${n} missing from ${JSON.stringify(listed)}`);
  }
  assert.deepEqual((await names(admin, ESC)).sort(), [...NAMES].sort());
  for (const [i, n] of NAMES.entries()) {
    const s = (await admin.get(`serverConfig/servers/${seg(n)}?links=none&fields=name,listenPort,notes`)).json;
    assert.deepEqual(s, { name: n, listenPort: 7100 + i, notes: `server ${n}` });
    assert.deepEqual(await names(admin, `serverConfig/partitions/${seg(n)}/resourceGroups`), [n]);
    // Each edit session is its own: a change made in it shows there, then is activated.
    const session = { 'appserver.edit.session': n };
    await ok(admin.post('edit/changeManager/startEdit', {}, session), 200, `startEdit in ${n}`);
    await ok(admin.post(`edit/servers/${seg(n)}`, { notes: `edited in session ${n}` }, session), 200, `edit in ${n}`);
    assert.equal((await admin.get(`edit/servers/${seg(n)}?links=none&fields=notes`, session)).json.notes, `edited in session ${n}`);
    assert.equal((await admin.get(`edit/servers/${seg(n)}?links=none&fields=notes`)).json.notes, `server ${n}`);
    await ok(admin.post('edit/changeManager/activate', {}, session), 200, `activate ${n}`);
    assert.equal((await admin.get(`serverConfig/servers/${seg(n)}?links=none&fields=notes`)).json.notes, `edited in session ${n}`);
  }
  assertPrototypeUntouched('after creating the beans');
  // They start to RUNNING: servers, the partitions on them, their resource groups and applications.
  const jobs = [];
  for (const n of NAMES) jobs.push(assertAccepted(await admin.post(`domainRuntime/serverLifeCycleRuntimes/${seg(n)}/start`, {}, ASYNC), `start server ${n}`));
  srv.advance(2000);
  for (const j of jobs) assert.equal((await completed(admin, j)).taskStatus, 'TASK COMPLETED');
  const partitionJobs = [];
  for (const n of NAMES) partitionJobs.push(assertAccepted(await admin.post(`${plc(n)}/start`, {}, ASYNC), `start partition ${n}`));
  srv.advance(500);
  for (const j of partitionJobs) assert.equal((await completed(admin, j)).taskStatus, 'TASK COMPLETED');
  for (const n of NAMES) {
    assert.equal(await state(`domainRuntime/serverLifeCycleRuntimes/${seg(n)}`), 'RUNNING', `server ${n}`);
    assert.equal(await state(plc(n)), 'RUNNING', `partition ${n}`);
    assert.equal((await admin.post(`${plc(n)}/getState`, { serverName: n })).json.return, 'RUNNING', `partition ${n} on server ${n}`);
    assert.equal(await state(`${plc(n)}/resourceGroupLifeCycleRuntimes/${seg(n)}`), 'RUNNING', `resource group ${n}`);
    assert.deepEqual(await names(admin, `domainRuntime/serverRuntimes/${seg(n)}/partitionRuntimes`), [n]);
    assert.deepEqual(await names(admin, `domainRuntime/serverRuntimes/${seg(n)}/applicationRuntimes`), [n]);
  }
  assertPrototypeUntouched('after starting servers and partitions');
});

test('item 12: users named like Object.prototype members sign in, and everything survives a restart', async () => {
  for (const [i, n] of NAMES.entries()) {
    await ok(admin.post(`${AUTHN}/createUser`, { userName: n, password: password(i), description: `user ${n}` }), 200, `createUser ${n}`);
    await ok(admin.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Administrators', memberUserOrGroupName: n }), 200, `add ${n} to Administrators`);
  }
  for (const [i, n] of NAMES.entries()) {
    const me = await request(`${srv.latest}/currentUser`, { auth: basic(n, password(i)) });
    assert.equal(me.status, 200, `${n} signs in: ${me.text}`);
    assert.equal(me.json.user, n);
    assert.equal((await admin.post(`${AUTHN}/userExists`, { userName: n })).json.return, true);
    assert.equal((await admin.post(`${AUTHN}/getUserDescription`, { userName: n })).json.return, `user ${n}`);
  }
  const listed = (await admin.post(`${AUTHN}/listUsers`, { nameWildcard: '*', maximumToReturn: 0 })).json.return;
  for (const n of NAMES) assert.ok(listed.includes(n), `listUsers misses ${n}`);
  // All of it survives a restart, states included.
  srv = await srv.restart();
  admin = srv.admin;
  for (const [i, n] of NAMES.entries()) {
    assert.equal((await admin.get(`serverConfig/servers/${seg(n)}?links=none&fields=notes`)).json.notes, `edited in session ${n}`);
    assert.equal(await state(`domainRuntime/serverLifeCycleRuntimes/${seg(n)}`), 'RUNNING', `server ${n}`);
    assert.equal(await state(plc(n)), 'RUNNING', `partition ${n}`);
    assert.equal(await state(`${plc(n)}/resourceGroupLifeCycleRuntimes/${seg(n)}`), 'RUNNING', `resource group ${n}`);
    assert.deepEqual(await names(admin, `domainRuntime/serverRuntimes/${seg(n)}/applicationRuntimes`), [n]);
    assert.equal((await request(`${srv.latest}/currentUser`, { auth: basic(n, password(i)) })).json?.user, n, `${n} signs in after the restart`);
  }
  assert.deepEqual((await names(admin, ESC)).sort(), [...NAMES].sort());
});

test('item 12: they stop back to SHUTDOWN, groups take over from the users, and that survives a restart too', async () => {
  const jobs = [];
  for (const n of NAMES) jobs.push(assertAccepted(await admin.post(`${plc(n)}/shutdown`, {}, ASYNC), `shut down partition ${n}`));
  srv.advance(500);
  for (const j of jobs) await completed(admin, j);
  const serverJobs = [];
  for (const n of NAMES) serverJobs.push(assertAccepted(await admin.post(`domainRuntime/serverLifeCycleRuntimes/${seg(n)}/shutdown`, {}, ASYNC), `shut down server ${n}`));
  srv.advance(1000);
  for (const j of serverJobs) await completed(admin, j);
  // A user and a group cannot share a name: the users go, groups of the same names come, each
  // holding one member who is an administrator through it.
  for (const [i, n] of NAMES.entries()) {
    await ok(admin.post(`${AUTHN}/removeUser`, { userName: n }), 200, `removeUser ${n}`);
    await ok(admin.post(`${AUTHN}/createGroup`, { groupName: n, description: `group ${n}` }), 200, `createGroup ${n}`);
    await ok(admin.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Administrators', memberUserOrGroupName: n }), 200, `nest ${n}`);
    await ok(admin.post(`${AUTHN}/createUser`, { userName: `member${i}`, password: password(i), description: '' }), 200, `member of ${n}`);
    await ok(admin.post(`${AUTHN}/addMemberToGroup`, { groupName: n, memberUserOrGroupName: `member${i}` }), 200, `member${i} in ${n}`);
  }
  srv = await srv.restart();
  admin = srv.admin;
  for (const [i, n] of NAMES.entries()) {
    assert.equal(await state(`domainRuntime/serverLifeCycleRuntimes/${seg(n)}`), 'SHUTDOWN', `server ${n}`);
    assert.deepEqual(await state(plc(n)), 'SHUTDOWN', `partition ${n}`);
    assert.equal((await admin.post(`${AUTHN}/userExists`, { userName: n })).json.return, false);
    assert.equal((await admin.post(`${AUTHN}/groupExists`, { groupName: n })).json.return, true);
    assert.equal((await admin.post(`${AUTHN}/getGroupDescription`, { groupName: n })).json.return, `group ${n}`);
    assert.deepEqual((await admin.post(`${AUTHN}/listGroupMembers`, { groupName: n, memberUserOrGroupNameWildcard: '*', maximumToReturn: 0 })).json.return, [`member${i}`]);
    const me = await request(`${srv.latest}/currentUser`, { auth: basic(`member${i}`, password(i)) });
    assert.equal(me.status, 200, `member${i}, an administrator through group ${n}: ${me.text}`);
  }
  assertPrototypeUntouched('after the restarts');
});

test('item 12: bodies, forms and queries with __proto__ and constructor.prototype keys leave Object.prototype alone', async () => {
  const hostile = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}';
  const refusedWrites: [string, string, Record<string, string>?][] = [
    ['edit/servers/ms1', hostile],
    ['edit/servers', `{"name": "pp1", "__proto__": {"polluted": "yes"}}`],
    ['edit/servers/ms1', "{__proto__: {polluted: 'yes'}, constructor: {prototype: {polluted: 'yes'}}}", { 'content-type': 'text/plain' }],
    ['edit/servers/ms1', '__proto__[polluted]=yes&constructor[prototype][polluted]=yes&__proto__=yes', { 'content-type': 'text/plain' }],
    [`${AUTHN}/createUser`, '{"userName": "pp2", "password": "secret-pp2", "description": "", "__proto__": {"polluted": "yes"}}'],
  ];
  for (const [path, body, headers] of refusedWrites) {
    const r = await admin.post(path, body, headers);
    assert.equal(r.status, 400, `${path} ${body}: ${r.text}`);
    assertPrototypeUntouched(`${path} ${body}`);
  }
  // A form's `__proto__` key is a key like any other: here, a property the server does not have.
  const form = await admin.post('edit/servers/ms1', '__proto__=yes', { 'content-type': 'text/plain' });
  assert.equal(form.status, 400, form.text);
  assert.match(form.text, /__proto__/);
  // Maps of names to values hold such names as ordinary entries.
  const props = '{"__proto__": "a", "constructor": "b", "toString": "c", "mail.host": "smtp.example.test"}';
  const mail = await admin.post('edit/mailSessions', `{"name": "mail1", "properties": ${props}}`);
  assert.equal(mail.status, 201, mail.text);
  const shown = (await admin.get('serverConfig/mailSessions/mail1?links=none&fields=properties')).json.properties;
  assert.deepEqual(Object.entries(shown).sort(), Object.entries(JSON.parse(props)).sort());
  const queries = [
    'serverConfig/servers?__proto__[polluted]=yes&constructor[prototype][polluted]=yes&fields=name',
    'serverConfig/servers/ms1?__proto__=yes&constructor=yes&links=none',
  ];
  for (const q of queries) {
    assert.equal((await admin.get(q)).status, 200, q);
    assertPrototypeUntouched(q);
  }
  const search = await admin.post('domainRuntime/search', `{"fields": [], "children": ${hostile}}`);
  assert.equal(search.status, 200, search.text);
  const lcm = await request(`${srv.origin}/management/lifecycle/latest/runtimes`, {
    method: 'POST',
    body: '{"name": "rt-pp", "type": "database", "hostName": "h", "port": 1, "__proto__": {"polluted": "yes"}, "properties": [{"name": "__proto__", "value": "x"}]}',
    headers: { 'x-requested-by': 'item-12' },
  });
  assert.equal(lcm.status, 201, lcm.text);
  const upload = new FormData();
  upload.append('__proto__', '{"polluted": "yes"}');
  upload.append('model', '{"name": "pp-upload", "targets": [{"identity": ["servers", "AdminServer"]}]}');
  upload.append('__proto__', new Blob([new Uint8Array(Buffer.from('PK fake'))]), 'x.war');
  const deploy = await request(admin.url('edit/appDeployments'), { method: 'POST', body: upload, headers: { 'x-requested-by': 'item-12', ...ASYNC } });
  assert.equal(deploy.status, 400, `an upload whose only file part is called __proto__ has no sourcePath: ${deploy.text}`);
  assertPrototypeUntouched('after hostile bodies, forms, queries, searches and uploads');
});
