// The console's Deployments view in a real browser: an administrator uploads a web archive built
// here (with a deployment plan), picks its target, watches the upload's progress bar reach the end
// and the deployment run to ACTIVE on that target, then stops, starts, redeploys and undeploys it;
// the server's own error text shows when it refuses an upload and when a deployment fails; an
// upload made in an edit session waits for its activation; one the server holds unread can be
// cancelled; an archive deployed as a shared library is listed apart and can be redeployed and
// undeployed; an Operator may only start and stop; a Monitor sees the applications (kept current
// by the watch stream) and is offered nothing; the view fits a phone's width, and shows a long list
// a page at a time with a search.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ADMIN, basic, call, startTestServer, type TestServer } from '../support/server.js';
import { runCli } from '../support/cli.js';
import { storeFor } from '../support/store.js';
import { browserSkip, consoleSignIn, consoleTab, launchBrowser } from '../support/browser.js';
import { type ControlServer, startControlServer } from '../support/control.js';
import { makeZip, webXml } from '../support/zip.js';

const skip = browserSkip();
const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
const WRITE = { 'x-requested-by': 'test' };
const ARS = 'domainRuntime/appRuntimeStateRuntime';

// A real web archive: a descriptor with its servlet, and a megabyte and a half of content that does
// not compress, so that the upload takes more than one step.
const ARCHIVE = makeZip({
  'WEB-INF/web.xml': webXml([{ name: 'Hello', className: 'demo.Hello', patterns: ['/hello/*'] }]),
  'WEB-INF/lib/content.bin': randomBytes(1536 * 1024),
  'index.html': '<!doctype html><title>hello</title><p>hello</p>\n',
});

// A shared library's archive: a manifest naming it, and a class file's worth of bytes.
const LIBRARY = makeZip({
  'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\nExtension-Name: commons\nSpecification-Version: 1.0\n',
  'commons/Util.class': randomBytes(2048),
});

// A deployment plan to go with it: an override of the web module's session time-out.
const PLAN = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<deployment-plan>
  <application-name>hello</application-name>
  <variable-definition><variable><name>SessionTimeout</name><value>45</value></variable></variable-definition>
