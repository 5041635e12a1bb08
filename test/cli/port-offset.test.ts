// `serve --port-offset N`, as a user runs it: a bad offset is refused before anything starts; with
// a good one, a started managed server answers on its ports shifted by N: plain HTTP on its listen
// port, HTTPS on its SSL and administration ports with the certificate the server made once in the
// data directory (the same after a restart), the administration server's administration port
// shifted too; the ports close when the process stops.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirs, runCli } from '../support/cli.js';
import { freePortOffset, refused } from '../support/ports.js';
import { adminAuth, client, pollUntil, request } from '../support/runtime-server.js';

const ADMIN = { APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' };
const dataDir = dataDirs('appserver-offset-');

test('serve --port-offset refuses what is not a whole number from 0 to 65535', async () => {
  for (const bad of ['abc', '-5', '70000', '1.5', '']) {
    const run = runCli(['serve', '--port', '0', '--data-dir', dataDir(), '--port-offset', bad], ADMIN);
    assert.equal(await run.exited, 1, `--port-offset '${bad}': ${run.stdout()}`);
    assert.match(run.stderr(), new RegExp(`--port-offset takes a whole number from 0 to 65535, not '${bad}'`), run.stderr());
    assert.doesNotMatch(run.stdout(), /listening/);
  }
});

/** A request over HTTPS trusting only `ca`, with the administrator's credentials. */
function httpsCall(url: string, ca: string, method = 'GET'): Promise<{ status: number; json: any; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: adminAuth, accept: 'application/json', 'x-requested-by': 'port-offset' };
    if (method === 'POST') Object.assign(headers, { 'content-type': 'application/json', prefer: 'respond-async' });
    const req = httpsRequest(url, { ca, method, headers, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body), location: res.headers.location }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

const httpsGet = (url: string, ca: string) => httpsCall(url, ca);

test('serve --port-offset N: a started server listens on its plain, SSL and administration ports shifted by N', { timeout: 120_000 }, async () => {
  const offset = await freePortOffset([7002, 7003, 9002, 9013]);
  const dir = dataDir();
  const run = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dir, '--port-offset', String(offset)], ADMIN);
  const latest = await run.listening;
  await pollUntil(async () => run.stdout(), (out) => out.includes('managed servers listen'), 'the start-up lines');
  assert.match(run.stdout(), new RegExp(`managed servers listen on their own ports shifted by ${offset}\\n`));
  const admin = client(() => latest);
  // SSL on ms1, and the domain's administration port (ms1's own: 9013).
  assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
  assert.equal((await admin.post('edit/servers/ms1/SSL', { enabled: true })).status, 200);
  assert.equal((await admin.post('edit/servers/ms1', { administrationPort: 9013 })).status, 200);
  assert.equal((await admin.post('edit', { administrationPortEnabled: true })).status, 200);
  const activated = await admin.post('edit/changeManager/activate', {});
  assert.equal(activated.status, 200, activated.text);

  // From now on management goes to the administration server's administration port (the
  // domain's, 9002, shifted too), over HTTPS with the certificate the server made in the data directory.
  await pollUntil(() => refused(9002 + offset), (r) => !r, 'the administration port opens');
  const certFile = join(dir, 'certificates', 'listener-cert.pem');
  const cert = readFileSync(certFile, 'utf8');
  assert.equal(statSync(join(dir, 'certificates', 'listener-key.pem')).mode & 0o777, 0o600, 'the private key is readable by its owner only');
  const adminPort = `https://127.0.0.1:${9002 + offset}/management/appserver/latest`;
  const started = await httpsCall(`${adminPort}/domainRuntime/serverLifeCycleRuntimes/ms1/start`, cert, 'POST');
  assert.equal(started.status, 202, JSON.stringify(started.json));
  // The process runs on the real clock: a start takes two seconds.
  const task = await pollUntil(() => httpsGet(String(started.location), cert), (t) => t.json?.completed === true, 'ms1 start', 20_000);
  assert.equal(task.json.taskError, null, JSON.stringify(task.json));

  const fields = 'serverRuntime?links=none&fields=name,defaultURL,administrationURL,administrationPortEnabled,SSLListenPortEnabled';
  // The plain port refuses management while the administration port is open.
  assert.equal((await request(`http://localhost:${7003 + offset}/management/appserver/latest/${fields}`)).status, 403);
  const own = await httpsGet(`https://localhost:${9013 + offset}/management/appserver/latest/${fields}`, cert);
  assert.equal(own.status, 200, JSON.stringify(own.json));
  assert.deepEqual(own.json, {
    name: 'ms1',
    defaultURL: `t3://localhost:${7003 + offset}`,
    administrationURL: `t3s://localhost:${9013 + offset}`,
    administrationPortEnabled: true,
    SSLListenPortEnabled: true,
  });
  const channels = await httpsGet(`https://localhost:${9013 + offset}/management/appserver/latest/serverRuntime/serverChannelRuntimes?links=none&fields=name,publicURL`, cert);
  // One channel per protocol and address; the first of each family names the listener's port.
  const named = (name: string) => channels.json.items.find((c: { name: string }) => c.name === name);
  assert.deepEqual(
    ['Default[http]', 'DefaultSecure[https]', 'DefaultAdministration[https]'].map(named),
    [
      { name: 'Default[http]', publicURL: `http://localhost:${7003 + offset}` },
      { name: 'DefaultSecure[https]', publicURL: `https://localhost:${7002 + offset}` },
      { name: 'DefaultAdministration[https]', publicURL: `https://localhost:${9013 + offset}` },
    ],
  );

  // HTTPS with the data directory's certificate, for localhost: trusting it alone is enough. The
  // SSL port is not an administration port: it refuses management as the plain port does.
  const ssl = await httpsGet(`https://localhost:${7002 + offset}/management/appserver/latest/serverRuntime?links=none&fields=name`, cert);
  assert.equal(ssl.status, 403, JSON.stringify(ssl.json));
  // A client that trusts nothing refuses the self-signed certificate.
  await assert.rejects(httpsGet(`https://localhost:${7002 + offset}/appserver/ready`, ''), /self[- ]signed|unable to verify|certificate/i);

  // The process stops: every port closes. Started again, ms1 listens again with the same certificate.
  assert.equal(await run.stop(), 0);
  for (const port of [7002, 7003, 9002, 9013]) assert.equal(await refused(port + offset), true, `port ${port + offset} closed`);
  const again = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dir, '--port-offset', String(offset)], ADMIN);
  await again.listening;
  await pollUntil(async () => again.stdout(), (out) => out.includes('managed servers listen'), 'the start-up lines');
  assert.match(again.stdout(), /managed servers listen on their own ports shifted by \d+ \(listening: ms1\)/);
  assert.match(again.stdout(), new RegExp(`administration port enabled: management requests and the console are served at https://127\\.0\\.0\\.1:${9002 + offset} only`));
  const r = await httpsGet(`https://localhost:${9013 + offset}/management/appserver/latest/serverRuntime?links=none&fields=name`, cert);
  assert.deepEqual(r.json, { name: 'ms1' });
  assert.equal(readFileSync(certFile, 'utf8'), cert, 'the certificate is made once');
  assert.equal(await again.stop(), 0);
});
