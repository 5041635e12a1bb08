// Shared libraries over HTTP on a manual clock, deployed as applications are: `POST edit/libraries`
// with a JSON model naming a path on the server, or as a multipart upload, answers 202 with a
// progress object; the library then shows in the deployment manager's libDeploymentRuntimes and in
// the runtime of the servers it is targeted to; DELETE undeploys (also through the library's
// deployment runtime and the deployment manager). Deployers may do all of it, Operators and Monitors
// may not; refused inputs answer 4xx JSON naming the field and change nothing; hostile file names
// stay inside the data directory; the upload limits hold; the uploaded archive goes once the library
// is undeployed; a watch tells a library's state under its own deployment runtime.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { after, before, test } from 'node:test';
import {
  ASYNC,
  type Client,
  type Reply,
  type RuntimeServer,
  assertAccepted,
  completed,
  createUser,
  errorDetails,
  names,
  request,
  startRuntimeServer,
} from '../support/runtime-server.js';
import { basic, startTestServer } from '../support/server.js';
import { watch } from '../support/sse.js';

const DM = 'domainRuntime/deploymentManager';
const DPO = `${DM}/deploymentProgressObjects`;
const JAR = Buffer.from('PK\u0003\u0004 a small fake library archive for the upload test\n', 'latin1');
const ADMIN_TARGET = [{ identity: ['servers', 'AdminServer'] }];

let srv: RuntimeServer;
let admin: Client;
let deployer: Client;
let operator: Client;
let monitor: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  deployer = admin.as(await createUser(admin, 'libdeployer', 'deployer-pw1', 'Deployers'));
  operator = admin.as(await createUser(admin, 'liboperator', 'operator-pw1', 'Operators'));
  monitor = admin.as(await createUser(admin, 'libmonitor', 'monitor-pw1', 'Monitors'));
});

after(async () => {
  await srv.stop(true);
});

const enc = encodeURIComponent;

/** POSTs a multipart library deployment (a relaxed-JSON `model` field and, unless `file` is null, a `sourcePath` part). */
function upload(c: Client, model: string, file: { name: string; bytes: Buffer } | null, prefer: Record<string, string> = ASYNC) {
  const form = new FormData();
  form.append('model', model);
  if (file) form.append('sourcePath', new Blob([new Uint8Array(file.bytes)]), file.name);
  return request(c.url('edit/libraries'), { method: 'POST', body: form, auth: c.auth, headers: { 'x-requested-by': 'library-tests', ...prefer } });
}

/** Checks a 202 progress-object answer for the library `name` and returns its URL. */
function accepted(r: Reply, name: string, what: string, operationType: number): string {
  const location = assertAccepted(r, what);
  assert.equal(location, `${srv.latest}/${DPO}/${enc(name)}`, what);
  assert.equal(r.json.type, 'DeploymentProgressObject', what);
  assert.equal(r.json.name, name, what);
  assert.equal(r.json.operationType, operationType, what);
  assert.equal(r.json.state, 'STATE_RUNNING', what);
  return location;
}

async function finished(location: string): Promise<void> {
  srv.advance(1000);
  const p = await completed(admin, location);
  assert.equal(p.state, 'STATE_COMPLETED', JSON.stringify(p));
  assert.equal(p.progress, 'success');
}

const libRuntime = (name: string) => admin.get(`${DM}/libDeploymentRuntimes/${enc(name)}?links=none`);
const serverLib = (name: string) => admin.get(`serverRuntime/libraryRuntimes/${enc(name)}?links=none`);

