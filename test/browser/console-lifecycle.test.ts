// The console's Lifecycle, Lifecycle Manager and change-history views in a real browser, and the
// console driven by the keyboard alone: a cluster started (one task per member, followed to
// RUNNING) and shut down, a member's failed start shown with its error, partition and resource
// group operations, environments, associations and runtimes made over REST and in the view, the
// history of activations with each change, a server started without a mouse, a Monitor offered
// nothing, the views at phone width, and a long list of partitions shown 25 at a time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN } from '../support/server.js';
import { browserSkip, consoleSignIn, consoleTab, launchBrowser } from '../support/browser.js';
import { type ControlServer, startControlServer } from '../support/control.js';
import { addToEnvironment, association, createDatabase, createEnvironment, createRuntimePartition, createUserIn, type Http, lcOf, mOf } from '../support/lcm.js';

const skip = browserSkip();

let srv: ControlServer;
let browser: Browser;
let lc: Http;

async function consolePage(width = 1280): Promise<Page> {
  return consoleTab(browser, srv.origin, { width });
}

async function signIn(page: Page, user: string, password: string): Promise<void> {
  await consoleSignIn(page, user, password);
  await page.locator('#view-heading').waitFor();
}

async function openView(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name, exact: true }).click();
  await page.waitForFunction((n) => document.getElementById('view-heading')?.textContent === n, name);
}