</deployment-plan>
`);

let srv: ControlServer;
let browser: Browser;

async function consolePage(user: string, password: string, width = 1280): Promise<Page> {
  const page = await consoleTab(browser, srv.origin, { width });
  await consoleSignIn(page, user, password);
  await page.getByRole('link', { name: 'Deployments' }).click();
  await page.locator('tr[data-app="benefits"]').waitFor();
  return page;
}

/** Waits until the application's state on `target`, as the page shows it, is `state`. */
async function stateShown(page: Page, app: string, target: string, state: string): Promise<void> {
  const item = page.locator(`tr[data-app="${app}"] .app-state[data-target="${target}"]`);
  await page.waitForFunction(
    ([a, t, s]) => document.querySelector(`tr[data-app="${a}"] .app-state[data-target="${t}"]`)?.getAttribute('data-state') === s,
    [app, target, state] as const,
    { timeout: 20_000 },
  );
  assert.equal(await item.innerText(), `${target}: ${state.replace(/^STATE_/, '')}`);
}

async function serverState(app: string, target: string): Promise<unknown> {
  const r = await call(`${srv.latest}/${ARS}/getCurrentState`, { method: 'POST', body: { appid: app, target }, headers: WRITE });
  assert.equal(r.status, 200, r.text);
  return r.json.return;
}

/** Clicks an action of an application and waits for its progress object to end well. */
async function act(row: Locator, op: string): Promise<void> {
  await row.locator(`button[data-op="${op}"]`).click();
  if (op === 'undeploy') await row.locator('button[data-op="confirm-undeploy"]').click();
  const app = await row.getAttribute('data-app');
  await row.page().locator(`.task.done[data-task="${app} ${op}"]`).waitFor({ timeout: 30_000 });
}

describe('the Deployments view of the console', { skip }, () => {
  before(async () => {
    // The wall clock runs the server (a deployment step takes 1 s, as by default); the control
    // interface injects a failing deployment.
    srv = await startControlServer({ manual: false });
    browser = await launchBrowser();
    for (const [user, password, group] of [
      ['watcher', 'watcher-pw1', 'Monitors'],
      ['operator1', 'operator-pw1', 'Operators'],
      ['deployer1', 'deployer-pw1', 'Deployers'],
    ]) {
      for (const [path, body] of [
        [`${AUTHN}/createUser`, { userName: user, password, description: 'deployments console test' }],
        [`${AUTHN}/addMemberToGroup`, { groupName: group, memberUserOrGroupName: user }],
      ] as const) {
        const r = await call(`${srv.latest}/${path}`, { method: 'POST', body, headers: WRITE });
        assert.equal(r.status, 200, r.text);
      }
    }
  });

  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('the demo applications are listed with their state on each target and each member of a cluster', async () => {
    const page = await consolePage(ADMIN.user, ADMIN.password);
    const benefits = page.locator('tr[data-app="benefits"]');
    // benefits is on cluster1, whose servers are shut down: there it is not running yet.
    await stateShown(page, 'benefits', 'cluster1', 'STATE_NEW');
    await stateShown(page, 'benefits', 'ms1', 'STATE_NEW');
    assert.equal(await serverState('benefits', 'ms1'), 'STATE_NEW');
    assert.match(await benefits.innerText(), /applications\/benefits\.war/);
    assert.match(await page.locator('section[aria-labelledby="libs-h"]').innerText(), /No library is deployed/);
    await page.context().close();
  });

  test('an administrator uploads an archive to a target, follows it to ACTIVE, stops, starts, redeploys and undeploys it', async () => {
    const page = await consolePage(ADMIN.user, ADMIN.password);
    await page.locator('input[type="file"][name="archive"]').setInputFiles({ name: 'hello.war', mimeType: 'application/octet-stream', buffer: ARCHIVE });
    assert.equal(await page.locator('input[name="name"]').inputValue(), 'hello', 'the name comes from the file name');
    await page.locator('input[type="file"][name="plan"]').setInputFiles({ name: 'plan.xml', mimeType: 'application/xml', buffer: PLAN });
    assert.equal(await page.locator('#deploy').isDisabled(), true, 'offered without a target');
    await page.getByRole('checkbox', { name: 'AdminServer' }).check();
    const started = Date.now();
    await page.locator('#deploy').click();
    // The upload's bar ends full, having counted every byte of the request (the archive and the model).
    await page.waitForFunction(() => {
      const bar = document.querySelector<HTMLProgressElement>('#upload-progress');
      return bar !== null && bar.max > 0 && bar.value === bar.max;
    });
    const max = await page.locator('#upload-progress').evaluate((bar: HTMLProgressElement) => bar.max);
    assert.ok(max >= ARCHIVE.length + PLAN.length, `the bar counted ${max} bytes of a ${ARCHIVE.length}-byte archive and a ${PLAN.length}-byte plan`);
    assert.match(await page.locator('.upload-progress').innerText(), /\(100%\)/);
    // Then the deployment's progress object, to its end.
    await page.locator('.upload .task.done[data-task="hello deploy"]').waitFor({ timeout: 30_000 });
    assert.match(await page.locator('.upload .task').innerText(), /STATE_COMPLETED success/);
    console.log(`# deployments console: ${ARCHIVE.length} bytes uploaded and deployed in ${Date.now() - started} ms`);

    const row = page.locator('tr[data-app="hello"]');
    await stateShown(page, 'hello', 'AdminServer', 'STATE_ACTIVE');
    assert.equal(await serverState('hello', 'AdminServer'), 'STATE_ACTIVE');
    const cfg = await call(`${srv.latest}/domainConfig/appDeployments/hello?links=none&fields=targets,sourcePath,planPath`);
    assert.deepEqual(cfg.json.targets, [{ identity: ['servers', 'AdminServer'] }]);
    assert.deepEqual(readFileSync(cfg.json.sourcePath), ARCHIVE, 'the server keeps exactly the bytes the browser sent');
    assert.deepEqual(readFileSync(cfg.json.planPath), PLAN, 'the plan went with the archive');

    await act(row, 'stop');
    await stateShown(page, 'hello', 'AdminServer', 'STATE_PREPARED');
    assert.equal(await serverState('hello', 'AdminServer'), 'STATE_PREPARED');
    await act(row, 'start');
    await stateShown(page, 'hello', 'AdminServer', 'STATE_ACTIVE');
    assert.equal(await serverState('hello', 'AdminServer'), 'STATE_ACTIVE');
    await act(row, 'redeploy');
    await stateShown(page, 'hello', 'AdminServer', 'STATE_ACTIVE');
    await act(row, 'stop');
    await stateShown(page, 'hello', 'AdminServer', 'STATE_PREPARED');
    await act(row, 'undeploy');
    await row.waitFor({ state: 'detached' });
    assert.equal((await call(`${srv.latest}/domainConfig/appDeployments/hello`)).status, 404);
    await page.context().close();
  });

  test('an administrator deploys an archive as a shared library, sees it listed apart from the applications, and undeploys it', async () => {
    const page = await consolePage(ADMIN.user, ADMIN.password);
    await page.getByRole('radio', { name: 'a shared library' }).check();
    await page.locator('input[type="file"][name="archive"]').setInputFiles({ name: 'commons.jar', mimeType: 'application/octet-stream', buffer: LIBRARY });
    assert.equal(await page.locator('input[name="name"]').inputValue(), 'commons');
    await page.getByRole('checkbox', { name: 'AdminServer' }).check();
    await page.locator('#deploy').click();
    await page.locator('.upload .task.done[data-task="commons deploy"]').waitFor({ timeout: 30_000 });
    assert.match(await page.locator('.upload .task').innerText(), /STATE_COMPLETED success/);
    const row = page.locator('table.libraries tr[data-library="commons"]');
    await row.waitFor();
    assert.equal(await page.locator('tr[data-app="commons"]').count(), 0, 'a library is no application');
    const cfg = await call(`${srv.latest}/domainConfig/libraries/commons?links=none&fields=targets,sourcePath`);
    assert.equal(cfg.status, 200, cfg.text);
    assert.deepEqual(cfg.json.targets, [{ identity: ['servers', 'AdminServer'] }]);
    assert.deepEqual(readFileSync(cfg.json.sourcePath), LIBRARY, 'the server keeps exactly the bytes the browser sent');
    assert.equal((await call(`${srv.latest}/domainConfig/appDeployments/commons`)).status, 404, 'deployed as a library only');
    assert.equal((await call(`${srv.latest}/domainRuntime/deploymentManager/libDeploymentRuntimes/commons`)).status, 200);
    // The radio stays where the user put it: the next archive is a library too unless changed.
    assert.equal(await page.getByRole('radio', { name: 'a shared library' }).isChecked(), true);

    // A redeploy reads the archive again, followed in the row to its end; the library stays.
    await row.locator('button[data-op="redeploy"]').click();
    const redeployed = row.locator('.task.done[data-task="commons redeploy"]');
    await redeployed.waitFor({ timeout: 30_000 });
    assert.match(await redeployed.innerText(), /STATE_COMPLETED success/);
    assert.equal((await call(`${srv.latest}/domainConfig/libraries/commons`)).status, 200, 'still deployed after the redeploy');

    await row.locator('button[data-op="undeploy"]').click();
    await row.locator('button[data-op="confirm-undeploy"]').click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await call(`${srv.latest}/domainConfig/libraries/commons`)).status, 404);
    assert.match(await page.locator('section[aria-labelledby="libs-h"]').innerText(), /No library is deployed/);
    await page.context().close();
  });

  test("a refused deployment shows the server's own error text, and nothing is deployed", async () => {
    const page = await consolePage(ADMIN.user, ADMIN.password);
    await page.locator('input[type="file"][name="archive"]').setInputFiles({ name: 'benefits.war', mimeType: 'application/octet-stream', buffer: ARCHIVE });
    await page.getByRole('checkbox', { name: 'cluster1' }).check();
    await page.locator('#deploy').click();
    const alert = page.locator('.upload [role="alert"]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /An application named 'benefits' is already deployed/);
    const cfg = await call(`${srv.latest}/domainConfig/appDeployments/benefits?links=none&fields=sourcePath`);
    assert.equal(cfg.json.sourcePath, 'applications/benefits.war');
    await page.context().close();
  });

  test('an upload the server does not take in can be cancelled: the bar stops short, nothing is deployed', async () => {
    // The server holds the request without reading its body: once the connection's buffers are
    // full, the browser can send no more, and the bar stays where it is.
    const fault = await srv.ctl.post('faults', { kind: 'hang', urlPattern: '/management/appserver/*/edit/appDeployments', method: 'POST', expiresInSeconds: 120 });
    assert.equal(fault.status, 201, fault.text);
    try {
      // Chromium reads the file itself (handing it 40 MB through the driver would be slow).
      const file = join(srv.dataDir, 'stuck.war');
      writeFileSync(file, randomBytes(40 * 1024 * 1024));
      const page = await consolePage(ADMIN.user, ADMIN.password);
      await page.locator('input[type="file"][name="archive"]').setInputFiles(file);
      await page.getByRole('checkbox', { name: 'AdminServer' }).check();
      await page.locator('#deploy').click();
      const cancel = page.locator('#cancel-upload');
      await cancel.waitFor();
      await page.waitForTimeout(1000);
      const [value, max] = await page.locator('#upload-progress').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max]);
      assert.ok(value < max, `the bar reached ${value} of ${max} though the server read nothing`);
      await cancel.click();
      const alert = page.locator('.upload [role="alert"]');
      await alert.waitFor();
      assert.match(await alert.innerText(), /The upload was cancelled/);
      assert.equal(await page.locator('#deploy').isDisabled(), false, 'the form is usable again');
      await page.context().close();
    } finally {
      await srv.ctl.del(`faults/${encodeURIComponent(fault.json.name)}`);
    }
    assert.equal((await call(`${srv.latest}/domainConfig/appDeployments/stuck`)).status, 404);
  });

  test("a deployment that fails shows the failure and the server's message; the application stays as it was", async () => {
    const fault = await srv.ctl.post('faults', { kind: 'deploymentFailure', application: 'benefits', message: 'the archive of benefits is damaged' });
    assert.equal(fault.status, 201, fault.text);
    const page = await consolePage(ADMIN.user, ADMIN.password);
    const row = page.locator('tr[data-app="benefits"]');
    await row.locator('button[data-op="redeploy"]').click();
    const failed = page.locator('.task.failed[data-task="benefits redeploy"]');
    await failed.waitFor({ timeout: 30_000 });
    assert.match(await failed.innerText(), /STATE_FAILED failed: the archive of benefits is damaged/);
    await stateShown(page, 'benefits', 'cluster1', 'STATE_NEW');
    assert.equal((await srv.ctl.del(`faults/${encodeURIComponent(fault.json.name)}`)).status < 300, true);
    await page.context().close();
  });

  test('the view fits a phone: nothing wider than the screen', async () => {
    const page = await consolePage(ADMIN.user, ADMIN.password, 390);
    await page.locator('#deploy').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
    await page.context().close();
  });

  test('an upload while the administrator holds an edit session waits in it, and deploys when it is activated', async () => {
    const page = await consolePage(ADMIN.user, ADMIN.password);
    await page.getByRole('link', { name: 'Change center', exact: true }).click();
    await page.locator('#start-edit').click();
    await page.locator('#activate').waitFor();
    await page.getByRole('link', { name: 'Deployments', exact: true }).click();
    await page.locator('input[type="file"][name="archive"]').setInputFiles({ name: 'later.war', mimeType: 'application/octet-stream', buffer: ARCHIVE });
    await page.getByRole('checkbox', { name: 'AdminServer' }).check();
    await page.locator('#deploy').click();
    const note = page.locator('.upload .note');
    await note.waitFor();
    assert.match(await note.innerText(), /later is in your edit session: it deploys when you activate/);
    assert.equal((await call(`${srv.latest}/domainConfig/appDeployments/later`)).status, 404, 'deployed before the activation');
    assert.equal(await page.locator('input[name="name"]').inputValue(), '', 'the form is ready for the next archive');
    await page.getByRole('link', { name: 'Change center', exact: true }).click();
    await page.locator('#activate').click();
    await page.locator('#start-edit').waitFor();
    await page.getByRole('link', { name: 'Deployments', exact: true }).click();
    await stateShown(page, 'later', 'AdminServer', 'STATE_ACTIVE');
    assert.equal(await serverState('later', 'AdminServer'), 'STATE_ACTIVE');
    await page.context().close();
  });

  test('a Deployer is offered everything a deployment takes: the upload, and every action', async () => {
    const page = await consolePage('deployer1', 'deployer-pw1');
    assert.equal(await page.locator('.who').innerText(), 'deployer1 (Deployer)');
    const row = page.locator('tr[data-app="benefits"]');
    assert.deepEqual(await row.locator('button[data-op]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-op'))), ['start', 'stop', 'redeploy', 'undeploy']);
    assert.equal(await page.locator('input[type="file"][name="archive"]').count(), 1);
    await page.context().close();
  });

  test('an Operator may start and stop, not deploy, redeploy or undeploy', async () => {
    const page = await consolePage('operator1', 'operator-pw1');
    const row = page.locator('tr[data-app="benefits"]');
    assert.deepEqual(await row.locator('button[data-op]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-op'))), ['start', 'stop']);
    assert.equal(await page.locator('input[type="file"]').count(), 0);
    await page.context().close();
  });

  test('a Monitor sees the applications, kept current by the watch stream, and is offered no upload or action', async () => {
    const page = await consolePage('watcher', 'watcher-pw1');
    assert.equal(await page.locator('.who').innerText(), 'watcher (Monitor)');
    assert.equal(await page.locator('button[data-op]').count(), 0);
    assert.equal(await page.locator('input[type="file"]').count(), 0);
    assert.equal(await page.locator('#deploy').count(), 0);
    assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0);
    // Someone else deploys: the page shows it without being reloaded.
    const r = await call(`${srv.latest}/domainRuntime/deploymentManager/deploy`, {
      method: 'POST',
      body: { name: 'elsewhere', applicationPath: '/srv/apps/elsewhere.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} },
      headers: { ...WRITE, authorization: basic(ADMIN.user, ADMIN.password) },
    });
    assert.ok([200, 201, 202].includes(r.status), r.text);
    await stateShown(page, 'elsewhere', 'AdminServer', 'STATE_ACTIVE');
    assert.equal(await page.locator('tr[data-app="elsewhere"] button').count(), 0);
    await page.context().close();
  });
  test('without the watch stream (the server refuses it) the view still follows, reading at each retry', async () => {
    const fault = await srv.ctl.post('faults', { kind: 'status', urlPattern: '/management/appserver/*/watch*', status: 503 });
    assert.equal(fault.status, 201, fault.text);
    try {
      const page = await consolePage('watcher', 'watcher-pw1');
      const r = await call(`${srv.latest}/domainRuntime/deploymentManager/deploy`, {
        method: 'POST',
        body: { name: 'unwatched', applicationPath: '/srv/apps/unwatched.war', targets: ['AdminServer'], plan: null, deploymentOptions: {} },
        headers: WRITE,
      });
      assert.ok([200, 201, 202].includes(r.status), r.text);
      await stateShown(page, 'unwatched', 'AdminServer', 'STATE_ACTIVE');
      await page.context().close();
    } finally {
      await srv.ctl.del(`faults/${encodeURIComponent(fault.json.name)}`);
    }
  });

  test('more applications than a page: 25 shown with their states, the rest on request, and a search that finds any', async () => {
    for (let i = 0; i < 30; i++) {
      const name = `bulk-${String(i).padStart(2, '0')}`;
      const r = await call(`${srv.latest}/domainRuntime/deploymentManager/deploy`, {
        method: 'POST',
        body: { name, applicationPath: `/srv/apps/${name}.war`, targets: ['AdminServer'], plan: null, deploymentOptions: {} },
        headers: { ...WRITE, prefer: 'respond-async' },
      });
      assert.ok([200, 201, 202].includes(r.status), r.text);
    }
    const total = (await call(`${srv.latest}/domainConfig/appDeployments?links=none&fields=name`)).json.items.length;
    assert.ok(total > 30 && total <= 50, `${total} applications`);
    const page = await consolePage(ADMIN.user, ADMIN.password);
    const rows = page.locator('tr[data-app]');
    assert.equal(await rows.count(), 25);
    const more = page.getByRole('button', { name: `Show ${total - 25} more of ${total - 25}` });
    await more.click();
    await page.waitForFunction((n) => document.querySelectorAll('tr[data-app]').length === n, total);
    await page.getByLabel('Find an application').fill('BULK-29');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-app]').length === 1);
    await stateShown(page, 'bulk-29', 'AdminServer', 'STATE_ACTIVE');
    await page.getByLabel('Find an application').fill('no such application');
    await page.getByText('No application by that name.').waitFor();
    await page.context().close();
  });
});