test('a library deployed by path: 202 with its progress object, then runtimes on the deployment manager and its server', async () => {
  const name = 'jsf#2.0@1.0.0.0';
  const r = await admin.post('edit/libraries', { name, sourcePath: '/srv/libs/jsf-2.0.jar', targets: ADMIN_TARGET }, ASYNC);
  const location = accepted(r, name, 'deploy a library by path', 3);
  assert.deepEqual(r.json.targets, ['AdminServer']);
  // Configured at once; running on its server once the deployment completed.
  const cfg = await admin.get(`edit/libraries/${enc(name)}?links=none&fields=name,type,sourcePath,targets`);
  assert.equal(cfg.status, 200, cfg.text);
  assert.deepEqual(cfg.json, { name, type: 'Library', sourcePath: '/srv/libs/jsf-2.0.jar', targets: ADMIN_TARGET });
  errorDetails(await serverLib(name), 404, 'library runtime before the deployment completed');
  await finished(location);
  const dr = await libRuntime(name);
  assert.equal(dr.status, 200, dr.text);
  assert.equal(dr.json.type, 'LibDeploymentRuntime');
  assert.equal(dr.json.libraryIdentifier, name);
  assert.equal(dr.json.libraryName, 'jsf');
  assert.equal(dr.json.specificationVersion, '2.0');
  assert.equal(dr.json.implementationVersion, '1.0.0.0');
  const sr = await serverLib(name);
  assert.equal(sr.status, 200, sr.text);
  assert.equal(sr.json.type, 'LibraryRuntime');
  assert.equal(sr.json.libraryName, 'jsf');
  assert.equal(sr.json.referenced, false);
  // The same configuration shows in the runtime configuration trees; the library is no application.
  assert.ok((await names(admin, 'domainConfig/libraries')).includes(name));
  assert.ok(!(await names(admin, 'serverRuntime/applicationRuntimes')).includes(name));
  assert.ok(!(await names(admin, `${DM}/appDeploymentRuntimes`)).includes(name));
});

test('a Deployer uploads a library (multipart): the archive is kept in the data directory; DELETE undeploys it and the archive goes', async () => {
  const r = await upload(deployer, "{ name: 'commons-util', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", { name: 'commons-util.jar', bytes: JAR });
  const location = accepted(r, 'commons-util', 'a Deployer uploads a library', 3);
  await finished(location);
  const cfg = await admin.get('edit/libraries/commons-util?links=none&fields=sourcePath');
  const source = cfg.json.sourcePath as string;
  assert.ok(source.startsWith(srv.dataDir) && source.endsWith('commons-util.jar'), `kept at ${source}`);
  assert.deepEqual(readFileSync(source), JAR);
  assert.equal((await serverLib('commons-util')).status, 200);

  const del = await deployer.del('edit/libraries/commons-util', ASYNC);
  const undeploying = accepted(del, 'commons-util', 'a Deployer undeploys a library', 4);
  await finished(undeploying);
  errorDetails(await admin.get('edit/libraries/commons-util'), 404, 'configuration after the undeployment');
  errorDetails(await libRuntime('commons-util'), 404, 'deployment runtime after the undeployment');
  errorDetails(await serverLib('commons-util'), 404, 'server runtime after the undeployment');
  assert.ok(!existsSync(source), `the archive of the undeployed library is still at ${source}`);
});

test('a library is undeployed through its deployment runtime and through the deployment manager', async () => {
  for (const n of ['via-runtime', 'via-manager']) {
    await finished(accepted(await admin.post('edit/libraries', { name: n, sourcePath: `/srv/libs/${n}.jar`, targets: ADMIN_TARGET }, ASYNC), n, `deploy ${n}`, 3));
  }
  const redeploy = await deployer.post(`${DM}/libDeploymentRuntimes/via-runtime/redeploy`, {}, ASYNC);
  await finished(accepted(redeploy, 'via-runtime', 'redeploy through the library runtime', 5));
  assert.equal((await serverLib('via-runtime')).status, 200, 'running after the redeployment');
  await finished(accepted(await deployer.post(`${DM}/libDeploymentRuntimes/via-runtime/undeploy`, {}, ASYNC), 'via-runtime', 'undeploy through the library runtime', 4));
  await finished(accepted(await deployer.post(`${DM}/undeploy`, { name: 'via-manager', deploymentOptions: {} }, ASYNC), 'via-manager', 'undeploy through the deployment manager', 4));
  const left = await names(admin, 'edit/libraries');
  assert.ok(!left.includes('via-runtime') && !left.includes('via-manager'), `still configured: ${left}`);
});

