// Deployments over HTTP on a manual clock: a multipart upload to edit/appDeployments answers 202
// with its deployment progress object and the application becomes active when the clock moves; the
// application state queries; stop/start through the deployment manager; undeploy by DELETE; the
// JSON deploy action; who may deploy; refused deployments.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  ASYNC,
  type Client,
  type RuntimeServer,
  assertAccepted,
  completed,
  createUser,
  errorDetails,
  job,
  names,
  request,
  startRuntimeServer,
} from '../support/runtime-server.js';

const DM = 'domainRuntime/deploymentManager';
const DPO = `${DM}/deploymentProgressObjects`;
const ARS = 'domainRuntime/appRuntimeStateRuntime';
const WAR = Buffer.from('PK\u0003\u0004 a small fake web archive for the upload test\n', 'latin1');

let srv: RuntimeServer;
let admin: Client;
let deployer: Client;
let operator: Client;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  deployer = admin.as(await createUser(admin, 'deployer1', 'deployer-pw1', 'Deployers'));
  operator = admin.as(await createUser(admin, 'operator1', 'operator-pw1', 'Operators'));
});

after(async () => {
  await srv.stop(true);
});

/** POSTs a multipart deployment (a relaxed-JSON `model` field and, unless `file` is null, a `sourcePath` part). */
function upload(c: Client, model: string, file: { name: string; bytes: Buffer } | null, prefer = ASYNC) {
  const form = new FormData();
  form.append('model', model);
  if (file) form.append('sourcePath', new Blob([new Uint8Array(file.bytes)]), file.name);
  return request(c.url('edit/appDeployments'), { method: 'POST', body: form, auth: c.auth, headers: { 'x-requested-by': 'runtime-tests', ...prefer } });
}

async function currentState(body: Record<string, unknown>): Promise<unknown> {
  const r = await admin.post(`${ARS}/getCurrentState`, body);
  assert.equal(r.status, 200, `getCurrentState ${JSON.stringify(body)}: ${r.text}`);
  return r.json.return;
}

async function ret(path: string, body: Record<string, unknown>): Promise<unknown> {
  const r = await admin.post(path, body);
  assert.equal(r.status, 200, `${path} ${JSON.stringify(body)}: ${r.text}`);
  return r.json.return;
}

/** Checks a 202 progress-object answer of `app` and returns its URL. */
function accepted(r: Awaited<ReturnType<typeof request>>, app: string, what: string): string {
  const location = assertAccepted(r, what);
  assert.equal(location, `${srv.latest}/${DPO}/${app}`);
  assert.equal(r.json.type, 'DeploymentProgressObject');
  assert.equal(r.json.name, app);
  assert.equal(r.json.applicationName, app);
  assert.equal(r.json.state, 'STATE_RUNNING');
  assert.equal(r.json.progress, 'processing');
  return location;
}

async function finished(location: string): Promise<any> {
  const p = await completed(admin, location);
  assert.equal(p.state, 'STATE_COMPLETED', JSON.stringify(p));
  assert.equal(p.progress, 'success');
  return p;
}

const appRuntime = (app: string) => admin.get(`serverRuntime/applicationRuntimes/${app}?links=none`);

test('a multipart upload deploys with respond-async: 202, progress object, active after the clock moves', async () => {
  const r = await upload(admin, "{ name: 'upl', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", { name: 'upl.war', bytes: WAR });
  const location = accepted(r, 'upl', 'upload upl');
  assert.deepEqual(r.json.targets, ['AdminServer']);
  assert.equal(await currentState({ appid: 'upl', target: 'AdminServer' }), 'STATE_NEW');
  errorDetails(await appRuntime('upl'), 404, 'application runtime before the deployment completed');

  srv.advance(1000);
  const p = await finished(location);
  assert.equal(p.completed, true);
  assert.equal(await currentState({ appid: 'upl', target: 'AdminServer' }), 'STATE_ACTIVE');
  const rt = await appRuntime('upl');
  assert.equal(rt.status, 200, rt.text);
  assert.equal(rt.json.applicationName, 'upl');
  assert.equal(rt.json.type, 'ApplicationRuntime');

  const cfg = await admin.get('edit/appDeployments/upl?links=none&fields=name,sourcePath,targets');
  assert.equal(cfg.status, 200, cfg.text);
  assert.deepEqual(cfg.json.targets, [{ identity: ['servers', 'AdminServer'] }]);
  const source = cfg.json.sourcePath as string;
  assert.ok(source.startsWith(srv.dataDir), `the upload is not kept under the data directory: ${source}`);
  assert.ok(existsSync(source), `no uploaded file at ${source}`);
  assert.deepEqual(readFileSync(source), WAR);
  assert.ok((await names(admin, `${DM}/appDeploymentRuntimes`)).includes('upl'));
});

