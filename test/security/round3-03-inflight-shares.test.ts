// Round 3, item 3: one user could fill the whole in-flight limit with bodies dripped slowly, and
// every other caller got 503. Now one user may hold a quarter of the limit and one client address
// half of it (past that, 429 with Retry-After, while others are served), and a body that stops
// arriving is answered 408 and its connection closed. The limit here is 40 requests, so a user's
// share is 10 and an address's 20; a body is cut after 1.5 s without a byte, or after 1 s when it
// averages under 200 bytes a second.
import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before, test } from 'node:test';
import { type Client, client, createUser } from '../support/edit.js';
import { type RawAnswer, begin, head } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
let monitorAuth: string;
let monitor2Auth: string;

before(async () => {
  srv = await startTestServer(undefined, { requests: { maxInFlight: 40, bodyProgress: { idleMs: 1500, minBytesPerSecond: 200, graceMs: 1000 } } });
  admin = client(() => srv.latest);
  monitorAuth = await createUser(admin, 'drip1', 'drip1-password', 'Monitors');
  monitor2Auth = await createUser(admin, 'drip2', 'drip2-password', 'Monitors');
  // Each credential is verified once, here, so that the drips below start at once.
  for (const auth of [monitorAuth, monitor2Auth]) assert.equal((await admin.as(auth).get('serverRuntime?links=none&fields=name')).status, 200);
});

after(async () => {
  await srv.stop(true);
});

interface Drip {
  socket: net.Socket;
  /** The server's answer, when it has come. */
  answered: Promise<RawAnswer>;
}

/** A search whose head and first bytes are sent, announcing 1,000 bytes of body it never sends. */
async function drip(auth: string): Promise<Drip> {
  const { socket, answer } = await begin(
    srv.server.port,
    head('POST', '/management/appserver/latest/serverRuntime/search', {
      authorization: auth,
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': 1000,
      'x-requested-by': 'round3-03',
      expect: '100-continue',
    }),
    Buffer.from('{"fields": ['),
  );
  const answered = new Promise<RawAnswer>((resolve) => {
    const check = () => {
      const a = answer();
      if (a) resolve(a);
    };
    socket.on('data', check);
    socket.on('close', () => resolve(answer() ?? { status: 0, headers: {}, text: '', json: undefined }));
    check();
  });
  return { socket, answered };
}

const closed = (s: net.Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

test('item 3: a user holding its share of the in-flight limit gets 429 while others are served, and stalled bodies are cut with 408', { timeout: 60_000 }, async () => {
  const held = await Promise.all(Array.from({ length: 10 }, () => drip(monitorAuth)));
  // The eleventh request of the same user is over its share: 429 at once, with Retry-After.
  const over = await drip(monitorAuth);
  const refused = await over.answered;
  assert.equal(refused.status, 429, refused.text);
  assert.ok(Number(refused.headers['retry-after']) > 0, 'no Retry-After');
  assert.match(refused.json.detail, /'drip1' has too many requests in progress \(10, the most one user may have at once\)/);
  // Its plain reads are refused too while it holds its share; an administrator and another Monitor are served.
  assert.equal((await admin.as(monitorAuth).get('serverRuntime?links=none&fields=name')).status, 429);
  for (let i = 0; i < 5; i++) assert.equal((await admin.get('serverRuntime?links=none&fields=name')).status, 200);
  assert.equal((await admin.as(monitor2Auth).get('serverRuntime?links=none&fields=name')).status, 200);
  // The stalled bodies are answered 408, and their connections closed.
  for (const d of held) {
    const a = await d.answered;
    assert.equal(a.status, 408, a.text);
    assert.match(a.json.detail, /^The request body stopped arriving \((no byte of the request body arrived for 1\.5 s|the request body arrives at \d+ bytes a second, less than the 200 the server waits for)\); the connection is closed/);
    assert.equal(a.headers.connection, 'close');
    await closed(d.socket);
  }
  // The share is free again.
  assert.equal((await admin.as(monitorAuth).get('serverRuntime?links=none&fields=name')).status, 200);
});

test('item 3: one client address may hold half of the limit, whoever it signs in as', { timeout: 60_000 }, async () => {
  const held = [...(await Promise.all(Array.from({ length: 10 }, () => drip(monitorAuth)))), ...(await Promise.all(Array.from({ length: 10 }, () => drip(monitor2Auth))))];
  const r = await admin.get('serverRuntime?links=none&fields=name');
  assert.equal(r.status, 429, r.text);
  assert.match(r.json.detail, /Too many requests from 127\.0\.0\.1 are in progress \(20, the most one client address may have at once\)/);
  assert.ok(Number(r.headers.get('retry-after')) > 0);
  for (const d of held) {
    const a = await d.answered;
    assert.equal(a.status, 408, a.text);
  }
  assert.equal((await admin.get('serverRuntime?links=none&fields=name')).status, 200);
});

test('item 3: a body that keeps coming too slowly is cut once its average rate is below the floor', { timeout: 60_000 }, async () => {
  const d = await drip(monitorAuth);
  // One byte every 200 ms: never idle for 1.5 s, but 5 bytes a second.
  const ticker = setInterval(() => d.socket.writable && d.socket.write(' '), 200);
  try {
    const a = await d.answered;
    assert.equal(a.status, 408, a.text);
    assert.match(a.json.detail, /arrives at \d+ bytes a second, less than the 200 the server waits for/);
  } finally {
    clearInterval(ticker);
    d.socket.destroy();
  }
  // A body sent whole is served as before.
  const ok = await admin.as(monitorAuth).post('serverRuntime/search', { fields: ['name'], links: [] });
  assert.equal(ok.status, 200, ok.text);
});