test('in an edit session a library is configured without a progress object and deployed by the activation', async () => {
  await admin.post('edit/changeManager/startEdit', {});
  try {
    const r = await admin.post('edit/libraries', { name: 'in-session', sourcePath: '/srv/libs/in-session.jar', targets: ADMIN_TARGET });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('location'), `${srv.latest}/edit/libraries/in-session`);
    errorDetails(await libRuntime('in-session'), 404, 'runtime before the activation');
    // Taken back inside the same session, and made again.
    assert.equal((await admin.del('edit/libraries/in-session')).status, 200);
    assert.equal((await admin.post('edit/libraries', { name: 'in-session', sourcePath: '/srv/libs/in-session.jar', targets: ADMIN_TARGET })).status, 201);
    const act = await admin.post('edit/changeManager/activate', {});
    assert.equal(act.status, 200, act.text);
  } finally {
    await admin.post('edit/changeManager/cancelEdit', {});
  }
  assert.equal((await libRuntime('in-session')).status, 200);
  assert.equal((await serverLib('in-session')).status, 200);
});

test('Operators and Monitors may neither deploy nor undeploy a library; nothing is made', async () => {
  for (const [who, c] of [['Operator', operator], ['Monitor', monitor]] as const) {
    errorDetails(await c.post('edit/libraries', { name: `by-${who}`, sourcePath: '/srv/libs/x.jar', targets: ADMIN_TARGET }, ASYNC), 403, `${who} deploys by path`);
    errorDetails(await upload(c, `{ name: 'up-${who}' }`, { name: 'x.jar', bytes: JAR }), 403, `${who} uploads`);
    errorDetails(await c.del(`edit/libraries/${enc('jsf#2.0@1.0.0.0')}`, ASYNC), 403, `${who} undeploys`);
  }
  const configured = await names(admin, 'edit/libraries');
  assert.ok(configured.includes('jsf#2.0@1.0.0.0'));
  for (const n of ['by-Operator', 'by-Monitor', 'up-Operator', 'up-Monitor']) assert.ok(!configured.includes(n), `${n} was made`);
});

/** The problems of a 400 answer, as `path: detail`. */
function problems(r: Reply, what: string): string[] {
  errorDetails(r, 400, what);
  const list = (r.json['appserver:errorsDetails'] as { 'o:errorPath'?: string; detail: string }[] | undefined) ?? [{ detail: r.json.detail as string }];
  return list.map((p) => `${p['o:errorPath'] ?? ''}: ${p.detail}`);
}

