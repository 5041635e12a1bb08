#!/usr/bin/env node
// Screenshots of the console's views for docs/console.md and the README (docs/console/<view>.png), and the size of what
// the console loads, gzipped. It serves the demo domain on a fresh data directory (the built
// server: run `npm run build` first), gives it something to show (ms1 running, an activation, a
// Lifecycle Manager environment with an association), signs in with the console's own form in the
// system's Chromium, and photographs every view the navigation offers, so views added later are
// photographed without changing this script.
//
//   node scripts/console-screenshots.mjs [--out docs/console] [--width 1000] [--height 700]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { toPalette } from './png-palette.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const out = resolve(root, option('out', 'docs/console'));
const width = Number(option('width', '1000'));
const height = Number(option('height', '700'));
const USER = 'admin';
const PASSWORD = 'console-shots-1';
const chromiumPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && statSync(p, { throwIfNoEntry: false }));
if (!chromiumPath) throw new Error('No Chromium found (set CHROMIUM_PATH).');

/** Starts `appserver-admin serve` on a free port; resolves with its origin once it says it listens. */
function serve(dataDir) {
  const child = spawn(process.execPath, [join(root, 'bin/appserver-admin.js'), 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--no-listeners', '--log-level', 'warn'], {
    env: { ...process.env, APPSERVER_ADMIN_USER: USER, APPSERVER_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((done, fail) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error(`the server did not start in 60 s:\n${text}`)), 60_000);
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = /listening on (http:\/\/[^/\s]+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        done({ child, origin: m[1] });
      }
    });
    child.on('exit', (code) => fail(new Error(`the server ended (${code}):\n${text}`)));
  });
}

async function rest(origin, method, path, body) {
  const r = await fetch(path.startsWith('/') ? `${origin}${path}` : `${origin}/management/appserver/latest/${path}`, {
    method,
    headers: { Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`, 'X-Requested-By': 'console-screenshots', 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? undefined : r.json();
}

/** Something for each view to show. */
async function stage(origin) {
  await rest(origin, 'POST', 'edit/changeManager/startEdit', {});
  await rest(origin, 'POST', 'edit/servers/ms2', { notes: 'rack 4, row 2' });
  await rest(origin, 'POST', 'edit/servers/ms2', { listenPort: 7012 });
  await rest(origin, 'POST', 'edit/changeManager/activate', {});
  await rest(origin, 'POST', 'edit/changeManager/startEdit', {});
  await rest(origin, 'POST', 'edit/machines', { name: 'machine2' });
  await rest(origin, 'POST', 'edit/servers/ms2', { machine: ['machines', 'machine2'] });
  await rest(origin, 'POST', 'edit/changeManager/activate', {});
  await rest(origin, 'POST', 'edit/changeManager/startEdit', {});
  await rest(origin, 'POST', 'edit/clusters/cluster1', { clusterMessagingMode: 'multicast' });
  await rest(origin, 'POST', 'domainRuntime/serverLifeCycleRuntimes/ms1/start', {});
  const LC = '/management/lifecycle/latest';
  await rest(origin, 'POST', `${LC}/runtimes`, {
    name: 'db1', type: 'database', hostName: 'db.example', port: 5432, protocol: 'tcp',
    properties: [{ name: 'username', value: 'sys' }, { name: 'password', confidentialValue: 'not-a-real-one' }],
  });
  await rest(origin, 'POST', `${LC}/runtimes/db1/partitions`, { name: 'pdb-sales', properties: [] });
  await rest(origin, 'POST', `${LC}/environments`, { name: 'sales' });
  await rest(origin, 'POST', `${LC}/environments/sales/partitions`, { name: 'partition1', runtimeName: 'demo_domain' });
  await rest(origin, 'POST', `${LC}/environments/sales/partitions`, { name: 'pdb-sales', runtimeName: 'db1' });
  await rest(origin, 'POST', `${LC}/environments/sales/associatePartitions`, {
    partition1Name: 'partition1', partition1RuntimeName: 'demo_domain', partition2Name: 'pdb-sales', partition2RuntimeName: 'db1', properties: [],
  });
}

/** Views shown at a deeper address than their own: Browse with a bean's page open. */
const DEEPER = { browse: 'browse/domainConfig/servers/ms2' };

const dataDir = mkdtempSync(join(tmpdir(), 'appserver-shots-'));
const { child, origin } = await serve(dataDir);
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
try {
  await stage(origin);
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: 'light' });
  const page = await context.newPage();
  const loaded = new Map();
  page.on('response', async (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/console') && r.ok()) loaded.set(url.pathname, await r.body());
  });
  await page.goto(`${origin}/console/`);
  await page.getByLabel('User name').fill(USER);
  await page.getByLabel('Password').fill(PASSWORD);
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('tr[data-server="AdminServer"]').waitFor();
  const shownMs = Date.now() - t0;
  // Let the charts gather a minute of samples (read every 2 s).
  await page.waitForFunction(() => (document.querySelector('svg[data-chart="heap AdminServer"] polyline')?.getAttribute('points') ?? '').split(' ').length >= 30, undefined, { timeout: 120_000 });
  mkdirSync(out, { recursive: true });
  const views = await page.locator('header nav a').evaluateAll((links) => links.map((a) => a.getAttribute('href').slice(1)));
  for (const view of views) {
    await page.evaluate((v) => { location.hash = `#${v}`; }, DEEPER[view] ?? view);
    await page.waitForFunction((v) => document.querySelector('main')?.dataset.view === v, view);
    // A view has settled when nothing says it is still reading.
    await page.waitForFunction(() => !/Reading|Loading/.test(document.querySelector('main')?.innerText ?? ''), undefined, { timeout: 30_000 }).catch(() => {});
    if (view === 'changes') await page.locator('ol.activation-history > li details').first().evaluate((d) => { d.open = true; }).catch(() => {});
    // The heading has the focus after a view change; a screenshot shows no focus ring.
    await page.evaluate(() => document.activeElement?.blur());
    const file = join(out, `${view}.png`);
    await page.screenshot({ path: file });
    const { before, after } = toPalette(file);
    console.log(`${file}: ${(after / 1024).toFixed(1)} kB (${(before / 1024).toFixed(1)} kB as taken)`);
  }
  let raw = 0;
  let gz = 0;
  for (const [, body] of loaded) {
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  console.log(`console assets loaded: ${loaded.size} files, ${(raw / 1024).toFixed(1)} kB, ${(gz / 1024).toFixed(1)} kB gzipped`);
  console.log(`dashboard shown ${shownMs} ms after signing in`);
} finally {
  await browser.close();
  child.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
