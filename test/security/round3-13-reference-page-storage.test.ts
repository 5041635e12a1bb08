// Round 3, item 13: the API reference page never keeps a password typed into its Authorize dialog
// in the browser's storage. A real browser signs in with the dialog, uses the page, reloads it, and
// finds nothing credential-like in localStorage or sessionStorage, and the dialog empty again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startTestServer, type TestServer } from '../support/server.js';
import { browserSkip, launchBrowser, signedIn } from '../support/browser.js';
import { createUser, client } from '../support/runtime-server.js';

const skip = browserSkip();
const USER = 'reader13';
const PASSWORD = 'Typed-into-authorize-13';

let srv: TestServer;
let browser: Browser;

/** Every key and value of both storages of the page's origin, as one text. */
async function storages(page: Page): Promise<string> {
  return page.evaluate(() => {
    const dump = (s: Storage) => {
      const out: string[] = [];
      for (let i = 0; i < s.length; i++) out.push(`${s.key(i)}=${s.getItem(s.key(i)!)}`);
      return out;
    };
    return JSON.stringify({ local: dump(window.localStorage), session: dump(window.sessionStorage) });
  });
}

function assertNoCredential(text: string, when: string): void {
  const forms = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64'), Buffer.from(PASSWORD).toString('base64'), encodeURIComponent(PASSWORD)];
  for (const f of forms) assert.ok(!text.includes(f), `${when}: the browser's storage holds a form of the password (${f}): ${text.slice(0, 400)}`);
  assert.ok(!/"authorized"|basicAuth|"password"/i.test(text), `${when}: the browser's storage holds an authorization: ${text.slice(0, 400)}`);
}

describe('round 3, item 13: the API reference page keeps no credential in the browser', { skip }, () => {
  before(async () => {
    srv = await startTestServer();
    await createUser(client(() => srv.latest), USER, PASSWORD, 'Monitors');
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await srv?.stop(true);
  });

  test('round3-13: a password given to Authorize is in no storage, during use or after a reload', async () => {
    const context = await signedIn(browser, ADMIN.user, ADMIN.password);
    const page = await context.newPage();
    // The smallest document (the version list) is enough: the dialog is the page's, not the document's.
    const url = `${srv.origin}/management/appserver/docs?tree=versions`;
    await page.goto(url);
    const authorize = page.locator('.swagger-ui button.authorize');
    await authorize.waitFor({ timeout: 150_000 });
    await authorize.click();
    const dialog = page.locator('.swagger-ui .dialog-ux');
    await dialog.locator('input[type="text"]').first().fill(USER);
    await dialog.locator('input[type="password"]').first().fill(PASSWORD);
    await dialog.locator('button.authorize').click();
    // Signed in through the dialog: it now offers to sign out.
    await dialog.locator('button.btn-done, button:has-text("Logout")').first().waitFor();
    assert.ok((await dialog.locator('button:has-text("Logout")').count()) > 0, 'the dialog took the credentials');
    assertNoCredential(await storages(page), 'while signed in through Authorize');
    await dialog.locator('button.btn-done').first().click();

    await page.reload();
    await authorize.waitFor({ timeout: 150_000 });
    assertNoCredential(await storages(page), 'after a reload');
    await authorize.click();
    // Nothing was brought back: the dialog asks for a user name and password again.
    await dialog.locator('input[type="password"]').first().waitFor();
    assert.equal(await dialog.locator('button:has-text("Logout")').count(), 0, 'the authorization came back after a reload');
    await context.close();
  });
});
