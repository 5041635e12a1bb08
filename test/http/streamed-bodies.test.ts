// Searches and collection reads are printed item by item and streamed when large: the bytes are
// those of the body printed whole (the in-process API's object through the product's printer), the
// collection's tag is the same, a large answer comes chunked, one user may have only a few large
// answers under way (429 beyond, naming the limit), a client that goes away stops its answer and
// gives its place back, and other requests are answered meanwhile.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Caller } from '../../src/api/caller.js';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { parseRequestPath } from '../../src/http/request-path.js';
import { LARGE_ANSWERS_PER_USER, LARGE_ANSWER_CHARS, largeAnswers } from '../../src/http/streaming.js';
import { printJson } from '../../src/render/json-text.js';
import { type Client, adminAuth, client, createUser, errorDetails, request, testServerOptions } from '../support/runtime-server.js';

const SERVERS = 50;
/** The managed servers: their figures hold still on the manual clock (the administration server's are this process's own). */
const MANAGED = Array.from({ length: SERVERS }, (_, i) => `ms${i}`);

let dataDir: string;
let server: RunningServer;
let origin: string;
let latest: string;
let admin: Client;
let monitor: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'appserver-streamed-'));
  // The manual clock holds every runtime figure still, so two reads of a bean print the same.
  server = await startServer({
    ...(await testServerOptions(dataDir)),
    scheduler: new ManualScheduler(),
    template: { servers: SERVERS, clusters: 2, partitions: 2, applications: 20, running: true },
  });
  origin = `http://127.0.0.1:${server.port}`;
  latest = `${origin}/management/appserver/latest`;
  admin = client(() => latest);
  monitor = await createUser(admin, 'watcher', 'watcher-pass1', 'Monitors');
});

after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The answer the API gives in-process, printed whole (the body as it was sent before streaming). */
async function unstreamed(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ text: string; etag?: string }> {
  const url = `/management/appserver/latest/${path}`;
  const auth = await server.api.authenticate(adminAuth, '127.0.0.1', url.split('?')[0]!);
  const caller: Caller = { principal: auth.principal!, address: '127.0.0.1' };
  const query = Object.fromEntries(new URL(`${origin}${url}`).searchParams);
  const answer = await server.api.request(method, caller, parseRequestPath(url), { body }, { origin, query });
  assert.equal(answer.status, 200);
  return { text: printJson(answer.body), ...(answer.headers?.etag ? { etag: answer.headers.etag } : {}) };
}

const search = (path: string, query: unknown, auth = adminAuth) =>
  request(`${latest}/${path}`, { method: 'POST', body: query, auth, headers: { 'x-requested-by': 'streamed-tests' } });

const EXPORTER = {
  fields: [],
  links: [],
  children: {
    serverRuntimes: {
      name: MANAGED,
      fields: ['name', 'state'],
      links: [],
      children: {
        applicationRuntimes: { fields: ['name'], links: [], children: { componentRuntimes: { fields: ['name', 'deploymentState'], links: [] } } },
        threadPoolRuntime: { fields: ['completedRequestCount', 'stuckThreadCount'], links: [] },
      },
    },
  },
};

/** Every property and link of every running server's applications and their components: several megabytes. */
const EVERYTHING = { children: { serverRuntimes: { name: MANAGED, children: { applicationRuntimes: { children: { componentRuntimes: {} } }, JVMRuntime: {} } } } };

const SEARCHES: [string, string, unknown][] = [
  ['the exporter query', 'domainRuntime/search', EXPORTER],
  ['everything of every server (streamed)', 'domainRuntime/search', EVERYTHING],
  ['excludeFields and excludeLinks', 'domainRuntime/search', { excludeFields: ['name'], children: { serverRuntimes: { name: MANAGED, excludeFields: ['state', 'identity'], excludeLinks: ['self', 'action'], children: { applicationRuntimes: { excludeLinks: ['parent'] } } } } }],
  ['links named, fields named', 'domainRuntime/search', { links: ['self'], fields: ['name'], children: { serverRuntimes: { name: MANAGED, links: ['self', 'canonical'], fields: ['name', 'identity'], children: { JVMRuntime: { links: ['none-of-these'] } } } } }],
  ['one server by name (a lone item)', 'domainRuntime/search', { children: { serverRuntimes: { name: ['ms3'], children: { applicationRuntimes: {} } } } }],
  ['no server by that name, and an absent child', 'domainRuntime/search', { children: { serverRuntimes: { name: ['nobody'] }, noSuchChild: {} } }],
  ['a query with a key the walk judges late (sent whole)', 'domainRuntime/search', { junk: 'x', children: { serverRuntimes: { name: ['ms1', 'ms2'], other: 7 } } }],
  ['the configuration tree', 'serverConfig/search', { children: { servers: { fields: ['name', 'listenPort', 'cluster'], links: ['self'] }, clusters: {}, appDeployments: { name: ['app1', 'app2'] } } }],
  ['a server runtime of its own', 'domainRuntime/serverRuntimes/ms2/search', { children: { applicationRuntimes: { children: { componentRuntimes: {} } }, threadPoolRuntime: {} } }],
];

