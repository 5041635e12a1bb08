// The console's Browse view in a real browser: the trees opened branch by branch, a bean found by
// name, the bean page generated from the catalog (legal values as choices, references as pickers,
// defaults, restart-needed, write-only secrets), a change made on the bean page and activated in the
// change center, an action followed to its end, deep links, phone width, and a Monitor's read-only page.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, call, startTestServer, type TestServer } from '../support/server.js';
import { browserSkip, consoleSignIn, consoleTab, launchBrowser } from '../support/browser.js';

const skip = browserSkip();
const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
const WRITE = { 'x-requested-by': 'test' };

let srv: TestServer;
let browser: Browser;

async function post(path: string, body: unknown = {}): Promise<void> {
  const r = await call(`${srv.latest}/${path}`, { method: 'POST', body, headers: WRITE });
  assert.ok(r.status < 300, `${path}: ${r.status} ${r.text}`);
}

/** A signed-in console tab at `hash`; the console's own form takes the credentials. */
async function consoleAt(user: string, password: string, hash: string, width = 1280): Promise<Page> {
  const page = await consoleTab(browser, srv.origin, { width, path: hash });
  await consoleSignIn(page, user, password);
  await page.locator('.who').waitFor();
  return page;
}

/** Opens a branch of the tree by its link, and waits until the child it leads to is listed. */
async function openBranch(page: Page, path: string, next: string): Promise<void> {
  await page.locator(`li[data-path="${path}"] > a`).click();
  await page.locator(`li[data-path="${next}"]`).waitFor();
}