test('application state queries: the three shapes of getCurrentState, module ids, intended state, admin mode', async () => {
  assert.equal(await currentState({ appid: 'upl', target: 'AdminServer' }), 'STATE_ACTIVE');
  assert.equal(await currentState({ appid: 'upl', moduleid: 'upl', target: 'AdminServer' }), 'STATE_ACTIVE');
  const unknownModule = await admin.post(`${ARS}/getCurrentState`, { appid: 'upl', moduleid: 'nope', target: 'AdminServer' });
  assert.ok(errorDetails(unknownModule, 400, 'unknown module').some((d) => d.includes('nope')));
  const unknownSub = await admin.post(`${ARS}/getCurrentState`, { appid: 'upl', moduleid: 'upl', subModuleId: 'nope-sub', target: 'AdminServer' });
  assert.ok(errorDetails(unknownSub, 400, 'unknown submodule').some((d) => d.includes('nope-sub')));
  const unknownApp = await admin.post(`${ARS}/getCurrentState`, { appid: 'no-such-app', target: 'AdminServer' });
  errorDetails(unknownApp, 400, 'unknown application');

  assert.deepEqual(await ret(`${ARS}/getModuleIds`, { appid: 'upl' }), ['upl']);
  assert.equal(await ret(`${ARS}/getIntendedState`, { appid: 'upl' }), 'STATE_ACTIVE');
  assert.equal(await ret(`${ARS}/getIntendedState`, { appid: 'upl', target: 'AdminServer' }), 'STATE_ACTIVE');
  assert.equal(await ret(`${ARS}/isAdminMode`, { appid: 'upl', target: 'AdminServer' }), false);
});

test('stop and start through appDeploymentRuntimes move the application to PREPARED and back', async () => {
  const ADR = `${DM}/appDeploymentRuntimes/upl`;
  const stop = await admin.post(`${ADR}/stop`, {}, ASYNC);
  const stopping = accepted(stop, 'upl', 'stop upl');
  assert.equal(await currentState({ appid: 'upl', target: 'AdminServer' }), 'STATE_ACTIVE', 'stopped before the clock moved');
  srv.advance(1000);
  await finished(stopping);
  assert.equal(await currentState({ appid: 'upl', target: 'AdminServer' }), 'STATE_PREPARED');
  assert.equal(await ret(`${ARS}/getIntendedState`, { appid: 'upl' }), 'STATE_PREPARED');
  errorDetails(await appRuntime('upl'), 404, 'application runtime of a stopped application');
  assert.equal((await admin.get('edit/appDeployments/upl?links=none&fields=name')).status, 200, 'stop removed the configuration');

  const start = await admin.post(`${ADR}/start`, {}, ASYNC);
  const starting = accepted(start, 'upl', 'start upl');
  srv.advance(1000);
  await finished(starting);
  assert.equal(await currentState({ appid: 'upl', target: 'AdminServer' }), 'STATE_ACTIVE');
  assert.equal((await appRuntime('upl')).status, 200);
});

test('DELETE edit/appDeployments/upl with respond-async undeploys: 202, then gone from configuration and runtime', async () => {
  const r = await admin.del('edit/appDeployments/upl', ASYNC);
  const location = accepted(r, 'upl', 'undeploy upl');
  srv.advance(1000);
  await finished(location);
  errorDetails(await admin.get('edit/appDeployments/upl'), 404, 'configuration after undeploy');
  errorDetails(await appRuntime('upl'), 404, 'application runtime after undeploy');
  assert.ok(!(await names(admin, `${DM}/appDeploymentRuntimes`)).includes('upl'));
  assert.ok(!(await names(admin, 'serverRuntime/applicationRuntimes')).includes('upl'));
  errorDetails(await admin.post(`${ARS}/getCurrentState`, { appid: 'upl', target: 'AdminServer' }), 400, 'state of an undeployed application');
});

