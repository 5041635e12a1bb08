// The console of a domain of another product version than the default, in a real browser: a
// 14.1.1.0.0 domain's change center opens the domain's configuration with the properties of that
// version's types: `installedSoftwareVersion`, which 12.2.1.4.0 (the default) does not have, is
// there and can be changed and activated; `partitionUriSpace`, which 14.1.1.0.0 removed with
// multitenancy, is not. The dashboard shows the version the servers run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN, type RuntimeServer, request, startRuntimeServer } from '../support/runtime-server.js';
import { browserSkip, consoleSignIn, consoleTab, launchBrowser } from '../support/browser.js';

const skip = browserSkip();
const VERSION = '14.1.1.0.0';

let srv: RuntimeServer;
let browser: Browser;

describe(`the console of a ${VERSION} domain in a browser`, { skip }, () => {
  before(async () => {
    srv = await startRuntimeServer(undefined, undefined, { productVersion: VERSION });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await srv?.stop(true);
  });

  test(`the domain's editor shows ${VERSION}'s own property and not one the version removed; a change to it is activated`, async () => {
    // The server is of that version (the types below are not the default's).
    const runtime = await srv.admin.get('serverRuntime?links=none&fields=appserverVersion');
    assert.match(runtime.json?.appserverVersion ?? '', new RegExp(VERSION.replace(/\./g, '\\.')), runtime.text);
    const page = await consoleTab(browser, srv.origin);
    await consoleSignIn(page, ADMIN.user, ADMIN.password);
    await page.getByRole('link', { name: 'Change center' }).click();
    await page.locator('#start-edit').click();
    await page.locator('#activate').waitFor();
    // An empty path opens the domain itself.
    await page.getByLabel('bean path').fill('/');
    await page.getByRole('button', { name: 'Open' }).click();
    const own = page.locator('#p-installedSoftwareVersion');
    await own.waitFor();
    assert.equal(await page.locator('#p-partitionUriSpace').count(), 0, 'a property 14.1.1.0.0 no longer has is not offered');
    await own.fill('14.1.1.0.0-site-7');
    await page.locator('#save').click();
    const diff = page.getByRole('table', { name: 'Pending changes' });
    await diff.waitFor();
    assert.match(await diff.innerText(), /modify\s+installedSoftwareVersion/);
    await page.locator('#activate').click();
    await page.locator('#start-edit').waitFor();
    const activated = await request(`${srv.latest}/domainConfig?links=none&fields=installedSoftwareVersion`);
    assert.deepEqual(activated.json, { installedSoftwareVersion: '14.1.1.0.0-site-7' });
    await page.context().close();
  });
});