async function stateOf(path: string): Promise<unknown> {
  const r = await srv.admin.get(`${path}?links=none`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

const serverState = async (name: string) => ((await stateOf(`domainRuntime/serverLifeCycleRuntimes/${name}`)) as { state: string }).state;

describe('the console: lifecycle, Lifecycle Manager, history and keyboard', { skip }, () => {
  before(async () => {
    // The control interface's clock follows the wall clock; a start takes 2 s, as by default.
    srv = await startControlServer({ manual: false });
    browser = await launchBrowser();
    lc = lcOf(() => ({ origin: srv.origin }) as never);
    await createUserIn(mOf(() => ({ latest: srv.latest }) as never), 'watcher', 'watcher-pw1', 'Monitors');
  });

  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('a cluster starts: one task per member with its progress, to RUNNING; then it shuts down', async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle');
    const row = page.locator('tr[data-cluster="cluster1"]');
    assert.match(await row.locator('[data-field="summary"]').innerText(), /0 of 2 running/);
    // Nothing runs yet, so only starting makes sense.
    assert.equal(await row.locator('button[data-op="shutdown"]').isDisabled(), true);
    await row.locator('button[data-op="start"]').click();
    // While the members start, the cluster's bar and each member's task show.
    await row.locator('.cluster-run.running[data-run="start"]').waitFor();
    await row.locator('li[data-member-task="ms1"] .task').waitFor();
    await row.locator('.cluster-run.done[data-run="start"]').waitFor({ timeout: 60_000 });
    assert.match(await row.locator('.cluster-run').innerText(), /start: 2 of 2 members ended/);
    for (const m of ['ms1', 'ms2']) {
      assert.match(await row.locator(`li[data-member-task="${m}"] .task.done`).innerText(), /TASK COMPLETED/);
      assert.equal(await serverState(m), 'RUNNING');
    }
    await page.waitForFunction(() => /2 of 2 running/.test(document.querySelector('tr[data-cluster="cluster1"] [data-field="summary"]')?.textContent ?? ''), undefined, { timeout: 15_000 });
    await row.locator('button[data-op="shutdown"]').click();
    await row.locator('.cluster-run.done[data-run="shutdown"]').waitFor({ timeout: 60_000 });
    for (const m of ['ms1', 'ms2']) assert.equal(await serverState(m), 'SHUTDOWN');
    await page.context().close();
  });

  test("a member that fails to start: the cluster's run shows the failure and the error", async () => {
    const fault = await srv.ctl.post('faults', { kind: 'startFailure', server: 'ms2', message: 'disk full on the test host' });
    assert.equal(fault.status, 201, fault.text);
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle');
    const row = page.locator('tr[data-cluster="cluster1"]');
    await row.locator('button[data-op="start"]').click();
    await row.locator('.cluster-run.failed[data-run="start"]').waitFor({ timeout: 60_000 });
    assert.match(await row.locator('.cluster-run').innerText(), /2 of 2 members ended, 1 failed/);
    assert.match(await row.locator('li[data-member-task="ms2"] .task.failed').innerText(), /disk full on the test host/);
    assert.match(await row.locator('li[data-member-task="ms1"] .task.done').innerText(), /TASK COMPLETED/);
    assert.equal(await serverState('ms2'), 'FAILED');
    // Back to both down, for the tests that follow (a FAILED server may be force-shut down).
    await page.waitForFunction(() => document.querySelector('tr[data-cluster="cluster1"] li[data-member="ms2"]')?.textContent?.includes('FAILED'), undefined, { timeout: 15_000 });
    await row.locator('button[data-op="forceShutdown"]').click();
    await row.locator('.cluster-run.done[data-run="forceShutdown"]').waitFor({ timeout: 60_000 });
    for (const m of ['ms1', 'ms2']) assert.equal(await serverState(m), 'SHUTDOWN');
    await page.context().close();
  });

  test('partitions and resource groups: boot and start a halted partition, suspend and resume a group', async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle');
    const p2 = page.locator('tr[data-partition-row="partition2"]');
    assert.match(await p2.locator('[data-field="state"]').innerText(), /SHUTDOWN \(HALTED\)/);
    assert.equal(await p2.locator('button[data-op="resume"]').isDisabled(), true);
    await p2.locator('button[data-op="boot"]').click();
    await p2.locator('.task.done[data-task="BOOT"]').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => /BOOTED/.test(document.querySelector('tr[data-partition-row="partition2"] [data-field="state"]')?.textContent ?? ''), undefined, { timeout: 15_000 });
    await p2.locator('button[data-op="start"]').click();
    await p2.locator('.task.done[data-task="START"]').waitFor({ timeout: 30_000 });
    assert.equal(((await stateOf('domainRuntime/domainPartitionRuntimes/partition2/partitionLifeCycleRuntime')) as { state: string }).state, 'RUNNING');

    const rg = page.locator('tr[data-group="partition1-rg"]');
    const rgPath = 'domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime/resourceGroupLifeCycleRuntimes/partition1-rg';
    await rg.locator('button[data-op="suspend"]').click();
    await rg.locator('.task.done[data-task="SUSPEND"]').waitFor({ timeout: 30_000 });
    assert.equal(((await stateOf(rgPath)) as { state: string }).state, 'ADMIN');
    await page.waitForFunction(() => document.querySelector('tr[data-group="partition1-rg"] [data-field="state"]')?.textContent === 'ADMIN', undefined, { timeout: 15_000 });
    await rg.locator('button[data-op="resume"]').click();
    await rg.locator('.task.done[data-task="RESUME"]').waitFor({ timeout: 30_000 });
    assert.equal(((await stateOf(rgPath)) as { state: string }).state, 'RUNNING');
    await page.context().close();
  });

  test('the Lifecycle Manager shows an environment made over REST with its association; the view associates and dissociates', async () => {
    await createDatabase(lc, 'db1', 'dbhost', 1521);
    await createRuntimePartition(lc, 'db1', 'pdb-a');
    await createRuntimePartition(lc, 'db1', 'pdb-b');
    await createEnvironment(lc, 'env1');
    await addToEnvironment(lc, 'env1', 'demo_domain', 'partition1');
    await addToEnvironment(lc, 'env1', 'db1', 'pdb-a');
    const made = await lc.post('environments/env1/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1'));
    assert.equal(made.status, 200, made.text);

    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle Manager');
    const env = page.locator('article[data-environment="env1"]');
    await env.waitFor();
    assert.deepEqual(await env.locator('li[data-partition]').evaluateAll((els) => els.map((e) => e.getAttribute('data-partition'))), ['demo_domain/partition1', 'db1/pdb-a']);
    assert.match(await env.locator('li[data-association="demo_domain/partition1|db1/pdb-a"]').innerText(), /demo_domain\/partition1 ↔ db1\/pdb-a/);
    assert.match(await page.locator('tr[data-runtime="db1"]').innerText(), /database\s+tcp:\/\/dbhost:1521/);
    assert.deepEqual(await page.locator('tr[data-runtime="db1"] li[data-runtime-partition]').evaluateAll((els) => els.map((e) => e.getAttribute('data-runtime-partition'))), ['pdb-a', 'pdb-b']);

    // The view's own changes: a second environment, two partitions in it, associated, then dissociated.
    await page.getByLabel('New environment').fill('env2');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const env2 = page.locator('article[data-environment="env2"]');
    await env2.waitFor();
    for (const p of ['demo_domain/partition2', 'db1/pdb-b']) {
      await env2.getByLabel('partition to add to env2').selectOption(p);
      await env2.getByRole('button', { name: 'Add', exact: true }).click();
      await env2.locator(`li[data-partition="${p}"]`).waitFor();
    }
    await env2.getByLabel('first partition to associate in env2').selectOption('demo_domain/partition2');
    await env2.getByLabel('second partition to associate in env2').selectOption('db1/pdb-b');
    await env2.getByRole('button', { name: 'Associate', exact: true }).click();
    await env2.locator('li[data-association="demo_domain/partition2|db1/pdb-b"]').waitFor();
    const env2Read = (await lc.get('environments/env2?links=none')).json as { associations: { partition1Name: string; partition2Name: string }[] };
    assert.deepEqual(env2Read.associations.map((a) => [a.partition1Name, a.partition2Name]), [['partition2', 'pdb-b']]);
    await env2.getByRole('button', { name: 'dissociate partition2 and pdb-b' }).click();
    await page.waitForFunction(() => !document.querySelector('article[data-environment="env2"] li[data-association]'));
    assert.deepEqual(((await lc.get('environments/env2?links=none')).json as { associations: unknown[] }).associations, []);
    // Associated again, then deprovisioned (no orchestration: the associations go, the partitions stay).
    await env2.getByLabel('first partition to associate in env2').selectOption('demo_domain/partition2');
    await env2.getByLabel('second partition to associate in env2').selectOption('db1/pdb-b');
    await env2.getByRole('button', { name: 'Associate', exact: true }).click();
    await env2.locator('li[data-association="demo_domain/partition2|db1/pdb-b"]').waitFor();
    await env2.getByRole('button', { name: 'deprovision env2' }).click();
    await env2.getByRole('button', { name: 'Deprovision env2 now' }).click();
    await env2.locator('li[data-association]').waitFor({ state: 'detached' });
    assert.deepEqual(((await lc.get('environments/env2?links=none')).json as { associations: unknown[] }).associations, []);
    assert.equal(await env2.locator('li[data-partition]').count(), 2);
    await page.context().close();
  });

  test('the Lifecycle Manager registers a runtime, makes and removes its partition, shows a refusal, unregisters it', async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle Manager');
    await page.locator('tr[data-runtime="demo_domain"]').waitFor();
    // The domain itself cannot be unregistered, so it is not offered.
    assert.equal(await page.getByRole('button', { name: 'unregister demo_domain' }).count(), 0);
    await page.getByText('Register a runtime').click();
    const form = page.locator('.register-runtime form');
    await form.getByLabel('Name', { exact: true }).fill('db2');
    await form.getByLabel('Type').selectOption('database');
    await form.getByLabel('Host').fill('db2.example');
    await form.getByLabel('Port').fill('5432');
    await form.getByLabel('Protocol').selectOption('tcp');
    await form.getByLabel('User name').fill('sys');
    await form.getByLabel('Password').fill('db2-secret-1');
    await form.getByRole('button', { name: 'Register' }).click();
    const row = page.locator('tr[data-runtime="db2"]');
    await row.waitFor();
    assert.match(await row.innerText(), /database\s+tcp:\/\/db2\.example:5432/);
    const registered = (await lc.get('runtimes/db2?links=none')).json as { type: string; hostName: string; port: number; properties: { name: string; value?: string }[] };
    assert.deepEqual([registered.type, registered.hostName, registered.port], ['database', 'db2.example', 5432]);
    assert.equal(registered.properties.find((p) => p.name === 'username')?.value, 'sys');
    assert.ok(!JSON.stringify(registered).includes('db2-secret-1'), 'the password is not shown back');

    await row.getByLabel('new partition on db2').fill('pdb-c');
    await row.getByRole('button', { name: 'create the partition on db2' }).click();
    await row.locator('li[data-runtime-partition="pdb-c"]').waitFor();
    // In an environment, the runtime cannot go: the server's refusal shows, and nothing changes.
    await addToEnvironment(lc, 'env1', 'db2', 'pdb-c');
    await page.getByRole('button', { name: 'Create', exact: true }).waitFor();
    await page.reload();
    await page.locator('tr[data-runtime="db2"]').waitFor();
    await row.getByRole('button', { name: 'unregister db2' }).click();
    await row.getByRole('button', { name: 'Unregister db2 now' }).click();
    assert.match(await page.getByRole('alert').innerText(), /unregister db2: .*db2.*env1/);
    assert.equal((await lc.get('runtimes/db2')).status, 200);
    const env1 = page.locator('article[data-environment="env1"]');
    await env1.getByRole('button', { name: 'remove db2/pdb-c from env1' }).click();
    await env1.locator('li[data-partition="db2/pdb-c"]').waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'remove db2/pdb-c' }).click();
    await row.getByRole('button', { name: 'Remove db2/pdb-c now' }).click();
    await row.locator('li[data-runtime-partition="pdb-c"]').waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'unregister db2' }).click();
    await row.getByRole('button', { name: 'Unregister db2 now' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await lc.get('runtimes/db2')).status, 404);
    await page.context().close();
  });

  test('the change center lists every activation with who and what', async () => {
    for (const notes of ['first note', 'second note']) {
      for (const [path, body] of [['edit/changeManager/startEdit', {}], ['edit/servers/ms1', { notes }], ['edit/changeManager/activate', {}]] as const) {
        const r = await srv.admin.post(path, body);
        assert.equal(r.status, 200, `${path}: ${r.text}`);
      }
    }
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Change center');
    const items = page.locator('ol.activation-history > li');
    await items.first().waitFor();
    assert.ok((await items.count()) >= 2);
    // Newest first: the second note, by admin, one change.
    const newest = items.first();
    assert.match(await newest.locator('summary').innerText(), /admin .* 1 change/);
    await newest.locator('summary').click();
    assert.match(await newest.getByRole('table').innerText(), /servers\/ms1\s+modify\s+notes\s+first note\s+second note/);
    await page.context().close();
  });

  test('by keyboard alone: sign in, skip link, view shortcuts, start a server with visible focus', async () => {
    const page = await consolePage();
    const kb = page.keyboard;
    // The user name has the focus when the page opens (the browser gives it at its next rendering:
    // typing before that, on a loaded machine, would go nowhere).
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'user');
    await kb.type(ADMIN.user);
    await kb.press('Tab');
    await kb.type(ADMIN.password);
    await kb.press('Enter');
    await page.locator('tr[data-server="ms1"]').waitFor();
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? `${el.tagName.toLowerCase()}#${el.id}.${el.className}|${el.textContent?.trim().slice(0, 40)}` : '';
    });
    assert.match(await focused(), /^h1#view-heading.*\|Dashboard$/);
    // Shortcuts: g c opens the change center, g l the lifecycle, g d the dashboard; the heading takes the focus.
    for (const [letter, heading] of [['c', 'Change center'], ['l', 'Lifecycle'], ['m', 'Lifecycle Manager'], ['d', 'Dashboard']]) {
      await kb.press('g');
      await kb.press(letter!);
      await page.waitForFunction((h) => document.activeElement?.id === 'view-heading' && document.activeElement.textContent === h, heading);
    }
    // Backwards from the heading, the first stop of the page is the skip link; it shows when focused and leads back.
    let steps = 0;
    while (!(await focused()).startsWith('a#.skip') && steps++ < 30) await kb.press('Shift+Tab');
    assert.match(await focused(), /^a#\.skip\|Skip to the main content$/);
    const box = await page.locator('a.skip').boundingBox();
    assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
    await kb.press('Enter');
    assert.match(await focused(), /^h1#view-heading/);
    // Forwards to ms1's start button (greyed-out buttons are no stop of Tab).
    steps = 0;
    const isStart = () => page.evaluate(() => document.activeElement?.matches('tr[data-server="ms1"] button[data-op="start"]') ?? false);
    while (!(await isStart()) && steps++ < 40) await kb.press('Tab');
    assert.ok(await isStart(), `Tab never reached ms1's start button (at ${await focused()})`);
    const outline = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement!);
      return { style: s.outlineStyle, width: s.outlineWidth };
    });
    assert.notEqual(outline.style, 'none', 'the focused button shows its focus');
    assert.notEqual(outline.width, '0px');
    // A slower start (4 s more), so the dashboard's list of running tasks, read every 2 s, sees it.
    const slow = await srv.ctl.post('faults', { kind: 'slow', server: 'ms1', latencyMs: 4000, count: 1 });
    assert.equal(slow.status, 201, slow.text);
    await kb.press('Enter');
    const ms1 = page.locator('tr[data-server="ms1"]');
    await ms1.locator('.task.running[data-task="start"] progress').waitFor();
    await page.locator('li[data-running-task="ms1"] .task.running progress').waitFor({ timeout: 15_000 });
    await ms1.locator('.task.done[data-task="start"]').waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => document.querySelector('tr[data-server="ms1"] [data-field="state"]')?.textContent === 'RUNNING', undefined, { timeout: 15_000 });
    assert.equal(await serverState('ms1'), 'RUNNING');
    // ? lists the shortcuts; Escape closes the list.
    await kb.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /g\s*l\s*Lifecycle\b/);
    await kb.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.context().close();
  });

  test("the Lifecycle Manager's tenants: a tenant, its service pointed at an environment, the service's PDB; refusals shown", async () => {
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle Manager');
    const section = page.locator('section[aria-labelledby="lcm-tenants-h"]');
    await section.getByLabel('New tenant').fill('acme');
    await section.getByLabel('Top-level directory').fill('/tenants/acme');
    await section.getByRole('button', { name: 'create the tenant' }).click();
    const tenant = page.locator('article[data-tenant="acme"]');
    await tenant.waitFor();
    assert.match(await tenant.innerText(), /Top-level directory \/tenants\/acme/);
    assert.equal(((await lc.get('tenants/acme?links=none')).json as { topLevelDir: string }).topLevelDir, '/tenants/acme');

    await tenant.getByLabel('new service of acme', { exact: true }).fill('web');
    await tenant.getByLabel('environment of the new service of acme').selectOption('env1');
    await tenant.getByRole('button', { name: 'add the service to acme' }).click();
    const service = tenant.locator('tr[data-service="web"]');
    await service.waitFor();
    const serviceOf = async () => (await lc.get('tenants/acme/services/web?links=none')).json as { environmentRef: string | null; serviceType: string };
    const made = await serviceOf();
    assert.deepEqual([made.environmentRef, made.serviceType], ['env1', 'JaaS']);

    // The PDB is made in the environment's database runtime as well.
    await service.getByLabel('new PDB of web', { exact: true }).fill('pdb-web');
    await service.getByRole('button', { name: 'add the PDB to web' }).click();
    await service.locator('td[data-pdb="pdb-web"]').waitFor();
    assert.match(await service.innerText(), /pdb-web\s+ACTIVE/);
    assert.equal(((await lc.get('tenants/acme/services/web/PDB?links=none')).json as { name: string }).name, 'pdb-web');
    const dbPartitions = ((await lc.get('runtimes/db1/partitions?links=none')).json as { items: { name: string }[] }).items.map((p) => p.name);
    assert.ok(dbPartitions.includes('pdb-web'), `db1 holds ${dbPartitions.join(', ')}`);

    // A tenant whose service has a PDB cannot go: the refusal shows and the tenant stays.
    await tenant.getByRole('button', { name: 'delete tenant acme' }).click();
    await tenant.getByRole('button', { name: 'Delete tenant acme now' }).click();
    assert.match(await page.getByRole('alert').innerText(), /delete tenant acme: .*PDB/);
    assert.equal((await lc.get('tenants/acme')).status, 200);

    await service.getByLabel('environment of web').selectOption('');
    await page.getByText('Done: detach web from its environment.').waitFor();
    assert.equal((await serviceOf()).environmentRef, null);
    await service.getByRole('button', { name: 'remove PDB pdb-web' }).click();
    await service.getByRole('button', { name: 'Remove PDB pdb-web now' }).click();
    await service.locator('td[data-pdb=""]').waitFor();
    assert.equal((await lc.get('tenants/acme/services/web/PDB')).status, 404);
    await page.context().close();
  });

  test('a Monitor reads the lifecycle and the Lifecycle Manager and is offered no action', async () => {
    const page = await consolePage();
    await signIn(page, 'watcher', 'watcher-pw1');
    await openView(page, 'Lifecycle');
    await page.locator('tr[data-cluster="cluster1"]').waitFor();
    await page.locator('tr[data-group="partition1-rg"]').waitFor();
    assert.equal(await page.locator('main button').count(), 0);
    await openView(page, 'Lifecycle Manager');
    await page.locator('tr[data-runtime="demo_domain"]').waitFor();
    await page.locator('article[data-environment]').first().waitFor();
    // The tenant made in the test before shows with its service, to read only.
    await page.locator('article[data-tenant="acme"] tr[data-service="web"]').waitFor();
    assert.equal(await page.locator('main button, main form, main select').count(), 0);
    await openView(page, 'Change center');
    await page.locator('ol.activation-history > li').first().waitFor();
    assert.equal(await page.locator('#start-edit').count(), 0);
    await page.context().close();
  });

  test('the new views fit a phone', async () => {
    const page = await consolePage(390);
    await signIn(page, ADMIN.user, ADMIN.password);
    for (const [view, shown] of [['Lifecycle', 'tr[data-cluster="cluster1"]'], ['Lifecycle Manager', 'tr[data-runtime="db1"]'], ['Change center', 'ol.activation-history']]) {
      await openView(page, view!);
      await page.locator(shown!).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      const wide = await page.evaluate(() => [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > 392).slice(0, 8).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).join(', '));
      assert.ok(overflow <= 0, `${view}: the page is ${overflow} px wider than the phone (${wide})`);
    }
    await page.context().close();
  });

  test('many partitions: 25 at a time, a filter by name, more on request', async () => {
    // 28 more partitions (30 in all), made in one activation; a new partition is halted.
    assert.equal((await srv.admin.post('edit/changeManager/startEdit', {})).status, 200);
    for (let i = 1; i <= 28; i++) {
      const r = await srv.admin.post('edit/partitions', { name: `bulk-${String(i).padStart(2, '0')}` });
      assert.equal(r.status, 201, r.text);
    }
    assert.equal((await srv.admin.post('edit/changeManager/activate', {})).status, 200);
    const page = await consolePage();
    await signIn(page, ADMIN.user, ADMIN.password);
    await openView(page, 'Lifecycle');
    const rows = page.locator('tr[data-partition-row]');
    await page.locator('[data-count="partitions"]').waitFor();
    assert.equal(await rows.count(), 25);
    assert.match(await page.locator('[data-count="partitions"]').innerText(), /25 of 30 shown/);
    await page.getByRole('button', { name: 'Show 5 more partitions' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tr[data-partition-row]').length === 30);
    // The filter looks at partitions' and their resource groups' names.
    await page.getByLabel('Filter partitions by name').fill('bulk-1');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-partition-row]').length === 10);
    assert.match(await page.locator('[data-count="partitions"]').innerText(), /10 of 10 shown/);
    await page.getByLabel('Filter partitions by name').fill('partition2-rg');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-partition-row]').length === 1);
    assert.equal(await rows.first().getAttribute('data-partition-row'), 'partition2');
    // A filtered row works like any: boot bulk-01 from the filtered list.
    await page.getByLabel('Filter partitions by name').fill('bulk-01');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-partition-row]').length === 1);
    await page.locator('tr[data-partition-row="bulk-01"] button[data-op="boot"]').click();
    await page.locator('tr[data-partition-row="bulk-01"] .task.done[data-task="BOOT"]').waitFor({ timeout: 30_000 });
    assert.equal(((await stateOf('domainRuntime/domainPartitionRuntimes/bulk-01/partitionLifeCycleRuntime')) as { subState: string }).subState, 'BOOTED');
    await page.context().close();
  });
});