test('deploymentManager/deploy with JSON deploys an application by path', async () => {
  const r = await admin.post(`${DM}/deploy`, { name: 'jd', applicationPath: '/srv/apps/jd.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
  const location = accepted(r, 'jd', 'deploy jd');
  assert.deepEqual(r.json.targets, ['AdminServer']);
  assert.equal(await currentState({ appid: 'jd', target: 'AdminServer' }), 'STATE_NEW');
  srv.advance(1000);
  await finished(location);
  assert.equal(await currentState({ appid: 'jd', target: 'AdminServer' }), 'STATE_ACTIVE');
  const cfg = await admin.get('edit/appDeployments/jd?links=none&fields=sourcePath,targets');
  assert.equal(cfg.status, 200, cfg.text);
  assert.equal(cfg.json.sourcePath, '/srv/apps/jd.war');
  assert.deepEqual(cfg.json.targets, [{ identity: ['servers', 'AdminServer'] }]);
  assert.equal((await appRuntime('jd')).status, 200);
});

test('a Deployer may deploy (JSON and upload); an Operator may not', async () => {
  const dj = await deployer.post(`${DM}/deploy`, { name: 'dep-json', applicationPath: '/srv/apps/dep-json.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
  const djLocation = accepted(dj, 'dep-json', 'Deployer deploys by JSON');
  const du = await upload(deployer, "{ name: 'dep-upl', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", { name: 'dep-upl.war', bytes: WAR });
  const duLocation = accepted(du, 'dep-upl', 'Deployer uploads');
  srv.advance(1000);
  await finished(djLocation);
  await finished(duLocation);
  assert.equal(await currentState({ appid: 'dep-json', target: 'AdminServer' }), 'STATE_ACTIVE');
  assert.equal(await currentState({ appid: 'dep-upl', target: 'AdminServer' }), 'STATE_ACTIVE');

  const oj = await operator.post(`${DM}/deploy`, { name: 'op-json', applicationPath: '/srv/apps/op-json.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
  errorDetails(oj, 403, 'Operator deploys by JSON');
  const ou = await upload(operator, "{ name: 'op-upl', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", { name: 'op-upl.war', bytes: WAR });
  errorDetails(ou, 403, 'Operator uploads');
  const oe = await operator.post('edit/appDeployments', { name: 'op-edit', sourcePath: '/srv/apps/op-edit.war', targets: [{ identity: ['servers', 'AdminServer'] }] }, ASYNC);
  errorDetails(oe, 403, 'Operator creates an app deployment');
  const od = await operator.del('edit/appDeployments/dep-json', ASYNC);
  errorDetails(od, 403, 'Operator undeploys');
  const deployed = await names(admin, 'edit/appDeployments');
  for (const n of ['op-json', 'op-upl', 'op-edit']) assert.ok(!deployed.includes(n), `${n} was created`);
  assert.ok(deployed.includes('dep-json'));
  errorDetails(await admin.get(`${DPO}/op-json`), 404, 'progress object of a refused deployment');
});

test('a deployment of a name already deployed is refused', async () => {
  const before = await names(admin, 'edit/appDeployments');
  const json = await admin.post(`${DM}/deploy`, { name: 'jd', applicationPath: '/srv/apps/other.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
  assert.ok(errorDetails(json, 400, 'duplicate JSON deploy').some((d) => d.includes('jd')));
  const up = await upload(admin, "{ name: 'inventory', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", { name: 'inventory.ear', bytes: WAR });
  assert.ok(errorDetails(up, 400, 'duplicate upload').some((d) => d.includes('inventory')));
  assert.deepEqual(await names(admin, 'edit/appDeployments'), before);
  const cfg = await admin.get('edit/appDeployments/jd?links=none&fields=sourcePath');
  assert.equal(cfg.json.sourcePath, '/srv/apps/jd.war', 'the refused deployment changed the existing one');
  assert.equal(await currentState({ appid: 'inventory', target: 'AdminServer' }), 'STATE_ACTIVE');
});

test('a refused upload under the name of an uploaded application leaves its archive untouched', async () => {
  const cfg = await admin.get('edit/appDeployments/dep-upl?links=none&fields=sourcePath');
  assert.equal(cfg.status, 200, cfg.text);
  const source = cfg.json.sourcePath as string;
  assert.deepEqual(readFileSync(source), WAR);
  const other = Buffer.from('PK\u0003\u0004 a different archive that must not replace the deployed one\n', 'latin1');
  const r = await upload(admin, "{ name: 'dep-upl', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", { name: 'dep-upl.war', bytes: other });
  errorDetails(r, 400, 'duplicate upload of dep-upl');
  assert.equal((await admin.get('edit/appDeployments/dep-upl?links=none&fields=sourcePath')).json.sourcePath, source);
  assert.deepEqual(readFileSync(source), WAR, `the refused upload replaced the archive of the deployed application at ${source}`);
});

test('a deployment without a sourcePath is refused, naming sourcePath', async () => {
  const before = await names(admin, 'edit/appDeployments');
  const up = await upload(admin, "{ name: 'nosrc', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }", null);
  assert.ok(errorDetails(up, 400, 'upload without an archive').some((d) => d.includes('sourcePath')));
  const json = await admin.post('edit/appDeployments', { name: 'nosrc2', targets: [{ identity: ['servers', 'AdminServer'] }] }, ASYNC);
  assert.ok(errorDetails(json, 400, 'JSON create without sourcePath').some((d) => d.includes('sourcePath')));
  assert.deepEqual(await names(admin, 'edit/appDeployments'), before);
  errorDetails(await admin.get(`${DPO}/nosrc`), 404, 'progress object of a refused deployment');
  // The progress objects of the deployments that did happen are still there.
  assert.equal((await job(admin, `${DPO}/jd`)).state, 'STATE_COMPLETED');
});

test('an application whose deployment was caught by a restart is active after it', async () => {
  const r = await admin.post(`${DM}/deploy`, { name: 'late', applicationPath: '/srv/apps/late.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC);
  accepted(r, 'late', 'deploy late');
  // The configuration is activated; the process stops before the deployment step ran.
  srv = await srv.restart();
  admin = srv.admin;
  srv.advance(10_000);
  assert.equal((await admin.get('edit/appDeployments/late?links=none&fields=name')).status, 200);
  assert.equal(await currentState({ appid: 'late', target: 'AdminServer' }), 'STATE_ACTIVE', 'the application stays STATE_NEW for ever');
  assert.equal((await appRuntime('late')).status, 200);
});
