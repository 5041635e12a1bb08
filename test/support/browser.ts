// A headless Chromium for browser tests: the system's own (Debian's `chromium`, which .ci/run
// installs), driven by playwright-core. Where no Chromium is installed the browser tests are
// skipped and say why, unless APPSERVER_REQUIRE_BROWSER is set (as CI sets it): then they fail.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));

export const chromiumPath = CANDIDATES.find((p) => existsSync(p));

/** The `skip` option of a browser test: a reason when there is no browser to drive, else false. */
export function browserSkip(): string | false {
  if (chromiumPath) return false;
  if (process.env.APPSERVER_REQUIRE_BROWSER) throw new Error(`No Chromium found (tried ${CANDIDATES.join(', ')}), and APPSERVER_REQUIRE_BROWSER is set.`);
  return 'no Chromium on this machine (apt-get install chromium, or set CHROMIUM_PATH)';
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath!,
    headless: true,
    // The machine's network is closed: background traffic only produces refused connections.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A browser context signed in with basic credentials for the server's origin. */
export async function signedIn(browser: Browser, user: string, password: string): Promise<BrowserContext> {
  const context = await browser.newContext({ httpCredentials: { username: user, password }, viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(20_000);
  return context;
}

/**
 * A new console tab without credentials (the console asks for them itself) at `path` below
 * /console. A browser dialog (the server challenging the console) or a script error fails the test.
 */
export async function consoleTab(browser: Browser, origin: string, options: { width?: number; path?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  page.on('dialog', (d) => assert.fail(`a browser dialog: ${d.message()}`));
  page.on('pageerror', (e) => assert.fail(`a script error in the console: ${e.message}`));
  await page.goto(`${origin}/console/${options.path ?? ''}`);
  return page;
}

/** Signs in through the console's own form. */
export async function consoleSignIn(page: Page, user: string, password: string): Promise<void> {
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