// Libraries cannot be deployed over REST here: a domain imported from a model brings one.
const MODEL = `domainInfo:
  AdminUserName: admin
  AdminPassword: ${ADMIN.password}
topology:
  Name: library_domain
  AdminServerName: AdminServer
  Server:
    AdminServer:
      ListenPort: 7001
appDeployments:
  Library:
    shared-lib:
      SourcePath: libs/shared-lib.war
      Target: AdminServer
  Application:
    shop:
      SourcePath: apps/shop.war
      Target: AdminServer
`;

describe('the Deployments view of a domain with a library', { skip }, () => {
  let imported: TestServer;
  let chromium: Browser;

  before(async () => {
    const folder = mkdtempSync(join(tmpdir(), 'appserver-library-'));
    const model = join(folder, 'model.yaml');
    writeFileSync(model, MODEL);
    const dataDir = join(folder, 'data');
    const store = await storeFor(dataDir);
    const init = runCli(['init', '--from', model, '--data-dir', dataDir, ...(store ? ['--store', store] : [])]);
    assert.equal(await init.exited, 0, init.stderr());
    imported = await startTestServer(dataDir);
    chromium = await launchBrowser();
  });

  after(async () => {
    await chromium?.close();
    await imported?.stop(true);
  });

  test('the library is listed with its source and targets, apart from the applications', async () => {
    const context = await chromium.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    page.on('pageerror', (e) => assert.fail(`a script error in the console: ${e.message}`));
    await page.goto(`${imported.origin}/console/#deployments`);
    await page.getByLabel('User name').fill(ADMIN.user);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const library = page.locator('table.libraries tr[data-library="shared-lib"]');
    await library.waitFor();
    assert.deepEqual(await library.locator('th, td:not(.actions)').allInnerTexts(), ['shared-lib', 'libs/shared-lib.war', 'AdminServer']);
    assert.deepEqual(await library.locator('button[data-op]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-op'))), ['redeploy', 'undeploy'], 'an administrator may redeploy and undeploy it');
    assert.equal(await page.locator('tr[data-app="shared-lib"]').count(), 0, 'a library is no application');
    await page.locator('tr[data-app="shop"] .app-state[data-target="AdminServer"]').waitFor();
    await context.close();
  });
});
