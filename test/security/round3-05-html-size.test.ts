// Round 3, item 5: the HTML view laid out whole answers at once: a browser's read of a large
// collection held the event loop for seconds, and four Monitors looping over one slowed every other
// request. Now the HTML view lays out answers of up to 256 KiB only; a larger one is answered 406
// with a short page linking to the same URL's JSON form (`format=json`), which is streamed in
// slices like any large JSON answer. A collection whose first items show it would pass the size by
// far is refused from them (the page says how many items it lists); any other is printed, in
// slices, until it ends or passes the size. A refusal is remembered for the same read until the
// domain changes. Smaller answers still come as whole pages.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { type Client, adminAuth, client, createUser, testServerOptions } from '../support/runtime-server.js';

/** What a browser sends when a person follows a link. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' };

let dataDir: string;
let server: RunningServer;
let origin: string;
let monitor: string;
let admin: Client;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'appserver-round3-05-'));
  server = await startServer({ ...(await testServerOptions(dataDir)), scheduler: new ManualScheduler(), template: { servers: 100, clusters: 2, partitions: 1, applications: 5, running: false } });
  origin = `http://127.0.0.1:${server.port}`;
  admin = client(() => `${origin}/management/appserver/latest`);
  monitor = await createUser(admin, 'looker', 'looker-pass1', 'Monitors');
});

after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = (path: string, auth: string, headers: Record<string, string> = BROWSER) => fetch(`${origin}${path}`, { headers: { authorization: auth, ...headers } });

test('item 5: an answer too large to lay out gets a short page linking to its JSON form', async () => {
  const json = await get('/management/appserver/latest/serverConfig/servers', monitor, { accept: 'application/json' });
  assert.equal(json.status, 200);
  const whole = await json.text();
  assert.ok(whole.length > 2 * 256 * 1024, `the collection is only ${whole.length} characters`);
  const page = await get('/management/appserver/latest/serverConfig/servers?links=none', monitor);
  assert.equal(page.status, 406);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.ok(html.length < 4096, `the refusal page is ${html.length} characters`);
  // Its first items showed it: the page says so, with the count of items to narrow.
  assert.match(html, /would be larger than 256 KiB, the most the HTML view lays out: it lists 101 items/);
  const href = /<a class="json-form" href="([^"]+)">/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  assert.equal(href, '/management/appserver/latest/serverConfig/servers?links=none&format=json');
  // The link gives the JSON form to the same browser, whole.
  const followed = await get(href!, monitor);
  assert.equal(followed.status, 200);
  assert.match(followed.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await followed.json()) as { items: unknown[] };
  assert.equal(body.items.length, 101);
});

test('item 5: a collection small in its first items is laid out until it passes the size; a small one is a whole page', async () => {
  const narrow = '/management/appserver/latest/serverConfig/servers?links=none&fields=name,notes';
  const small = await get(narrow, monitor);
  assert.equal(small.status, 200);
  assert.match(small.headers.get('content-type') ?? '', /^text\/html/);
  const names = ((await (await get(`${narrow}&format=json`, monitor)).json()) as { items: { name: string }[] }).items.map((i) => i.name);
  assert.equal(names.length, 101);
  // Every server is on the page, the last one included.
  const text = await small.text();
  for (const name of [names[0]!, names[50]!, names[100]!]) assert.ok(text.includes(`&quot;${name}&quot;`) || text.includes(`"${name}"`), `${name} is not on the page`);
  // Long notes on the last five servers: the first items are small, the whole passes 256 KiB.
  assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
  for (const name of names.slice(-5)) assert.equal((await admin.post(`edit/servers/${encodeURIComponent(name)}`, { notes: 'n'.repeat(60_000) })).status, 200);
  assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
  const large = await get(narrow, monitor);
  assert.equal(large.status, 406);
  const html = await large.text();
  assert.match(html, /This answer is larger than 256 KiB, the most the HTML view lays out\./);
  assert.match(html, /href="\/management\/appserver\/latest\/serverConfig\/servers\?links=none&amp;fields=name%2Cnotes&amp;format=json"/);
  // Asked again, the same refusal (remembered until the domain changes).
  const again = await get(narrow, monitor);
  assert.equal(again.status, 406);
  assert.equal(await again.text(), html);
  // Without the notes it is a page again.
  const names100 = await get('/management/appserver/latest/serverConfig/servers?links=none&fields=name', monitor);
  assert.equal(names100.status, 200);
  assert.match(names100.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
  for (const name of names.slice(-5)) assert.equal((await admin.post(`edit/servers/${encodeURIComponent(name)}`, { notes: null })).status, 200);
  assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
  const shorter = await get(narrow, monitor);
  assert.equal(shorter.status, 200, 'the page once the notes are gone');
  assert.ok((await shorter.text()).includes(names[100]!));
});

test('item 5: answers within the size are still pages, and other requests are served between refusals', async () => {
  const small = await get('/management/appserver/latest/serverConfig/servers/ms1', monitor);
  assert.equal(small.status, 200);
  assert.match(small.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await small.text(), /<h1>ms1/);
  // Four browsers asking for the large page at once, and an administrator's read among them.
  const pages = Array.from({ length: 4 }, () => get('/management/appserver/latest/serverConfig/servers', monitor));
  const read = await get('/management/appserver/latest/serverConfig/servers/ms2?links=none&fields=name', adminAuth, { accept: 'application/json' });
  assert.equal(read.status, 200);
  assert.deepEqual(await read.json(), { name: 'ms2' });
  for (const p of await Promise.all(pages)) assert.equal(p.status, 406);
});