test('refused libraries answer 400 naming the field, and change nothing', async () => {
  const before = await names(admin, 'edit/libraries');
  const cases: [string, () => Promise<Reply>, RegExp][] = [
    ['a name with a slash', () => admin.post('edit/libraries', { name: 'a/b', sourcePath: '/srv/libs/x.jar' }, ASYNC), /^name: The name of the library/],
    ['an empty name', () => admin.post('edit/libraries', { name: '', sourcePath: '/srv/libs/x.jar' }, ASYNC), /^name: /],
    ['a name of dots', () => upload(admin, "{ name: '..' }", { name: 'x.jar', bytes: JAR }), /^name: /],
    ['no name', () => admin.post('edit/libraries', { sourcePath: '/srv/libs/x.jar' }, ASYNC), /^name: /],
    ['no sourcePath', () => admin.post('edit/libraries', { name: 'nosrc', targets: ADMIN_TARGET }, ASYNC), /^sourcePath: .*'sourcePath'/],
    ['an upload without its archive', () => upload(admin, "{ name: 'nosrc-up' }", null), /^sourcePath: /],
    ['a library deployed already', () => admin.post('edit/libraries', { name: 'jsf#2.0@1.0.0.0', sourcePath: '/srv/libs/other.jar' }, ASYNC), /^name: A library named 'jsf#2\.0@1\.0\.0\.0' is already deployed/],
    ['the name of an application', () => admin.post('edit/libraries', { name: 'benefits', sourcePath: '/srv/libs/benefits.jar' }, ASYNC), /^name: An application named 'benefits' is already deployed/],
    ['an upload under a library name', () => upload(admin, `{ name: 'in-session' }`, { name: 'in-session.jar', bytes: JAR }), /^name: A library named 'in-session'/],
    ['bad targets', () => admin.post('edit/libraries', { name: 'badtargets', sourcePath: '/srv/libs/x.jar', targets: ['AdminServer'] }, ASYNC), /^targets: /],
    ['an unknown target', () => admin.post('edit/libraries', { name: 'nowhere', sourcePath: '/srv/libs/x.jar', targets: [{ identity: ['servers', 'nope'] }] }, ASYNC), /targets.*nope|nope.*targets/],
    ['an unknown property', () => admin.post('edit/libraries', { name: 'typo', sourcePath: '/srv/libs/x.jar', sourcePth: 'x' }, ASYNC), /sourcePth/],
  ];
  for (const [what, send, expected] of cases) {
    const found = problems(await send(), what);
    assert.ok(found.some((p) => expected.test(p)), `${what}: ${JSON.stringify(found)}`);
  }
  // Hostile names: a library name that climbs or holds a NUL, and upload parts named to climb out of
  // the data directory, are refused naming the name or the part.
  for (const name of ['../../etc/x', 'lib\u0000x', ' padded ']) {
    const found = problems(await admin.post('edit/libraries', { name, sourcePath: '/srv/libs/x.jar' }, ASYNC), `the name ${JSON.stringify(name)}`);
    assert.ok(found.some((p) => p.startsWith('name: ')), `${JSON.stringify(name)}: ${JSON.stringify(found)}`);
  }
  for (const part of ['../../../../tmp/evil', '__proto__']) {
    const form = new FormData();
    form.append('model', "{ name: 'parts' }");
    form.append(part, new Blob([new Uint8Array(JAR)]), 'x.jar');
    const r = await request(admin.url('edit/libraries'), { method: 'POST', body: form, auth: admin.auth, headers: { 'x-requested-by': 'library-tests' } });
    const found = problems(r, `the part ${part}`);
    // A climbing name is named as the property at fault; the multipart reader refuses names every
    // object has before saying which one, so that message names the kind.
    const named = part === '__proto__' ? (p: string) => p.includes("'__proto__'") : (p: string) => p.startsWith(`${part}: `) && p.includes(`'${part}'`);
    assert.ok(found.some(named), `${part}: ${JSON.stringify(found)}`);
  }
  // An application's name is refused the other way round too.
  const app = problems(await admin.post('edit/appDeployments', { name: 'jsf#2.0@1.0.0.0', sourcePath: '/srv/apps/x.war' }, ASYNC), 'an application under a library name');
  assert.ok(app.some((p) => /^name: A library named/.test(p)), JSON.stringify(app));
  assert.deepEqual(await names(admin, 'edit/libraries'), before);
  for (const n of ['nosrc', 'nosrc-up', 'badtargets', 'nowhere', 'typo', 'parts']) errorDetails(await admin.get(`${DPO}/${n}`), 404, `progress object of the refused ${n}`);
  // The existing library is as it was.
  assert.equal((await admin.get(`edit/libraries/${enc('jsf#2.0@1.0.0.0')}?fields=sourcePath`)).json.sourcePath, '/srv/libs/jsf-2.0.jar');
});

