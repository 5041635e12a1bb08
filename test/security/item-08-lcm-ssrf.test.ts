// Item 08: the Lifecycle Manager calls remote runtimes, and must not become a way into other
// services. A runtime's host name, port and protocol are checked (no URL can be smuggled through
// them); redirects are never followed; a remote's answers are never repeated to the client, and
// are read only up to a limit; a slow runtime holds up no other runtime or environment, and its
// calls end when their time limit passes. Remote runtimes here are small HTTP servers of the test;
// the server runs on a manual clock, so the time limit passes only when the test moves it.
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { type Client, client, errorDetails, type Reply, type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';
import { onPostgres } from '../support/store.js';

/** What a fake runtime received. */
interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

interface Fake {
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** An HTTP server on 127.0.0.1 answering with `answer`, recording every request it gets. */
async function fake(answer: Answer): Promise<Fake> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Answers like an administration server that has no partitions and accepts every change. */
const appserverLike: Answer = (req, res) => (req.method === 'GET' ? json(res, 200, { items: [] }) : json(res, 201, {}));

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T | PromiseLike<T>) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const SECRET = 'internal-secret-7d1f0c';

let srv: RuntimeServer;
let lc: Client;
const fakes: Fake[] = [];

before(async () => {
  srv = await startRuntimeServer();
  lc = client(() => `${srv.origin}/management/lifecycle/latest`);
});

after(async () => {
  for (const f of fakes) await f.close();
  await srv?.stop(true);
});

async function started(answer: Answer): Promise<Fake> {
  const f = await fake(answer);
  fakes.push(f);
  return f;
}

const wls = (name: string, port: number, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'wls',
  hostName: '127.0.0.1',
  port,
  protocol: 'http',
  properties: [
    { name: 'username', value: 'admin' },
    { name: 'password', value: 'runtime-password' },
  ],
  ...extra,
});

async function runtimeNames(): Promise<string[]> {
  const r = await lc.get('runtimes?links=none');
  assert.equal(r.status, 200, r.text);
  return r.json.items.map((i: { name: string }) => i.name);
}

/** A 400 whose one problem names `property` and quotes `value`. */
function assertRefused(r: Reply, property: string, value: unknown, what: string): void {
  const details = errorDetails(r, 400, what);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const quoted = text === '' ? '""' : JSON.stringify(text).slice(1, -1).slice(0, 40);
  assert.ok(
    details.some((d) => d.startsWith(`[${property}] `) && d.includes(quoted)),
    `${what}: expected a problem of '${property}' quoting ${quoted}, got ${JSON.stringify(details)}`,
  );
}

