// Issue 26, item 7: with the domain's administration port enabled, management requests (the REST
// trees, the console, the metrics, the readiness probe) are refused on a server's plain port, as
// the product refuses them there (403), on the administration server and on each managed server's
// own port; they are served on the administration port (HTTPS), the domain's or the server's own.
// Applications' own traffic stays on the plain port. The change is made in an edit session: in
// 12.2.1.4.0 it takes effect at activation; in 14.1.2.0.0 the types say it needs a restart, so the
// running servers keep serving as they started and show restartRequired until restarted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type Client, type Reply, type RuntimeServer, adminAuth, assertAccepted, client, job, pollUntil, request, startRuntimeServer } from '../support/runtime-server.js';
import { freePortOffset, refused } from '../support/ports.js';
import { jsonOrUndefined } from '../support/answer.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const LATEST = '/management/appserver/latest';
const started: RuntimeServer[] = [];

after(async () => {
  for (const s of started) await s.stop(true).catch(() => undefined);
});

/** One request over HTTPS trusting only the data directory's certificate. */
function secure(url: string, ca: string, init: { method?: string; body?: unknown; auth?: string | null } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers: Record<string, string> = { accept: 'application/json', 'x-requested-by': 'item7' };
    if (init.auth !== null) headers.authorization = init.auth ?? adminAuth;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = httpsRequest(url, { method: init.method ?? 'GET', ca, headers, timeout: 10_000 }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        const json = jsonOrUndefined(text);
        resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A client of the management interface on an HTTPS port. */
function secureClient(origin: string, ca: string) {
  return {
    get: (path: string) => secure(`${origin}${LATEST}/${path}`, ca),
    post: (path: string, body: unknown = {}) => secure(`${origin}${LATEST}/${path}`, ca, { method: 'POST', body }),
  };
}

async function startMs1(srv: RuntimeServer, admin: { post(p: string, b?: unknown, h?: Record<string, string>): Promise<Reply>; get(p: string): Promise<Reply> }): Promise<void> {
  const answer = await (admin as Client).post(`${LC}/ms1/start`, {}, { prefer: 'respond-async' });
  const location = assertAccepted(answer, 'start ms1');
  srv.advance(2000);
  const task = await pollUntil(() => admin.get(location).then((r) => r.json), (t) => t?.completed === true, 'ms1 started');
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
}

/** Asserts the 403 the plain port gives a management request, naming the administration port. */
function assertRefused(r: Reply, adminOrigin: string, what: string): void {
  assert.equal(r.status, 403, `${what}: ${r.text}`);
  assert.equal(r.json?.status, 403, what);
  assert.match(r.json?.detail ?? '', new RegExp(`only on the administration port \\(${adminOrigin.replace(/[.]/g, '\\.')}\\)`), what);
}

test('item 7 (12.2.1.4.0): enabled in an edit session, the administration port takes management traffic at once; the plain ports refuse it (403), applications stay', { timeout: 120_000 }, async () => {
  const offset = await freePortOffset([7003, 9002, 9013]);
  const srv = await startRuntimeServer(undefined, undefined, { portOffset: offset });
  started.push(srv);
  const ms1Plain = client(() => `http://127.0.0.1:${7003 + offset}${LATEST}`);
  await startMs1(srv, srv.admin);
  assert.equal((await ms1Plain.get('serverRuntime?links=none&fields=name')).status, 200, 'before: ms1 serves management on its plain port');

  // The domain's administration port (the administration server's: 9002), ms1's own (9013).
  assert.equal((await srv.admin.post('edit/changeManager/startEdit')).status, 200);
  assert.equal((await srv.admin.post('edit', { administrationPortEnabled: true })).status, 200);
  assert.equal((await srv.admin.post('edit/servers/ms1', { administrationPort: 9013 })).status, 200);
  const activated = await srv.admin.post('edit/changeManager/activate');
  assert.equal(activated.status, 200, activated.text);

  // The administration server listens on the address it was started on; ms1 sets none (localhost).
  const adminOrigin = `https://127.0.0.1:${9002 + offset}`;
  const ms1Origin = `https://localhost:${9013 + offset}`;
  await pollUntil(() => refused(9002 + offset), (r) => !r, 'the administration port opens');
  await pollUntil(() => refused(9013 + offset), (r) => !r, "ms1's administration port opens");
  const ca = readFileSync(join(srv.dataDir, 'certificates', 'listener-cert.pem'), 'utf8');
  const adminSecure = secureClient(`https://127.0.0.1:${9002 + offset}`, ca);
  const ms1Secure = secureClient(`https://127.0.0.1:${9013 + offset}`, ca);

  // The administration server: management, the console, the metrics and the probe refused on the
  // plain port (anonymous callers too, before any credential is looked at); its application served.
  assertRefused(await srv.admin.get('domainRuntime/serverLifeCycleRuntimes?links=none'), adminOrigin, 'admin plain: REST read');
  assertRefused(await srv.admin.post('edit/changeManager/startEdit'), adminOrigin, 'admin plain: REST write');
  assertRefused(await request(`${srv.latest}/serverRuntime`, { auth: null }), adminOrigin, 'admin plain: anonymous');
  assertRefused(await request(`${srv.origin}/console/`), adminOrigin, 'admin plain: console');
  assertRefused(await request(`${srv.origin}/metrics`), adminOrigin, 'admin plain: metrics');
  assertRefused(await request(`${srv.origin}/appserver/ready`, { auth: null }), adminOrigin, 'admin plain: readiness');
  const app = await request(`${srv.origin}/inventory/`, { auth: null });
  assert.equal(app.status, 200, `the administration server's application on its plain port: ${app.text}`);

  // On the administration port (HTTPS, the data directory's certificate): all of it.
  const runtime = await adminSecure.get('serverRuntime?links=none&fields=name,administrationPortEnabled,administrationURL');
  assert.equal(runtime.status, 200, runtime.text);
  assert.deepEqual(runtime.json, { name: 'AdminServer', administrationPortEnabled: true, administrationURL: `t3s://127.0.0.1:${9002 + offset}` });
  assert.equal((await secure(`https://127.0.0.1:${9002 + offset}/console/`, ca)).status, 200, 'the console on the administration port');
  assert.equal((await secure(`https://127.0.0.1:${9002 + offset}/appserver/ready`, ca, { auth: null })).status, 200, 'the probe on the administration port');

  // ms1: its plain port refuses management and names its own administration port; its
  // administration port serves it; the cluster's application still answers on the plain port.
  assertRefused(await ms1Plain.get('serverRuntime?links=none'), ms1Origin, 'ms1 plain: REST read');
  assert.equal((await request(`http://127.0.0.1:${7003 + offset}/benefits/`, { auth: null })).status, 200, "ms1's application on its plain port");
  const ms1 = await ms1Secure.get('serverRuntime?links=none&fields=name,administrationPortEnabled,administrationURL,restartRequired');
  assert.deepEqual(ms1.json, { name: 'ms1', administrationPortEnabled: true, administrationURL: `t3s://localhost:${9013 + offset}`, restartRequired: false });

  // Turned off again through the administration port: the plain ports serve management again and
  // the administration ports close.
  assert.equal((await adminSecure.post('edit/changeManager/startEdit')).status, 200);
  assert.equal((await adminSecure.post('edit', { administrationPortEnabled: false })).status, 200);
  assert.equal((await adminSecure.post('edit/changeManager/activate')).status, 200);
  assert.equal((await srv.admin.get('serverRuntime?links=none&fields=administrationPortEnabled')).json?.administrationPortEnabled, false);
  await pollUntil(() => ms1Plain.get('serverRuntime?links=none&fields=name'), (r) => r.status === 200, 'ms1 serves management on its plain port again');
  await pollUntil(() => refused(9002 + offset), (r) => r, 'the administration server closes its administration port');
  await pollUntil(() => refused(9013 + offset), (r) => r, 'ms1 closes its administration port');
});

test('item 7 (14.1.2.0.0): the administration port needs a restart: running servers keep serving on the plain port, flagged restartRequired, and take it up when restarted', { timeout: 120_000 }, async () => {
  const offset = await freePortOffset([7003, 9002, 9013]);
  let srv = await startRuntimeServer(undefined, undefined, { portOffset: offset, productVersion: '14.1.2.0.0' });
  started.push(srv);
  const ms1Plain = client(() => `http://127.0.0.1:${7003 + offset}${LATEST}`);
  await startMs1(srv, srv.admin);

  assert.equal((await srv.admin.post('edit/changeManager/startEdit')).status, 200);
  assert.equal((await srv.admin.post('edit', { administrationPortEnabled: true })).status, 200);
  assert.equal((await srv.admin.post('edit/servers/ms1', { administrationPort: 9013 })).status, 200);
  const activated = await srv.admin.post('edit/changeManager/activate');
  assert.equal(activated.status, 200, activated.text);

  // Nothing moves until a restart: both servers still serve management on their plain ports.
  for (const [who, c] of [['AdminServer', srv.admin], ['ms1', ms1Plain]] as const) {
    const r = await c.get('serverRuntime?links=none&fields=name,administrationPortEnabled,restartRequired');
    assert.equal(r.status, 200, `${who}: ${r.text}`);
    assert.deepEqual(r.json, { name: who, administrationPortEnabled: false, restartRequired: true }, who);
  }
  assert.equal(await refused(9002 + offset), true, 'no administration port before the restart');

  // ms1 restarted: it opens its administration port and refuses management on its plain port.
  const stop = await srv.admin.post(`${LC}/ms1/forceShutdown`, {}, { prefer: 'respond-async' });
  const stopTask = assertAccepted(stop, 'stop ms1');
  srv.advance(2000);
  await pollUntil(() => job(srv.admin, stopTask), (t) => t.completed === true, 'ms1 stopped');
  await startMs1(srv, srv.admin);
  assertRefused(await ms1Plain.get('serverRuntime?links=none'), `https://localhost:${9013 + offset}`, 'ms1 after its restart');
  assert.equal((await srv.admin.get('serverRuntime?links=none&fields=administrationPortEnabled')).json?.administrationPortEnabled, false, 'the administration server, not restarted, keeps its plain port');

  // The administration server restarted (the process): its plain port refuses management now, and
  // ms1, still running, listens again with the channel it started with.
  started.splice(started.indexOf(srv), 1);
  await srv.server.close();
  await pollUntil(() => refused(7003 + offset), (r) => r, 'the process stopped');
  srv = await startRuntimeServer(srv.dataDir, undefined, { portOffset: offset, productVersion: '14.1.2.0.0' });
  started.push(srv);
  assertRefused(await srv.admin.get('serverRuntime?links=none'), `https://127.0.0.1:${9002 + offset}`, 'the administration server after its restart');
  const ca = readFileSync(join(srv.dataDir, 'certificates', 'listener-cert.pem'), 'utf8');
  const again = await secureClient(`https://127.0.0.1:${9002 + offset}`, ca).get('serverRuntime?links=none&fields=administrationPortEnabled,restartRequired');
  assert.deepEqual(again.json, { administrationPortEnabled: true, restartRequired: false });
  assertRefused(await ms1Plain.get('serverRuntime?links=none'), `https://localhost:${9013 + offset}`, 'ms1 after the process restarted');
});