test('hostile archive file names are made safe: the archive lands in the library\'s own folder in the data directory', async () => {
  const area = join(srv.dataDir, 'applications');
  const hostile: [string, string][] = [
    ['evil-up', '../../../../etc/passwd.jar'],
    ['evil-win', '..\\..\\windows\\evil.jar'],
    ['evil-dot', '.hidden'],
    ['evil-odd', 'na me;$(rm -rf)\u202e.jar'],
  ];
  for (const [name, file] of hostile) {
    const r = await upload(admin, `{ name: '${name}', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }`, { name: file, bytes: JAR });
    await finished(accepted(r, name, `upload as ${JSON.stringify(file)}`, 3));
    const source = (await admin.get(`edit/libraries/${name}?fields=sourcePath`)).json.sourcePath as string;
    const rel = relative(join(area, name), source);
    assert.ok(!rel.startsWith('..') && !rel.includes(sep) && rel !== '' && !rel.startsWith('.'), `${JSON.stringify(file)} was kept at ${source}`);
    assert.deepEqual(readFileSync(source), JAR);
  }
  assert.ok(!existsSync(join(srv.dataDir, 'etc')), 'a file was written outside the archive area');
});

test('the upload limits hold for libraries: an archive over the limit is a 413, and nothing is made or left staged', async () => {
  const limited = await startTestServer(undefined, { uploads: { fileBytes: 4 * 1024, stagingBytes: 64 * 1024 } });
  try {
    const form = new FormData();
    form.append('model', "{ name: 'too-big', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }");
    form.append('sourcePath', new Blob([new Uint8Array(5 * 1024)]), 'too-big.jar');
    const auth = basic('admin', 'welcome1');
    const r = await request(`${limited.latest}/edit/libraries`, { method: 'POST', body: form, auth, headers: { 'x-requested-by': 'library-tests' } });
    assert.equal(r.status, 413, r.text);
    assert.match(r.json.detail, /'sourcePath' is larger than the server accepts/);
    assert.equal((await request(`${limited.latest}/edit/libraries/too-big`, { auth })).status, 404);
    const incoming = join(limited.dataDir, 'applications', '.incoming');
    assert.deepEqual(existsSync(incoming) ? readdirSync(incoming, { recursive: true }) : [], [], 'an upload was left staged');
  } finally {
    await limited.stop(true);
  }
});

test('a watch tells a library deployment by its deployment runtime (subject library), not as an application', async () => {
  const w = await watch(`${srv.latest}/watch?kinds=runtime`, basic('admin', 'welcome1'));
  try {
    const location = accepted(await admin.post('edit/libraries', { name: 'watched', sourcePath: '/srv/libs/watched.jar', targets: ADMIN_TARGET }, ASYNC), 'watched', 'deploy watched', 3);
    const news = await w.next((e) => e.data.name === 'watched' && e.data.state === 'STATE_NEW', 'the library in deployment');
    assert.equal(news.data.subject, 'library');
    assert.equal(news.data.path, `domainRuntime/deploymentManager/libDeploymentRuntimes/watched`);
    await finished(location);
    const active = await w.next((e) => e.data.name === 'watched' && e.data.state === 'STATE_ACTIVE', 'the library deployed');
    assert.equal(active.data.subject, 'library');
    assert.equal(active.data.previousState, 'STATE_NEW');
    assert.ok(!w.events.some((e) => e.data.name === 'watched' && e.data.subject === 'application'), w.text());
  } finally {
    w.close();
  }
});

test('a library whose deployment was caught by a restart is deployed after it', async () => {
  accepted(await admin.post('edit/libraries', { name: 'late-lib', sourcePath: '/srv/libs/late.jar', targets: ADMIN_TARGET }, ASYNC), 'late-lib', 'deploy late-lib', 3);
  // The configuration is activated; the process stops before the deployment step ran.
  srv = await srv.restart();
  admin = srv.admin;
  srv.advance(10_000);
  assert.equal((await admin.get('edit/libraries/late-lib?links=none&fields=name')).status, 200);
  assert.equal((await serverLib('late-lib')).status, 200, 'the library stays in deployment for ever');
  assert.equal((await libRuntime('late-lib')).status, 200);
});