describe('the console: Browse', { skip }, () => {
  before(async () => {
    srv = await startTestServer();
    browser = await launchBrowser();
    await post(`${AUTHN}/createUser`, { userName: 'watcher', password: 'watcher-pw1', description: 'tree test' });
    await post(`${AUTHN}/addMemberToGroup`, { groupName: 'Monitors', memberUserOrGroupName: 'watcher' });
    // A second cluster, for the reference picker to offer.
    await post('edit/changeManager/startEdit');
    await post('edit/clusters', { name: 'cluster2' });
    // A name that must be encoded in a URL and in the console's hash.
    await post('edit/clusters', { name: 'blue team é' });
    await post('edit/changeManager/activate');
    // A Lifecycle Manager runtime: a tree that takes changes without an edit session.
    const made = await call(`${srv.origin}/management/lifecycle/latest/runtimes`, { method: 'POST', headers: WRITE, body: { name: 'db1', type: 'database', hostName: 'dbhost', port: 1521, protocol: 'http' } });
    assert.equal(made.status, 201, made.text);
  });

  after(async () => {
    await browser?.close();
    await srv?.stop(true);
  });

  // Each test starts without an edit session, whatever the one before left.
  beforeEach(async () => {
    await call(`${srv.latest}/edit/changeManager/cancelEdit`, { method: 'POST', body: {}, headers: WRITE });
  });

  test('an administrator browses the tree to a server, and the page survives a reload', async () => {
    const page = await consoleAt(ADMIN.user, ADMIN.password, '');
    await page.getByRole('link', { name: 'Browse' }).click();
    for (const tree of ['domainConfig', 'edit', 'serverConfig', 'domainRuntime', 'serverRuntime', 'lifecycle']) {
      await page.locator(`li[data-path="${tree}"]`).waitFor();
    }
    await openBranch(page, 'domainConfig', 'domainConfig/servers');
    await openBranch(page, 'domainConfig/servers', 'domainConfig/servers/ms1');
    assert.equal(await page.locator('li[data-path="domainConfig/servers"] .count').innerText(), '3');
    await page.locator('li[data-path="domainConfig/servers/ms1"] > a').click();
    const bean = page.locator('section[data-bean="domainConfig/servers/ms1"]');
    await bean.locator('tr[data-property="listenPort"]').waitFor();
    assert.equal(await bean.locator('#bean-h').innerText(), 'ms1');
    assert.match(await bean.locator('.type').innerText(), /^Server/);
    assert.equal(new URL(page.url()).hash, '#browse/domainConfig/servers/ms1');
    // Values as REST gives them; defaults shown; a reference as a link to the bean it names.
    const port = (await call(`${srv.latest}/domainConfig/servers/ms1?fields=listenPort&links=none`)).json.listenPort;
    assert.match(await bean.locator('tr[data-property="listenPort"] td').innerText(), new RegExp(`^${port}\\s+default 7001`));
    assert.equal(await bean.locator('tr[data-property="cluster"] td a.ref').innerText(), 'clusters/cluster1');
    assert.match(await bean.locator('tr[data-property="cluster"] th').innerText(), /restart needed/);
    assert.doesNotMatch(await bean.locator('tr[data-property="notes"] th').innerText(), /restart needed/);
    // Without an edit session the page is read-only, and offers to start one.
    assert.equal(await bean.locator('.properties input, .properties select, .properties textarea').count(), 0);
    assert.equal(await bean.locator('#bean-start-edit').count(), 1);
    // Children are links into the tree.
    await bean.getByRole('link', { name: 'SSL', exact: true }).waitFor();
    // The address names the bean: a reload (the credentials stay with the tab) shows the same page.
    await page.reload();
    await page.locator('section[data-bean="domainConfig/servers/ms1"] tr[data-property="listenPort"]').waitFor();
    assert.equal(await page.locator('li[data-path="domainConfig/servers/ms1"]').getAttribute('aria-selected'), 'true');
    // From the keyboard: arrows move through the tree, right opens a branch, left closes it.
    await page.locator('li[data-path="serverConfig"] > a').focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('li[data-path="serverConfig/servers"]').waitFor();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.parentElement?.dataset.path), 'serverConfig/adminConsole');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowLeft');
    await page.locator('li[data-path="serverConfig/servers"]').waitFor({ state: 'detached' });
    assert.equal(await page.locator('li[data-path="serverConfig"]').getAttribute('aria-expanded'), 'false');
    // A hash with a dot segment names no bean (the URL would resolve it to somewhere else).
    await page.goto(`${srv.origin}/console/#browse/domainConfig/../../currentUser`);
    await page.locator('.bean-pane').getByText('Choose a bean in a tree').waitFor();
    // A bean that is not there: the page says so in the server's words.
    await page.goto(`${srv.origin}/console/#browse/domainConfig/servers/nope`);
    assert.match(await page.locator('.bean-page').getByRole('alert').innerText(), /'nope' was not found/);
    await page.goto(`${srv.origin}/console/#browse/domainConfig/servers/ms1`);
    // The reference link leads to the cluster's page.
    await page.locator('tr[data-property="cluster"] a.ref').click();
    await page.locator('section[data-bean="domainConfig/clusters/cluster1"]').waitFor();
    await page.context().close();
  });

  test('search finds a bean by name, among the opened branches and on the server', async () => {
    const page = await consoleAt(ADMIN.user, ADMIN.password, '#browse');
    await page.locator('li[data-path="domainConfig"]').waitFor();
    await page.locator('#tree-search').fill('cluster2');
    // Nothing is opened yet: only the server knows it.
    assert.equal(await page.getByRole('list', { name: 'Matches among the opened branches' }).count(), 0);
    await page.locator('#tree-search').press('Enter');
    const found = page.getByRole('list', { name: 'Matches on the server' });
    await found.waitFor();
    const names = await found.locator('a').allInnerTexts();
    assert.ok(names.includes('domainConfig/clusters/cluster2'), names.join(', '));
    assert.ok(names.includes('serverConfig/clusters/cluster2'), names.join(', '));
    assert.ok(!names.some((n) => n.endsWith('/cluster1')), names.join(', '));
    await found.getByRole('link', { name: 'domainConfig/clusters/cluster2' }).click();
    await page.locator('section[data-bean="domainConfig/clusters/cluster2"] tr[data-property="name"]').waitFor();
    // Its branch is now open, so the filter over opened branches finds it too, without asking.
    await page.locator('#tree-search').fill('CLUSTER2');
    const loaded = page.getByRole('list', { name: 'Matches among the opened branches' });
    await loaded.waitFor();
    assert.deepEqual(await loaded.locator('a').allInnerTexts(), ['domainConfig/clusters/cluster2']);
    // A name with a space and an accent: the hash carries it encoded, the page and a reload find it.
    await page.locator('#tree-search').fill('TEAM');
    await page.locator('#tree-search').press('Enter');
    await found.getByRole('link', { name: 'domainConfig/clusters/blue team é' }).click();
    await page.locator('section[data-bean="domainConfig/clusters/blue team é"] tr[data-property="name"]').waitFor();
    assert.equal(new URL(page.url()).hash, `#browse/domainConfig/clusters/${encodeURIComponent('blue team é')}`);
    await page.reload();
    assert.equal(await page.locator('section[data-bean="domainConfig/clusters/blue team é"] #bean-h').innerText(), 'blue team é');
    // A bean made after its branch was read: its link opens it, and the branch is read again.
    await post('edit/changeManager/startEdit');
    await post('edit/clusters', { name: 'newcomer' });
    await post('edit/changeManager/activate');
    assert.equal(await page.locator('li[data-path="domainConfig/clusters/newcomer"]').count(), 0);
    await page.goto(`${srv.origin}/console/#browse/domainConfig/clusters/newcomer`);
    await page.locator('li[data-path="domainConfig/clusters/newcomer"][aria-selected="true"]').waitFor();
    // ... and one deleted goes from the branch when it is opened again.
    await post('edit/changeManager/startEdit');
    assert.equal((await call(`${srv.latest}/edit/clusters/newcomer`, { method: 'DELETE', headers: WRITE })).status, 200);
    await post('edit/changeManager/activate');
    const clusters = page.locator('li[data-path="domainConfig/clusters"] > button.twisty');
    await clusters.click();
    await page.locator('li[data-path="domainConfig/clusters"][aria-expanded="false"]').waitFor();
    await clusters.click();
    await page.locator('li[data-path="domainConfig/clusters/cluster1"]').waitFor();
    assert.equal(await page.locator('li[data-path="domainConfig/clusters/newcomer"]').count(), 0);
    await page.locator('#tree-search').fill('newcomer');
    assert.equal(await page.getByRole('list', { name: 'Matches among the opened branches' }).count(), 0);
    // Runtime beans are found too.
    await page.locator('#tree-search').fill('ms2');
    await page.locator('#tree-search').press('Enter');
    await found.waitFor();
    assert.ok((await found.locator('a').allInnerTexts()).includes('domainRuntime/serverLifeCycleRuntimes/ms2'));
    await page.context().close();
  });

  test('the bean page edits through the edit session; the change center activates it', async () => {
    const page = await consoleAt(ADMIN.user, ADMIN.password, '#browse/domainConfig/servers/ms2');
    const bean = page.locator('section[data-bean="domainConfig/servers/ms2"]');
    await bean.locator('#bean-start-edit').click();
    await bean.locator('.session[data-editing="true"]').waitFor();
    // Legal values as a choice, a reference as a picker among the clusters, a secret write-only.
    const keyStores = bean.locator('select#p-keyStores');
    assert.deepEqual(await keyStores.locator('option').allInnerTexts(), ['DemoIdentityAndDemoTrust', 'CustomIdentityAndJavaStandardTrust', 'CustomIdentityAndCustomTrust', 'CustomIdentityAndCommandLineTrust']);
    const cluster = bean.locator('select#p-cluster');
    await cluster.locator('option', { hasText: 'clusters/cluster2' }).waitFor({ state: 'attached' });
    // The picker offers exactly the domain's clusters, as REST lists them, and no other bean.
    const clusters = (await call(`${srv.latest}/edit/clusters?fields=name&links=none`)).json.items.map((c: { name: string }) => `clusters/${c.name}`);
    assert.equal(clusters.length, 3);
    assert.deepEqual(await cluster.locator('option').allInnerTexts(), ['(none)', ...clusters]);
    assert.equal(await cluster.locator('option:checked').innerText(), 'clusters/cluster1');
    assert.equal(await bean.locator('#p-customIdentityKeyStorePassPhrase').getAttribute('type'), 'password');
    assert.equal(await bean.locator('#p-customIdentityKeyStorePassPhrase').inputValue(), '');
    assert.equal(await bean.locator('#p-listenPort').getAttribute('type'), 'number');
    assert.equal(await bean.locator('#p-listenPort').getAttribute('max'), '65535');
    assert.equal(await bean.locator('#p-autoRestart').getAttribute('type'), 'checkbox');
    // What cannot be written stays read-only and says so: a property the catalog keeps read-only,
    // and the key (the server refuses to rename a bean).
    for (const property of ['id', 'name']) {
      assert.equal(await bean.locator(`#p-${property}`).count(), 0, property);
      assert.match(await bean.locator(`tr[data-property="${property}"] th`).innerText(), /read-only/, property);
    }

    // A secret typed and emptied again is no change.
    const secret = bean.locator('#p-customIdentityKeyStorePassPhrase');
    await secret.fill('x');
    await bean.locator('#save:enabled').waitFor();
    await secret.fill('');
    await bean.locator('.bean-editor[aria-busy="false"] #save:disabled').waitFor();
    // A value the server refuses is explained, and nothing is saved.
    await bean.locator('#p-listenPort').fill('70000');
    await bean.locator('#save').click();
    assert.match(await bean.getByRole('alert').innerText(), /Not saved: .*listenPort/);
    await bean.locator('#p-listenPort').fill('7123');
    await keyStores.selectOption({ label: 'CustomIdentityAndCustomTrust' });
    await cluster.selectOption({ label: 'clusters/cluster2' });
    await secret.fill('k3y-s3cret');
    await bean.locator('#save').click();
    await bean.locator('.bean-editor[aria-busy="false"] #save:disabled').waitFor();
    assert.equal(await bean.getByRole('alert').count(), 0);
    // The secret went into the session, and the page does not show it back.
    assert.equal(await secret.inputValue(), '');
    assert.ok(!(await page.content()).includes('k3y-s3cret'));
    const session = (await call(`${srv.latest}/edit/changeManager?links=none`)).json;
    assert.ok(session.pendingChanges.some((c: { properties?: { name: string }[] }) => c.properties?.some((p) => p.name === 'customIdentityKeyStorePassPhrase')));
    // Saved into the session only: the domain's configuration is unchanged until activation.
    const before = (await call(`${srv.latest}/domainConfig/servers/ms2?fields=listenPort,keyStores,cluster&links=none`)).json;
    assert.notEqual(before.listenPort, 7123);
    const pending = (await call(`${srv.latest}/edit/servers/ms2?fields=listenPort,keyStores,cluster&links=none`)).json;
    assert.deepEqual(pending, { listenPort: 7123, keyStores: 'CustomIdentityAndCustomTrust', cluster: ['clusters', 'cluster2'] });

    // The page's own way to the change center (the session line links it).
    await bean.locator('.session').getByRole('link', { name: 'change center' }).click();
    const diff = page.getByRole('table', { name: 'Pending changes' });
    await diff.waitFor();
    const text = await diff.innerText();
    for (const property of ['listenPort', 'keyStores', 'cluster']) assert.match(text, new RegExp(`servers/ms2\\s+modify\\s+${property}`));
    await page.locator('#activate').click();
    await page.locator('#start-edit').waitFor();
    const after = (await call(`${srv.latest}/domainConfig/servers/ms2?fields=listenPort,keyStores,cluster&links=none`)).json;
    assert.deepEqual(after, { listenPort: 7123, keyStores: 'CustomIdentityAndCustomTrust', cluster: ['clusters', 'cluster2'] });
    // Back on the bean page, the activated values read back, read-only again.
    await page.goBack();
    const again = page.locator('section[data-bean="domainConfig/servers/ms2"]');
    await again.locator('#bean-start-edit').waitFor();
    assert.match(await again.locator('tr[data-property="listenPort"] td').innerText(), /^7123/);
    assert.equal(await again.locator('tr[data-property="cluster"] td a.ref').innerText(), 'clusters/cluster2');
    await page.context().close();
  });

  test('a reference to a base type (Target) offers every kind of bean deriving from it, several at once', async () => {
    await post('edit/changeManager/startEdit');
    const page = await consoleAt(ADMIN.user, ADMIN.password, '#browse/domainConfig/appDeployments/benefits');
    const targets = page.locator('section[data-bean="domainConfig/appDeployments/benefits"] select#p-targets');
    await targets.locator('option', { hasText: 'servers/ms1' }).waitFor({ state: 'attached' });
    assert.equal(await targets.getAttribute('multiple'), '');
    const offered = await targets.locator('option').allInnerTexts();
    for (const bean of ['servers/AdminServer', 'servers/ms1', 'servers/ms2', 'clusters/cluster1', 'clusters/cluster2']) assert.ok(offered.includes(bean), `${bean} in ${offered.join(', ')}`);
    assert.ok(!offered.some((o) => o.startsWith('machines/')), 'a machine is no target');
    assert.deepEqual(await targets.locator('option:checked').allInnerTexts(), ['clusters/cluster1']);
    await targets.selectOption([{ label: 'clusters/cluster1' }, { label: 'servers/ms2' }]);
    await page.locator('#save').click();
    await page.locator('.bean-editor[aria-busy="false"] #save:disabled').waitFor();
    const saved = (await call(`${srv.latest}/edit/appDeployments/benefits?fields=targets&links=none`)).json.targets;
    assert.deepEqual(saved.map((t: { identity: string[] }) => t.identity.join('/')).sort(), ['clusters/cluster1', 'servers/ms2']);
    await page.context().close();
  });

  test("a Lifecycle Manager bean is changed at once (its tree has no edit session); JSON values must parse", async () => {
    const page = await consoleAt(ADMIN.user, ADMIN.password, '#browse/lifecycle/runtimes/db1');
    const bean = page.locator('section[data-bean="lifecycle/runtimes/db1"]');
    await bean.locator('#p-hostName').waitFor();
    assert.match(await bean.locator('.session').innerText(), /no edit session: saving changes the bean at once/);
    assert.deepEqual(await bean.locator('#p-type option').allInnerTexts(), ['wls', 'database', 'otd']);
    await bean.locator('#p-hostName').fill('dbhost2');
    await bean.locator('#p-port').fill('1522');
    await bean.locator('#p-properties').fill('{not json');
    assert.equal(await bean.locator('#save').isDisabled(), true);
    assert.match(await bean.locator('.bean-editor .buttons').innerText(), /Not JSON yet: properties/);
    await bean.locator('#p-properties').fill('[]');
    await bean.locator('#save').click();
    await bean.locator('.bean-editor[aria-busy="false"] #save:disabled').waitFor();
    assert.equal(await bean.getByRole('alert').count(), 0);
    const read = (await call(`${srv.origin}/management/lifecycle/latest/runtimes/db1?links=none`)).json;
    assert.equal(read.hostName, 'dbhost2');
    assert.equal(read.port, 1522);
    await page.context().close();
  });

  test("a bean's action runs from its page and its task is followed to the end", async () => {
    const page = await consoleAt(ADMIN.user, ADMIN.password, '#browse/domainRuntime/serverLifeCycleRuntimes/ms1');
    const bean = page.locator('section[data-bean="domainRuntime/serverLifeCycleRuntimes/ms1"]');
    assert.match(await bean.locator('tr[data-property="state"] td').innerText(), /SHUTDOWN/);
    const start = bean.locator('form.action[data-action="start"]');
    await start.getByRole('button', { name: 'start', exact: true }).click();
    await start.locator('.task.done[data-task="start"]').waitFor({ timeout: 60_000 });
    assert.match(await start.locator('.task').innerText(), /TASK COMPLETED/);
    assert.equal((await call(`${srv.latest}/domainRuntime/serverLifeCycleRuntimes/ms1?fields=state&links=none`)).json.state, 'RUNNING');
    await page.context().close();
  });

  test('a Monitor reads the same page, read-only, with no action that changes anything', async () => {
    await post('edit/changeManager/startEdit');
    const page = await consoleAt('watcher', 'watcher-pw1', '#browse/domainConfig/servers/ms1');
    const bean = page.locator('section[data-bean="domainConfig/servers/ms1"]');
    await bean.locator('tr[data-property="listenPort"]').waitFor();
    assert.match(await bean.locator('.session').innerText(), /Read-only: the edit session is held by admin/);
    assert.equal(await bean.locator('.properties input, .properties select, .properties textarea').count(), 0);
    assert.equal(await bean.locator('#save, #bean-start-edit').count(), 0);
    await page.goto(`${srv.origin}/console/#browse/domainRuntime/serverLifeCycleRuntimes/ms2`);
    const runtime = page.locator('section[data-bean="domainRuntime/serverLifeCycleRuntimes/ms2"]');
    await runtime.locator('tr[data-property="state"]').waitFor();
    for (const op of ['start', 'shutdown', 'suspend', 'resume']) assert.equal(await runtime.locator(`form.action[data-action="${op}"]`).count(), 0, op);
    // Nor is a Lifecycle Manager bean offered for change.
    await page.goto(`${srv.origin}/console/#browse/lifecycle/runtimes/db1`);
    const lcm = page.locator('section[data-bean="lifecycle/runtimes/db1"]');
    await lcm.locator('tr[data-property="hostName"]').waitFor();
    assert.equal(await lcm.locator('.properties input, .properties select, .properties textarea, #save').count(), 0);
    await page.context().close();
  });

  test('the tree and the bean page fit a phone', async () => {
    const page = await consoleAt(ADMIN.user, ADMIN.password, '#browse/domainConfig/servers/ms1', 390);
    await page.locator('section[data-bean="domainConfig/servers/ms1"] tr[data-property="listenPort"]').waitFor();
    await page.locator('li[data-path="domainConfig/servers/ms1"]').waitFor();
    await page.locator('#bean-start-edit').click();
    await page.locator('#p-cluster').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
    // The tree comes first, then the page, one above the other.
    const tree = await page.locator('.tree-pane').boundingBox();
    const bean = await page.locator('.bean-pane').boundingBox();
    assert.ok(tree && bean && bean.y >= tree.y + tree.height - 1, 'the bean page is below the tree');
    await page.context().close();
  });
});
