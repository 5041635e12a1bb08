// The browsable HTML view, in a real browser: a person navigates from the domain to a server,
// changes a property through an edit session and sees it activated, and starts a server and
// watches its task finish. Programs asking for JSON keep getting JSON.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, call, startTestServer, type TestServer } from '../support/server.js';
import { browserSkip, launchBrowser, signedIn } from '../support/browser.js';

const skip = browserSkip();
let srv: TestServer;
let browser: Browser;
let page: Page;

describe('the HTML view in a browser', { skip }, () => {
  before(async () => {
    srv = await startTestServer();
    browser = await launchBrowser();
    page = await (await signedIn(browser, ADMIN.user, ADMIN.password)).newPage();
  });

  after(async () => {
    await browser?.close();
    await srv?.stop(true);
  });

  const ready = async () => page.waitForSelector('body[data-ready="true"]');
  /** Clicks a button whose success reloads the page, and waits for the new page to be ready. */
  const clickAndReload = async (selector: string) => {
    await Promise.all([page.waitForEvent('load'), page.locator(selector).click()]);
    await ready();
  };
  // Each test starts without an edit session, whatever the one before left.
  beforeEach(async () => {
    await call(`${srv.latest}/edit/changeManager/cancelEdit`, { method: 'POST', body: {}, headers: { 'x-requested-by': 'test' } });
  });

  test('navigates from the domain to a server through its links', async () => {
    await page.goto(`${srv.latest}/domainConfig`);
    await ready();
    assert.equal(await page.locator('h1').innerText(), 'demo_domain Domain');
    await page.locator('section.links a[rel="servers"]').click();
    await ready();
    await page.locator('table.items a', { hasText: 'ms1' }).click();
    await ready();
    assert.match(page.url(), /\/domainConfig\/servers\/ms1$/);
    assert.equal(await page.locator('td[data-property="listenPort"]').innerText(), '7003');
    // A reference is a link to the bean it names.
    await page.locator('td[data-property="cluster"] a').click();
    await ready();
    assert.match(page.url(), /\/domainConfig\/clusters\/cluster1$/);
    assert.ok((await page.locator('header .user').innerText()).startsWith('admin'));
  });

  test('changes a property through an edit session and sees it activated', async () => {
    await page.goto(`${srv.latest}/edit/servers/ms1`);
    await ready();
    assert.match(await page.locator('#change-center').innerText(), /No edit session is open/);
    // Without a session there is nothing to type into.
    assert.equal(await page.locator('td[data-property="notes"] input').count(), 0);
    await clickAndReload('#start-edit');
    assert.match(await page.locator('#change-center').innerText(), /held by admin/);
    await page.locator('td[data-property="notes"] input').fill('Changed in a browser');
    await page.locator('td[data-property="listenPort"] input').fill('7013');
    await clickAndReload('#save');
    const pending = await page.locator('#change-center').innerText();
    assert.match(pending, /not yet activated/);
    assert.match(pending, /listenPort/);
    assert.match(pending, /7013/);
    // Nothing is activated yet: the configuration still has the old values.
    assert.equal((await call(`${srv.latest}/domainConfig/servers/ms1?fields=notes,listenPort&links=none`)).json.listenPort, 7003);
    await clickAndReload('#activate');
    assert.match(await page.locator('#change-center').innerText(), /No edit session is open/);
    const activated = (await call(`${srv.latest}/domainConfig/servers/ms1?fields=notes,listenPort&links=none`)).json;
    assert.deepEqual(activated, { notes: 'Changed in a browser', listenPort: 7013 });
    await page.goto(`${srv.latest}/domainConfig/servers/ms1`);
    await ready();
    assert.equal(await page.locator('td[data-property="notes"]').innerText(), 'Changed in a browser');
  });

  test('a bad value is refused with the server\'s words and nothing is saved', async () => {
    await page.goto(`${srv.latest}/edit/servers/ms2`);
    await ready();
    await clickAndReload('#start-edit');
    await page.locator('td[data-property="listenPort"] input').fill('-5');
    await page.locator('#save').click();
    const error = await page.locator('.notice.error').innerText();
    assert.match(error, /listenPort/);
    await clickAndReload('#cancel-edit');
    assert.match(await page.locator('#change-center').innerText(), /No edit session is open/);
    assert.equal((await call(`${srv.latest}/domainConfig/servers/ms2?fields=listenPort&links=none`)).json.listenPort, 7005);
  });

  test('starts a server and follows its task to the end', async () => {
    await page.goto(`${srv.latest}/domainRuntime/serverLifeCycleRuntimes/ms1`);
    await ready();
    assert.equal(await page.locator('td[data-property="state"]').innerText(), 'SHUTDOWN');
    await page.locator('#actions button[data-action="start"]').click();
    const task = page.locator('#actions .task[data-action="start"]');
    await page.waitForSelector('#actions .task.done[data-action="start"]', { timeout: 60_000 });
    assert.match(await task.innerText(), /TASK COMPLETED/);
    assert.equal((await call(`${srv.latest}/domainRuntime/serverLifeCycleRuntimes/ms1?fields=state&links=none`)).json.state, 'RUNNING');
    await page.reload();
    await ready();
    assert.equal(await page.locator('td[data-property="state"]').innerText(), 'RUNNING');
  });

  test('a failing action shows why', async () => {
    await page.goto(`${srv.latest}/domainRuntime/serverLifeCycleRuntimes/ms1`);
    await ready();
    await page.locator('#actions button[data-action="start"]').click();
    await page.waitForSelector('#actions .task.failed[data-action="start"]', { timeout: 60_000 });
    assert.match(await page.locator('#actions .task[data-action="start"]').innerText(), /already RUNNING/);
  });

  test('the API reference page loads in the browser and shows the operations of a tree', async () => {
    const started = Date.now();
    await page.goto(`${srv.origin}/management/appserver/docs`);
    // Swagger UI renders a large document, its parts in more than one pass: allow each the time a
    // loaded machine needs (a CI run saw the operations at 1.6 s and no title 20 s later).
    await page.locator('.swagger-ui .opblock-tag').first().waitFor({ timeout: 150_000 });
    console.log(`# the API reference page showed its first tree after ${Date.now() - started} ms`);
    const title = page.locator('.swagger-ui .info .title');
    await title.waitFor({ timeout: 150_000 });
    console.log(`# ... and its title after ${Date.now() - started} ms`);
    assert.match(await title.innerText(), /appserver/i);
    assert.ok((await page.locator('.swagger-ui .opblock-tag').count()) > 0);
  });

  test('creates a bean from a collection\'s create form', async () => {
    await page.goto(`${srv.latest}/edit/machines`);
    await ready();
    await clickAndReload('#start-edit');
    await page.locator('#create-form input[name="name"]').fill('machine-from-browser');
    await clickAndReload('#create-form button[type="submit"]');
    await page.locator('table.items a', { hasText: 'machine-from-browser' }).waitFor();
    await clickAndReload('#activate');
    assert.equal((await call(`${srv.latest}/domainConfig/machines/machine-from-browser?fields=name&links=none`)).status, 200);
  });
});

