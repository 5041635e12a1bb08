// Item 15: the origin of hrefs and Location headers. X-Forwarded-Proto and X-Forwarded-Host are
// believed only from the proxies the server was told to trust (none by default), the protocol only
// when it is http or https, and a host (forwarded or in `Host`) only when it is a valid
// host[:port]; anything else gives way to the address the request came in on.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../src/cli/server.js';
import { adminAuth, startTestServer, type TestServer } from '../support/server.js';
import { storeFor } from '../support/store.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(ROOT, 'bin', 'appserver-admin.js');

interface Raw {
  status: number;
  location: string | undefined;
  json: any;
  text: string;
}

/** One request with exactly the headers given (Host included), over node:http. */
function raw(origin: string, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Raw> {
  const u = new URL(origin);
  return new Promise((resolveReply, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path,
        method,
        setHost: false,
        headers: { authorization: adminAuth, accept: 'application/json', 'x-requested-by': 'item-15', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolveReply({ status: res.statusCode ?? 0, location: res.headers.location, json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every href of a body, however deep. */
function hrefs(body: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'href' && typeof x === 'string') out.push(x);
        else walk(x);
      }
    }
  };
  walk(body);
  return out;
}

/** The paths whose hrefs are checked: a bean, the version list, the Lifecycle Manager. */
const PAGES = ['/management/appserver/latest/domainRuntime', '/management/appserver', '/management/lifecycle/latest'];

/** Asserts that every href of every page, read with `headers`, begins with `origin/`. */
async function allUnder(srv: TestServer, headers: Record<string, string>, origin: string, what: string): Promise<void> {
  for (const page of PAGES) {
    const r = await raw(srv.origin, page, headers);
    assert.equal(r.status, 200, `${what} ${page}: ${r.text.slice(0, 300)}`);
    const links = hrefs(r.json);
    assert.ok(links.length > 0, `${what} ${page}: no hrefs`);
    for (const h of links) assert.ok(h.startsWith(`${origin}/management/`), `${what} ${page}: ${h} is not under ${origin}`);
  }
}

/** The Location of a server created with `headers`. */
async function createdAt(srv: TestServer, name: string, headers: Record<string, string>): Promise<string | undefined> {
  const r = await raw(srv.origin, '/management/appserver/latest/edit/servers', headers, 'POST', JSON.stringify({ name }));
  assert.equal(r.status, 201, r.text);
  return r.location;
}

const servers: TestServer[] = [];
let plain: TestServer;
let own: string;

before(async () => {
  plain = await startTestServer();
  servers.push(plain);
  own = `http://127.0.0.1:${plain.server.port}`;
});

after(async () => {
  for (const s of servers) await s.stop(true);
});

test('item 15: by default X-Forwarded-Proto and X-Forwarded-Host are ignored, in hrefs and in Location', async () => {
  const host = { host: `127.0.0.1:${plain.server.port}` };
  for (const forwarded of [
    { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example' },
    { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'balancer.example:8443' },
    { 'x-forwarded-proto': 'https, javascript', 'x-forwarded-host': 'a.example, b.example' },
  ]) {
    await allUnder(plain, { ...host, ...forwarded }, own, JSON.stringify(forwarded));
  }
  assert.equal(
    await createdAt(plain, 'fwd1', { ...host, 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example' }),
    `${own}/management/appserver/latest/edit/servers/fwd1`,
  );
});

test('item 15: a Host that is not a valid host[:port] gives way to the address the server listens on', async () => {
  const invalid = [
    'javascript:alert(1)',
    'evil.example/path',
    'evil.example:99999',
    'evil.example:0',
    '"><img src=x onerror=alert(1)>',
    'a b',
    'exa..mple',
    '-evil.example',
    '[::1',
    '[zz::1]:80',
    'user@evil.example',
    `${'a'.repeat(64)}.example`,
    '',
  ];
  for (const host of invalid) await allUnder(plain, { host }, own, `Host ${JSON.stringify(host)}`);
  assert.equal(await createdAt(plain, 'badhost1', { host: 'javascript:alert(1)' }), `${own}/management/appserver/latest/edit/servers/badhost1`);
  // A valid Host is what the client used, and is followed.
  for (const host of ['admin.example.test', 'admin.example.test:7001', '10.1.2.3:80', '[::1]:8080', 'localhost']) {
    await allUnder(plain, { host }, `http://${host}`, `Host ${host}`);
  }
});

test('item 15: a trusted proxy is followed, but only for http or https and a valid host', async () => {
  const trusting = await startTestServer(undefined, { trustProxy: ['10.9.8.7', '127.0.0.0/8'] });
  servers.push(trusting);
  const port = trusting.server.port;
  const balancer = { host: `127.0.0.1:${port}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'balancer.example:8443' };
  await allUnder(trusting, balancer, 'https://balancer.example:8443', 'a trusted proxy');
  assert.equal(await createdAt(trusting, 'viaproxy1', balancer), 'https://balancer.example:8443/management/appserver/latest/edit/servers/viaproxy1');
  await allUnder(trusting, { ...balancer, 'x-forwarded-proto': 'HTTPS' }, 'https://balancer.example:8443', 'HTTPS in capitals');
  for (const proto of ['javascript', 'ftp', 'https:', 'data', '']) {
    await allUnder(trusting, { ...balancer, 'x-forwarded-proto': proto }, 'http://balancer.example:8443', `X-Forwarded-Proto ${JSON.stringify(proto)}`);
  }
  // An invalid forwarded host falls back to a valid Host, then to the address the request came in on.
  await allUnder(trusting, { ...balancer, host: 'admin.example.test', 'x-forwarded-host': 'evil.example/x' }, 'https://admin.example.test', 'invalid forwarded host');
  await allUnder(trusting, { ...balancer, host: 'a b', 'x-forwarded-host': 'javascript:alert(1)' }, `https://127.0.0.1:${port}`, 'no valid host at all');
});

test('item 15: a proxy is trusted only at the addresses configured', async () => {
  const elsewhere = await startTestServer(undefined, { trustProxy: ['10.0.0.0/8', 'fd00::/8'] });
  servers.push(elsewhere);
  const origin = `http://127.0.0.1:${elsewhere.server.port}`;
  await allUnder(elsewhere, { host: `127.0.0.1:${elsewhere.server.port}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'balancer.example' }, origin, 'a client outside the trusted ranges');
});

test('item 15: trusted proxies that are not addresses or CIDR ranges are refused before the server starts', async () => {
  for (const entry of ['nonsense', '10.0.0.0/33', '1.2.3.4/x', '::1/129', '10.0.0.1/8/8', '*']) {
    const dataDir = mkdtempSync(join(tmpdir(), 'appserver-item15-'));
    try {
      const started = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, trustProxy: ['127.0.0.1', entry] }).catch((err: Error) => err);
      if (!(started instanceof Error)) {
        await started.close();
        assert.fail(`the server started, trusting '${entry}'`);
      }
      assert.ok(started.message.includes(`'${entry}' is not an IP address or a CIDR range`), started.message);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

test('item 15: serve --trust-proxy takes addresses and CIDR ranges, and refuses anything else', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-item15-cli-'));
  const store = await storeFor(dataDir);
  const serve = (...extra: string[]) =>
    spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent', ...(store ? ['--store', store] : []), ...extra], {
      cwd: ROOT,
      env: { ...process.env, APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  try {
    const bad = serve('--trust-proxy', '127.0.0.1,not-an-address');
    let err = '';
    bad.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((done) => bad.once('exit', (c) => done(c)));
    assert.equal(code, 1, err);
    assert.match(err, /'not-an-address' is not an IP address or a CIDR range/);

    const good = serve('--trust-proxy', '10.9.8.7', '--trust-proxy', '127.0.0.0/8,::1');
    const exited = new Promise<void>((done) => good.once('exit', () => done()));
    try {
      const origin = await new Promise<string>((resolveUrl, reject) => {
        let out = '';
        good.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/[^/\s]+)/.exec(out);
          if (m) resolveUrl(m[1]!);
        });
        good.once('exit', (c) => reject(new Error(`the server exited (${c}) before listening: ${out}`)));
      });
      const r = await raw(origin, '/management/appserver/latest', { host: new URL(origin).host, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'balancer.example' });
      assert.equal(r.status, 200, r.text);
      for (const h of hrefs(r.json)) assert.ok(h.startsWith('https://balancer.example/'), h);
    } finally {
      good.kill('SIGTERM');
      await exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