/** A JSON error (4xx or a gateway error) naming the runtime. */
function assertRuntimeError(r: Reply, name: string, what: string): string {
  assert.ok((r.status >= 400 && r.status < 500) || r.status === 502 || r.status === 504, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  const details = errorDetails(r, r.status, what);
  assert.ok(details.some((d) => d.includes(`'${name}'`)), `${what}: the error names runtime '${name}': ${JSON.stringify(details)}`);
  return details.join(' ');
}

test('item 08: host names that are not a DNS name or an IP address are refused with a 400 naming hostName and the value', async () => {
  const target = await started(appserverLike);
  const bad: unknown[] = [
    `127.0.0.1:${target.port}/redirect?`,
    `127.0.0.1:${target.port}`,
    'a b',
    'user@host',
    `admin:pw@127.0.0.1`,
    'host#x',
    'host/path',
    'host?q=1',
    'host\\x',
    'host\r\nX-Injected: 1',
    '',
    ' localhost',
    'a'.repeat(254),
    `${'a'.repeat(64)}.example`,
    'a..b',
    '-a.example',
    'example.com.',
    'h\u00f6st.example',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    '1.2.3.256',
    '[::1',
    '[127.0.0.1]',
    'fe80::1%eth0',
    5,
    null,
    ['localhost'],
    { host: 'localhost' },
  ];
  const before = await runtimeNames();
  for (const [i, hostName] of bad.entries()) {
    const what = `wls hostName ${JSON.stringify(hostName)?.slice(0, 60)}`;
    assertRefused(await lc.post('runtimes', wls(`bad-host-${i}`, target.port, { hostName })), 'hostName', hostName, what);
    // A database is never called, but its host name goes into the URLs of data sources.
    assertRefused(await lc.post('runtimes', { name: `bad-db-host-${i}`, type: 'database', hostName, port: 1521, protocol: 'tcp' }), 'hostName', hostName, `database ${what}`);
  }
  assert.deepEqual(await runtimeNames(), before, 'nothing was registered');
  assert.deepEqual(target.seen, [], 'no request reached the host a bad name pointed at');

  // An update is checked the same way and leaves the runtime as it was.
  assert.equal((await lc.post('runtimes', { name: 'db-addr', type: 'database', hostName: 'db.example', port: 1521, protocol: 'tcp' })).status, 201);
  assertRefused(await lc.post('runtimes/db-addr', { hostName: 'db.example:1/x?' }), 'hostName', 'db.example:1/x?', 'update');
  assert.equal((await lc.get('runtimes/db-addr')).json.hostName, 'db.example');

  // DNS names and IP addresses are taken; an IPv6 address is kept without its brackets.
  const good: [string, string][] = [
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['db-1.internal_zone.example', 'db-1.internal_zone.example'],
    ['a'.repeat(63), 'a'.repeat(63)],
  ];
  for (const [i, [hostName, stored]] of good.entries()) {
    const r = await lc.post('runtimes', { name: `good-host-${i}`, type: 'database', hostName, port: 1521, protocol: 'tcp' });
    assert.equal(r.status, 201, `${hostName}: ${r.text.slice(0, 300)}`);
    assert.equal((await lc.get(`runtimes/good-host-${i}`)).json.hostName, stored);
    assert.equal((await lc.del(`runtimes/good-host-${i}`)).status, 200);
  }
});

test('item 08: only http or https for a wls runtime, a known protocol for others, and a port from 1 to 65535: 400 naming the property and value', async () => {
  const target = await started(appserverLike);
  const before = await runtimeNames();
  for (const [i, protocol] of ['file', 'file:', 'gopher', 'javascript:', 'javascript:alert(1)//', 'ftp', 'ws', 'tcp', 'http://127.0.0.1', 'https ', '', 7, null].entries()) {
    assertRefused(await lc.post('runtimes', wls(`bad-proto-${i}`, target.port, { protocol })), 'protocol', protocol, `wls protocol ${JSON.stringify(protocol)}`);
  }
  for (const [i, protocol] of ['file', 'gopher', 'javascript:', 'ldap'].entries()) {
    assertRefused(await lc.post('runtimes', { name: `bad-db-proto-${i}`, type: 'database', hostName: 'db', port: 1, protocol }), 'protocol', protocol, `database protocol ${protocol}`);
  }
  for (const [i, port] of [0, 65536, -1, 1.5, 1e6, '80x', '0x50', '', null, true, [80], {}].entries()) {
    assertRefused(await lc.post('runtimes', wls(`bad-port-${i}`, port as number)), 'port', port, `port ${JSON.stringify(port)}`);
  }
  assert.deepEqual(await runtimeNames(), before, 'nothing was registered');
  assert.deepEqual(target.seen, [], 'nothing was called');

  // Updates: a protocol alone, or a type whose protocols exclude the one the runtime has.
  assert.equal((await lc.post('runtimes', { name: 'db-proto', type: 'database', hostName: 'db', port: 1521, protocol: 'TCP' })).status, 201);
  assert.equal((await lc.get('runtimes/db-proto')).json.protocol, 'tcp', 'protocols are kept in lower case');
  assertRefused(await lc.post('runtimes/db-proto', { protocol: 'gopher' }), 'protocol', 'gopher', 'update to gopher');
  assertRefused(await lc.post('runtimes/db-proto', { type: 'wls' }), 'protocol', 'tcp', 'a wls runtime speaking tcp');
  const after = (await lc.get('runtimes/db-proto')).json;
  assert.deepEqual([after.type, after.protocol], ['database', 'tcp'], 'the runtime is unchanged');
  assert.equal((await lc.del('runtimes/db-proto')).status, 200);
});

test('item 08: a runtime that answers with a redirect is refused, and the redirect is never followed', async () => {
  const elsewhere = await started(appserverLike);
  const before = await runtimeNames();
  // To another port (another service), and to another path of the same server.
  const away = await started((_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/management/appserver/latest/edit/partitions?links=none` });
    res.end();
  });
  const sidestep = await started((req, res) => {
    if (req.url?.startsWith('/side')) return appserverLike(req, res);
    res.writeHead(307, { location: '/side/management/appserver/latest/edit/partitions' });
    res.end();
  });
  // A runtime is registered without being called (as the product does); its first use is refused.
  for (const [name, remote] of [['redirect-away', away], ['redirect-side', sidestep]] as const) {
    assert.equal((await lc.post('runtimes', wls(name, remote.port))).status, 201, `register ${name}`);
    const r = await lc.get(`runtimes/${name}/partitions`);
    const text = assertRuntimeError(r, name, `use ${name}`);
    assert.ok(!text.includes(String(elsewhere.port)) && !text.includes('/side'), `${name}: the error does not repeat the Location: ${text}`);
    assert.equal((await lc.del(`runtimes/${name}`)).status, 200, `unregister ${name}`);
  }
  assert.deepEqual(elsewhere.seen, [], 'the other service was never called');
  assert.deepEqual(sidestep.seen.filter((s) => s.url.startsWith('/side')), [], 'the other path was never called');
  assert.deepEqual(await runtimeNames(), before, 'nothing stayed registered');

  // A registered runtime that starts redirecting: every call is refused in the same way.
  let redirecting = false;
  const turning = await started((req, res) => {
    if (!redirecting) return appserverLike(req, res);
    res.writeHead(301, { location: `http://127.0.0.1:${elsewhere.port}/management/appserver/latest/edit/partitions` });
    res.end();
  });
  assert.equal((await lc.post('runtimes', wls('turning', turning.port))).status, 201);
  redirecting = true;
  assertRuntimeError(await lc.get('runtimes/turning/partitions'), 'turning', 'list partitions');
  assertRuntimeError(await lc.post('runtimes/turning/partitions', { name: 'p-turn' }), 'turning', 'create a partition');
  assert.deepEqual(elsewhere.seen, [], 'the other service was never called, with or without credentials');
});

test("item 08: what a failing runtime answers is never repeated to the client, and no more than 1 MiB of it is read", async () => {
  const envelope = { status: 400, type: 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1', title: 'FAILURE', detail: `refused: ${SECRET}` };
  let mode = 'ok';
  const remote = await started((req, res) => {
    if (mode === 'ok') return appserverLike(req, res);
    if (mode === '500') return json(res, 500, { status: 500, detail: `database password is ${SECRET}`, stack: [SECRET] });
    if (mode === '400') return json(res, 400, envelope);
    if (mode === '401') {
      res.writeHead(401, { 'content-type': 'text/html', 'www-authenticate': `Basic realm="${SECRET}"` });
      return res.end(`<html>${SECRET}</html>`);
    }
    if (mode === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<html><body>${SECRET}</body></html>`);
    }
    if (mode === 'shape') return req.method === 'GET' ? json(res, 200, { items: [{ name: SECRET, partitionID: 1 }, SECRET] }) : json(res, 503, { detail: SECRET });
    // A long answer (64 MiB), made only as fast as it is read.
    let sent = 0;
    const long = new Readable({
      read() {
        if (sent >= 64 * 1024 * 1024) return void this.push(null);
        sent += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 0x20));
      },
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.on('close', () => bigClosed.resolve(sent));
    long.pipe(res);
  });
  const bigClosed = deferred<number>();
  assert.equal((await lc.post('runtimes', wls('leaky', remote.port))).status, 201);

  for (const m of ['500', '400', '401', 'html', 'shape']) {
    mode = m;
    for (const [what, r] of [
      ['list partitions', await lc.get('runtimes/leaky/partitions')],
      ['create a partition', await lc.post('runtimes/leaky/partitions', { name: 'p-leak' })],
    ] as const) {
      assertRuntimeError(r, 'leaky', `${m}: ${what}`);
      assert.ok(!r.text.includes(SECRET), `${m}: ${what}: the remote answer is repeated: ${r.text.slice(0, 400)}`);
    }
  }

  mode = 'long';
  const r = await lc.get('runtimes/leaky/partitions');
  const text = assertRuntimeError(r, 'leaky', 'a 64 MiB answer');
  assert.equal(r.status, 502, text);
  assert.match(text, /1 MiB/);
  const sent = await bigClosed.promise;
  assert.ok(sent < 64 * 1024 * 1024, `the whole answer was read (${sent} bytes) instead of the connection being dropped`);
});

test('item 08: names sent to a runtime stay inside their path segment', async () => {
  const remote = await started(appserverLike);
  assert.equal((await lc.post('runtimes', wls('segments', remote.port))).status, 201);
  const before = remote.seen.length;
  for (const target of ['..', '.']) {
    const r = await lc.post('runtimes/segments/partitions', { name: 'p-seg', properties: [{ name: 'availableTargets', values: [target] }] });
    assert.equal(r.status, 400, `target ${target}: ${r.text.slice(0, 300)}`);
  }
  const r = await lc.post('environments', {
    name: 'env-seg',
    orchestration: { name: 'provision', args: [{ name: 'wls', properties: [{ name: 'partitionName', value: '..' }, { name: 'runtimeName', value: 'segments' }] }] },
  });
  assert.equal(r.status, 400, `partition '..': ${r.text.slice(0, 300)}`);
  const paths = remote.seen.slice(before).map((s) => new URL(s.url, 'http://x').pathname);
  assert.deepEqual(
    paths.filter((p) => !/^\/management\/appserver\/latest\/edit\/(partitions|virtualTargets|servers|clusters)(\/[^/.][^/]*)?$/.test(p)),
    [],
    'every call stayed on a named resource',
  );
});

/** A runtime that answers like an administration server with `partitions`, or holds every request while held. */
async function gatedRemote(partitions: { name: string; partitionID: string }[] = []): Promise<{ port: number; hold(): Deferred; release(): void }> {
  let gate: { arrived: Deferred; release: Deferred } | undefined;
  const answer: Answer = (req, res) => (req.method === 'GET' ? json(res, 200, { items: partitions }) : json(res, 201, {}));
  const f = await started((req, res) => {
    const held = gate;
    if (!held) return answer(req, res);
    held.arrived.resolve();
    void held.release.promise.then(() => answer(req, res));
  });
  return {
    port: f.port,
    hold: () => (gate = { arrived: deferred(), release: deferred() }).arrived,
    release: () => {
      gate?.release.resolve();
      gate = undefined;
    },
  };
}

test('item 08: while one runtime stalls, reads and writes of other runtimes and environments complete', async () => {
  const slow = await gatedRemote();
  const quick = await started(appserverLike);
  assert.equal((await lc.post('runtimes', wls('slow', slow.port))).status, 201);
  assert.equal((await lc.post('runtimes', { name: 'db-side', type: 'database', hostName: 'dbhost', port: 1521, protocol: 'tcp' })).status, 201);

  const arrived = slow.hold();
  let settled = false;
  const stalled = lc.post('runtimes/slow/partitions', { name: 'p-slow' }).finally(() => (settled = true));
  await arrived.promise;

  let done = 0;
  const step = async (what: string, call: Promise<Reply>, status: number) => {
    const r = await call;
    assert.equal(r.status, status, `${what}: ${r.text.slice(0, 300)}`);
    assert.equal(settled, false, `${what} waited for the stalled runtime`);
    done++;
  };
  await step('read the stalled runtime', lc.get('runtimes/slow'), 200);
  await step('create an environment', lc.post('environments', { name: 'env-meanwhile' }), 201);
  await step('register a database', lc.post('runtimes', { name: 'db-meanwhile', type: 'database', hostName: 'dbhost2', port: 1521, protocol: 'tcp' }), 201);
  await step('make a PDB', lc.post('runtimes/db-side/partitions', { name: 'pdb-meanwhile' }), 201);
  await step('add it to the environment', lc.post('environments/env-meanwhile/partitions', { name: 'pdb-meanwhile', runtimeName: 'db-side' }), 201);
  await step('make a partition of this domain', lc.post('runtimes/demo_domain/partitions', { name: 'p-meanwhile' }), 201);
  await step('register another remote runtime', lc.post('runtimes', wls('quick', quick.port)), 201);
  await step('make a partition on it', lc.post('runtimes/quick/partitions', { name: 'p-quick' }), 201);
  await step('create a tenant', lc.post('tenants', { name: 't-meanwhile' }), 201);
  assert.equal(done, 9);

  slow.release();
  const r = await stalled;
  assert.equal(r.status, 201, `the stalled call completes once the runtime answers: ${r.text.slice(0, 300)}`);
  assert.equal((await lc.del('runtimes/demo_domain/partitions/p-meanwhile')).status, 200);

  if (!onPostgres()) return;
  // Two servers sharing the store: what the other one changed while this one waited on a runtime
  // is kept, and an environment the other one removed meanwhile is not brought back.
  const other = await startRuntimeServer(srv.dataDir);
  try {
    const lc2 = client(() => `${other.origin}/management/lifecycle/latest`);
    const late = await gatedRemote([{ name: 'p-late', partitionID: 'late-1' }]);
    assert.equal((await lc.post('runtimes', wls('late', late.port))).status, 201);
    assert.equal((await lc.post('environments', { name: 'env-late' })).status, 201);
    assert.equal((await lc.post('environments', { name: 'env-gone' })).status, 201);

    const waiting = late.hold();
    const first = lc.post('environments/env-late/partitions', { name: 'p-late', runtimeName: 'late' });
    await waiting.promise;
    assert.equal((await lc2.post('environments', { name: 'env-other' })).status, 201);
    late.release();
    assert.equal((await first).status, 201, 'added after the wait');
    const envs = (await lc2.get('environments?links=none')).json.items.map((i: { name: string }) => i.name);
    const inLate = (await lc2.get('environments/env-late/partitions?links=none')).json.items.map((i: { name: string }) => i.name);
    assert.ok(envs.includes('env-other') && inLate.includes('p-late'), `both changes are kept: ${envs} / ${inLate}`);

    const held = late.hold();
    const second = lc.post('environments/env-gone/partitions', { name: 'p-late', runtimeName: 'late' });
    await held.promise;
    assert.equal((await lc2.del('environments/env-gone')).status, 200);
    late.release();
    assert.equal((await second).status, 404, 'the environment removed on the other server meanwhile');
    assert.equal((await lc.get('environments/env-gone')).status, 404, 'and it stays removed');
  } finally {
    await other.stop();
  }
});

test("item 08: a call to a runtime that never answers ends with a 504 naming the runtime when its time limit passes on the server's clock", async () => {
  const arrived = deferred();
  const dropped = deferred();
  let stall = false;
  const mute = await started((req, res) => {
    if (!stall) return appserverLike(req, res);
    arrived.resolve();
    res.on('close', () => dropped.resolve());
  });
  assert.equal((await lc.post('runtimes', wls('mute', mute.port))).status, 201);
  stall = true;
  const pending = lc.post('runtimes/mute/partitions', { name: 'p-mute' });
  await arrived.promise;
  srv.advance(15_000);
  const r = await pending;
  assert.equal(r.status, 504, r.text.slice(0, 300));
  assertRuntimeError(r, 'mute', 'the stalled call');
  await dropped.promise;
  // The runtime's lock was released: the next call goes through.
  stall = false;
  assert.equal((await lc.post('runtimes/mute/partitions', { name: 'p-mute' })).status, 201);
});
