// The web console in a real browser: signing in with its own form (no browser dialog), the
// dashboard's servers, clusters and live charts, starting a managed server and following its task
// to RUNNING, changing a property through the change center, and what a Monitor is not offered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, call, startTestServer, type TestServer } from '../support/server.js';
import { browserSkip, consoleSignIn, consoleTab, launchBrowser } from '../support/browser.js';

const skip = browserSkip();
const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
const WRITE = { 'x-requested-by': 'test' };

let srv: TestServer;
let browser: Browser;

/** A new tab, without credentials: the console asks for them itself. */
function consolePage(): Promise<Page> {
  return consoleTab(browser, srv.origin);
}

const signIn = consoleSignIn;

describe('the console in a browser', { skip }, () => {
  before(async () => {
    srv = await startTestServer();
    browser = await launchBrowser();
    for (const [path, body] of [
      [`${AUTHN}/createUser`, { userName: 'watcher', password: 'watcher-pw1', description: 'console test' }],
      [`${AUTHN}/addMemberToGroup`, { groupName: 'Monitors', memberUserOrGroupName: 'watcher' }],
    ] as const) {
      const r = await call(`${srv.latest}/${path}`, { method: 'POST', body, headers: WRITE });
      assert.equal(r.status, 200, r.text);
    }
  });

  after(async () => {
    await browser?.close();
    await srv?.stop(true);
  });

  test('its files are served without credentials, and hold no data', async () => {
    for (const path of ['/console/', '/console/app.js', '/console/app.css', '/console/vendor/preact.mjs', '/console/vendor/hooks.mjs', '/console/vendor/htm.mjs']) {
      const r = await call(`${srv.origin}${path}`, { auth: null, headers: { accept: '*/*' } });
      assert.equal(r.status, 200, path);
      assert.ok(!r.text.includes('demo_domain'), `${path} holds domain data`);
    }
    assert.equal((await call(`${srv.origin}/console/../management/appserver/latest/domainConfig`, { auth: null })).status, 401);
    assert.equal((await call(`${srv.origin}/console/nope.js`, { auth: null })).status, 404);
    // A script asking not to be challenged gets its 401 without WWW-Authenticate.
    const quiet = await call(`${srv.latest}/currentUser`, { auth: null, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    assert.equal(quiet.status, 401);
    assert.equal(quiet.headers.get('www-authenticate'), null);
  });

  test('an administrator signs in, sees the domain, starts a server and follows it to RUNNING', async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, 'not-the-password');
    assert.match(await page.getByRole('alert').innerText(), /user name or the password is wrong/);
    await signIn(page, ADMIN.user, ADMIN.password);
    assert.equal(await page.locator('.who').innerText(), 'admin (Admin)');
    const ms1 = page.locator('tr[data-server="ms1"]');
    assert.equal(await ms1.locator('[data-field="state"]').innerText(), 'SHUTDOWN');
    assert.match(await page.locator('li[data-cluster="cluster1"]').innerText(), /0 of 2 running \(ms1, ms2\)/);
    const started = Date.now();
    await ms1.locator('button[data-op="start"]').click();
    await ms1.locator('.task.done[data-task="start"]').waitFor({ timeout: 60_000 });
    assert.match(await ms1.locator('.task').innerText(), /TASK COMPLETED/);
    await page.waitForFunction(() => document.querySelector('tr[data-server="ms1"] [data-field="state"]')?.textContent === 'RUNNING', undefined, { timeout: 10_000 });
    assert.equal((await call(`${srv.latest}/domainRuntime/serverLifeCycleRuntimes/ms1?fields=state&links=none`)).json.state, 'RUNNING');
    console.log(`# console: start of ms1 followed to RUNNING in ${Date.now() - started} ms`);
    await page.waitForFunction(() => /1 of 2 running/.test(document.querySelector('li[data-cluster="cluster1"]')?.textContent ?? ''), undefined, { timeout: 15_000 });
    await page.context().close();
  });

  test('the dashboard loads fast and its charts move', async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    const t0 = Date.now();
    await page.locator('tr[data-server="AdminServer"]').waitFor();
    console.log(`# console: dashboard shown ${Date.now() - t0} ms after signing in`);
    const line = page.locator('svg[data-chart="threads AdminServer"] polyline, svg[data-chart="heap AdminServer"] polyline').first();
    await line.waitFor({ timeout: 20_000 });
    const heap = page.locator('svg[data-chart="heap AdminServer"] polyline');
    await heap.waitFor({ timeout: 20_000 });
    const first = await heap.getAttribute('points');
    await page.waitForFunction((before) => document.querySelector('svg[data-chart="heap AdminServer"] polyline')?.getAttribute('points') !== before, first, { timeout: 20_000 });
    await page.context().close();
  });

  test('the change center: start a session, change a property, see the diff, activate', async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await page.getByRole('link', { name: 'Change center' }).click();
    assert.match(await page.locator('.lock').innerText(), /No edit session is open/);
    await page.locator('#start-edit').click();
    await page.locator('#activate').waitFor();
    await page.getByLabel('bean path').fill('servers/ms2');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('#p-notes').fill('Changed in the console');
    await page.locator('#save').click();
    const diff = page.getByRole('table', { name: 'Pending changes' });
    await diff.waitFor();
    assert.match(await diff.innerText(), /servers\/ms2\s+modify\s+notes/);
    assert.equal((await call(`${srv.latest}/domainConfig/servers/ms2?fields=notes&links=none`)).json.notes, null);
    await page.locator('#activate').click();
    await page.locator('#start-edit').waitFor();
    assert.equal((await call(`${srv.latest}/domainConfig/servers/ms2?fields=notes&links=none`)).json.notes, 'Changed in the console');
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.locator('ul.activations li').first().waitFor();
    assert.match(await page.locator('ul.activations').innerText(), /admin: 1 change/);
    await page.context().close();
  });

  test('a Monitor sees the domain and is offered no lifecycle or edit', async () => {
    const page = await consolePage();
    await signIn(page, 'watcher', 'watcher-pw1');
    assert.equal(await page.locator('.who').innerText(), 'watcher (Monitor)');
    await page.locator('tr[data-server="ms1"]').waitFor();
    assert.equal(await page.locator('button[data-op]').count(), 0);
    await page.getByRole('link', { name: 'Change center' }).click();
    await page.locator('.lock').waitFor();
    assert.equal(await page.locator('#start-edit').count(), 0);
    // Signing out forgets the credentials: a reload asks again.
    await page.locator('#sign-out').click();
    await page.reload();
    await page.getByLabel('User name').waitFor();
    await page.context().close();
  });

  test('readable at phone width in the dark theme', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(`${srv.origin}/console/`);
    await signIn(page, ADMIN.user, ADMIN.password);
    await page.locator('tr[data-server="ms1"]').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(13, 17, 23)');
    await context.close();
  });
});