describe('the HTML view over HTTP', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(async () => {
    await srv.stop(true);
  });

  test('a browser\'s Accept header gets a page; JSON clients, Java\'s default and curl get JSON', async () => {
    const server = await startTestServer();
    try {
      const url = `${server.latest}/edit/servers/ms1`;
      const html = await call(url, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type')!, /^text\/html/);
      assert.match(html.text, /<h1>ms1 <small class="type">Server<\/small><\/h1>/);
      assert.match(html.headers.get('content-security-policy')!, /script-src 'self'/);
      for (const accept of ['application/json', '*/*', 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2', 'text/html, image/gif, image/jpeg, */*; q=0.2', 'application/json, text/html;q=0.5']) {
        const r = await call(url, { headers: { accept } });
        assert.equal(r.headers.get('content-type'), 'application/json', accept);
        assert.equal(r.json.name, 'ms1');
      }
      const java = await call(url, { headers: { accept: 'text/html', 'user-agent': 'Java/17.0.2' } });
      assert.equal(java.status, 406);
      // An error is a page too, with the same status and the server's words.
      const missing = await call(`${server.latest}/edit/servers/nope`, { headers: { accept: 'text/html' } });
      assert.equal(missing.status, 404);
      assert.match(missing.text, /&#39;nope&#39; was not found/);
      // Without credentials the browser is asked for them.
      const anonymous = await call(url, { headers: { accept: 'text/html' }, auth: null });
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('www-authenticate')!, /^Basic/);
    } finally {
      await server.stop(true);
    }
  });

  test('text a user stored is shown, never run', async () => {
    const server = await startTestServer();
    try {
      const hostile = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';
      const headers = { 'x-requested-by': 'test' };
      assert.equal((await call(`${server.latest}/edit/servers/ms1`, { method: 'POST', body: { notes: hostile }, headers })).status, 200);
      const page = await call(`${server.latest}/domainConfig/servers/ms1`, { headers: { accept: 'text/html' } });
      assert.ok(!page.text.includes('<script>alert(1)'), 'the stored text reached the page as markup');
      assert.ok(!page.text.includes('<img src=x'), 'the stored text reached the page as markup');
      assert.ok(page.text.includes('&lt;img src=x onerror=alert(2)&gt;'));
      // The embedded JSON cannot close its element.
      const embedded = /<script type="application\/json" id="bean">([\s\S]*?)<\/script>/.exec(page.text)![1]!;
      assert.equal(JSON.parse(embedded).notes, hostile);
    } finally {
      await server.stop(true);
    }
  });

  test('the page\'s script and style sheet are served; other names are not', async () => {
    const js = await call(`${srv.origin}/management/appserver-browse/browse.js`, { headers: { accept: '*/*' } });
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type')!, /^text\/javascript/);
    const css = await call(`${srv.origin}/management/appserver-browse/browse.css`, { headers: { accept: 'text/css,*/*;q=0.1' } });
    assert.equal(css.status, 200);
    for (const name of ['..%2fpackage.json', 'nope.js', '%2e%2e%2f%2e%2e%2fREADME.md']) {
      assert.equal((await call(`${srv.origin}/management/appserver-browse/${name}`)).status, 404, name);
    }
  });
});