for (const [name, path, query] of SEARCHES) {
  test(`search, ${name}: the same bytes as the body printed whole`, async () => {
    const r = await search(path, query);
    assert.equal(r.status, 200, r.text.slice(0, 400));
    const whole = await unstreamed('POST', path, query);
    assert.equal(r.text.length, whole.text.length);
    if (r.text !== whole.text) {
      const a = r.text.split('\n');
      const b = whole.text.split('\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      assert.fail(`the streamed body differs from the unstreamed one at line ${at}: ${a.slice(Math.max(0, at - 3), at + 2).join('\n')}\n---\n${b.slice(Math.max(0, at - 3), at + 2).join('\n')}`);
    }
    assert.equal(r.headers.get('content-type'), 'application/json');
  });
}

test('a large search comes chunked; a small one whole, with its length', async () => {
  const large = await search('domainRuntime/search', EVERYTHING);
  assert.ok(large.text.length > 4 * LARGE_ANSWER_CHARS, `only ${large.text.length} characters`);
  assert.equal(large.headers.get('transfer-encoding'), 'chunked');
  assert.equal(large.headers.get('content-length'), null);
  const small = await search('domainRuntime/search', { fields: ['name'], links: [] });
  assert.equal(small.headers.get('content-length'), String(Buffer.byteLength(small.text)));
});

const COLLECTIONS = [
  'serverConfig/servers',
  'serverConfig/servers?fields=name,listenPort',
  'serverConfig/servers?excludeFields=listenPort,identity&links=none',
  'serverConfig/servers?excludeLinks=canonical',
  'serverConfig/appDeployments',
  'domainRuntime/serverRuntimes',
  'domainRuntime/serverRuntimes?fields=name,state&excludeLinks=self',
  'domainRuntime/serverRuntimes/ms1/applicationRuntimes',
  'serverConfig/clusters/cluster0/dynamicServers',
  'edit/servers/ms1/networkAccessPoints',
];

for (const path of COLLECTIONS) {
  test(`collection ${path}: the same bytes and entity tag as the body printed whole`, async () => {
    const r = await admin.get(path);
    assert.equal(r.status, 200, r.text.slice(0, 400));
    const whole = await unstreamed('GET', path);
    assert.ok(r.text === whole.text, `the streamed body differs from the unstreamed one (${r.text.length} / ${whole.text.length} characters)`);
    assert.equal(r.headers.get('etag'), whole.etag);
  });
}

test('a large collection: streamed, tagged before its first byte, and 304 when the tag still holds', async () => {
  // A query no other test reads, so that this first read is printed (afterwards the read cache has it).
  const path = 'serverConfig/servers?excludeLinks=parent';
  const r = await admin.get(path);
  assert.ok(r.text.length > LARGE_ANSWER_CHARS, `only ${r.text.length} characters: too small to stream`);
  assert.equal(r.headers.get('transfer-encoding'), 'chunked');
  const etag = r.headers.get('etag');
  assert.ok(etag);
  const again = await admin.get(path, { 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(again.text, '');
  const other = await admin.get(path, { 'if-none-match': '"something-else"' });
  assert.equal(other.status, 200);
  assert.ok(other.text === r.text);
  // A failed If-Match on a read is refused before any byte of the body.
  const refused = await admin.get(path, { 'if-match': '"something-else"' });
  assert.equal(refused.status, 412);
  // Read again while nothing changed: the read cache's copy, whole, with the same bytes and tag.
  const cached = await admin.get(path);
  assert.equal(cached.headers.get('content-length'), String(Buffer.byteLength(r.text)));
  assert.ok(cached.text === r.text);
  assert.equal(cached.headers.get('etag'), etag);
});

/** Sends a large search and reads only its head: the server's answer stalls once the socket is full. */
async function stalledSearch(auth = adminAuth): Promise<{ socket: net.Socket; head: string }> {
  const body = JSON.stringify(EVERYTHING);
  const socket = net.connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `POST /management/appserver/latest/domainRuntime/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\n` +
      `Accept: application/json\r\nContent-Type: application/json\r\nX-Requested-By: stall\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const head = await new Promise<string>((resolve, reject) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(chunk.toString('latin1').split('\r\n\r\n')[0]!);
    });
    socket.once('error', reject);
  });
  return { socket, head };
}

/** Waits (bounded) until the server has given back the user's places. */
async function placesFreed(user: string): Promise<void> {
  for (let i = 0; i < 200 && largeAnswers.underWay(user) > 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(largeAnswers.underWay(user), 0, `${user} still holds ${largeAnswers.underWay(user)} places`);
}

test(`one user may have ${LARGE_ANSWERS_PER_USER} large answers under way; the next gets 429 naming the limit, others are served`, async () => {
  const stalled = [];
  try {
    for (let i = 0; i < LARGE_ANSWERS_PER_USER; i++) {
      const s = await stalledSearch();
      assert.match(s.head, /^HTTP\/1\.1 200/);
      stalled.push(s);
    }
    assert.equal(largeAnswers.underWay('admin'), LARGE_ANSWERS_PER_USER);
    const refused = await search('domainRuntime/search', EVERYTHING);
    const [detail] = errorDetails(refused, 429, 'one large answer too many');
    assert.match(detail!, new RegExp(`${LARGE_ANSWERS_PER_USER} large answers`));
    assert.match(detail!, /256 KiB/);
    assert.equal(refused.headers.get('retry-after'), '1');
    // Small answers are not counted; other users have places of their own; the event loop is free.
    assert.equal((await search('domainRuntime/search', EXPORTER)).status, 200);
    assert.equal((await admin.get('serverConfig/servers/ms1')).status, 200);
    const theirs = await search('domainRuntime/search', EVERYTHING, monitor);
    assert.equal(theirs.status, 200);
    assert.ok(theirs.text.length > LARGE_ANSWER_CHARS);
  } finally {
    for (const s of stalled) s.socket.destroy();
  }
  // Clients that go away stop their answers and give their places back.
  await placesFreed('admin');
  const answers = await Promise.all(Array.from({ length: LARGE_ANSWERS_PER_USER }, () => search('domainRuntime/search', EVERYTHING)));
  for (const a of answers) assert.equal(a.status, 200);
  await placesFreed('admin');
});

test('a client that aborts a large answer midway stops it; the server goes on serving', async () => {
  for (let i = 0; i < 3; i++) {
    const controller = new AbortController();
    const res = await fetch(`${latest}/domainRuntime/search`, {
      method: 'POST',
      headers: { authorization: adminAuth, accept: 'application/json', 'content-type': 'application/json', 'x-requested-by': 't' },
      body: JSON.stringify(EVERYTHING),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => undefined);
  }
  await placesFreed('admin');
  const r = await search('domainRuntime/search', EXPORTER);
  assert.equal(r.status, 200);
  assert.ok(r.text === (await unstreamed('POST', 'domainRuntime/search', EXPORTER)).text);
});

test('a wrong query is refused whole before any byte, wherever in the query it is', async () => {
  const deep = { children: { serverRuntimes: { children: { applicationRuntimes: { fields: 'name' } } } } };
  const [detail] = errorDetails(await search('domainRuntime/search', deep), 400, 'fields not a list');
  assert.match(detail!, /'fields' must be an array in children\.serverRuntimes in children\.applicationRuntimes/);
  const [keys] = errorDetails(await search('domainRuntime/search', { children: { serverRuntimes: { name: 'ms1' } } }), 400, 'a key filter not a list');
  assert.match(keys!, /'name' must be an array in children\.serverRuntimes/);
  const [children] = errorDetails(await search('domainRuntime/search', { children: { serverRuntimes: { children: [] } } }), 400, 'children not an object');
  assert.match(children!, /'children' must be an object in children\.serverRuntimes/);
});

test('a client that stops reading a large answer is cut after 30 s, and its place is free again', async () => {
  const { socket, head } = await stalledSearch(monitor);
  assert.match(head, /^HTTP\/1\.1 200/);
  socket.on('error', () => undefined);
  assert.equal(largeAnswers.underWay('watcher'), 1);
  // Never read again: within a bounded wait the server gives up on the answer and its place.
  for (let i = 0; i < 240 && largeAnswers.underWay('watcher') > 0; i++) await new Promise((r) => setTimeout(r, 250));
  assert.equal(largeAnswers.underWay('watcher'), 0, 'the stalled answer still holds its place after 60 s');
  // The connection was closed as well: reading what was queued ends it, short of the whole answer.
  let received = 0;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  socket.resume();
  const cut = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  socket.destroy();
  assert.ok(cut, 'the server left the stalled connection open');
  const whole = await search('domainRuntime/search', EVERYTHING, monitor);
  assert.equal(whole.status, 200);
  assert.ok(received < Buffer.byteLength(whole.text), `received ${received} bytes of ${Buffer.byteLength(whole.text)}`);
});
