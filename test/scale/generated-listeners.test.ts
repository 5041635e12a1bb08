// A generated domain runs on this machine: `init --servers 50` gives managed servers listen
// addresses and ports that work here (and says how to change them), `serve` followed by a start of
// every server brings all 50 to RUNNING with their own listeners open, and the administration
// server's runtime names the port `serve` really listens on.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirs, runCli } from '../support/cli.js';
import { freePortOffset } from '../support/ports.js';

const newDir = dataDirs('appserver-generated-');
const SERVERS = 50;
const auth = `Basic ${Buffer.from('admin:welcome1').toString('base64')}`;
const ADMIN = { APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' };

test('init --servers 50, serve, start all 50 with their listeners: every one RUNNING and answering', { timeout: 180_000 }, async () => {
  const dataDir = join(newDir(), 'data');
  const init = runCli(['init', '--data-dir', dataDir, '--servers', String(SERVERS), '--clusters', '5', '--partitions', '5', '--applications', '20'], ADMIN);
  assert.equal(await init.exited, 0, init.stderr());
  assert.match(init.stdout(), new RegExp(`Managed servers listen on 127\\.0\\.0\\.1, ports 8001-${8000 + SERVERS} \\(choose them with init --listen-address and --first-port; serve --port-offset N shifts them all`));

  const ports = Array.from({ length: SERVERS }, (_, i) => 8001 + i);
  const offset = await freePortOffset(ports);
  const serve = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--port-offset', String(offset), '--data-dir', dataDir], ADMIN);
  const api = await serve.listening;
  const port = Number(new URL(api).port);
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${api}/${path}`, { ...init, headers: { authorization: auth, 'x-requested-by': 'test', 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

  // The administration server's runtime names the port it is reached on, not the configured 7001.
  const admin = (await (await call('domainRuntime/serverRuntimes/AdminServer?links=none&fields=defaultURL,adminServerListenPort')).json()) as { defaultURL: string; adminServerListenPort: number };
  assert.equal(admin.defaultURL, `t3://127.0.0.1:${port}`);
  assert.equal(admin.adminServerListenPort, port);

  for (let i = 0; i < SERVERS; i++) {
    const r = await call(`domainRuntime/serverLifeCycleRuntimes/ms${i}/start`, { method: 'POST', body: '{}', headers: { prefer: 'respond-async' } });
    assert.equal(r.status, 202, `start ms${i}: ${await r.text()}`);
  }
  const deadline = Date.now() + 120_000;
  let states: Record<string, string> = {};
  for (;;) {
    const read = await call('domainRuntime/serverLifeCycleRuntimes?links=none&fields=name,state');
    // Fifty servers starting at once may make a loaded machine shed a read (503): read again.
    if (read.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    assert.equal(read.status, 200, `the life cycle list: ${read.status}`);
    const list = (await read.json()) as { items: { name: string; state: string }[] };
    states = Object.fromEntries(list.items.filter((s) => s.name !== 'AdminServer').map((s) => [s.name, s.state]));
    const waiting = Object.values(states).filter((s) => s !== 'RUNNING');
    if (waiting.length === 0 || waiting.includes('FAILED') || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const notRunning = Object.entries(states).filter(([, s]) => s !== 'RUNNING');
  assert.deepEqual(notRunning, [], serve.stdout() + serve.stderr());
  assert.equal(Object.keys(states).length, SERVERS);

  // Each answers on its own port, as its runtime says.
  for (let i = 0; i < SERVERS; i++) {
    const ready = await fetch(`http://127.0.0.1:${8001 + i + offset}/appserver/ready`);
    assert.equal(ready.status, 200, `ms${i}`);
    assert.deepEqual(await ready.json(), { server: `ms${i}`, state: 'RUNNING' });
  }
  const ms7 = (await (await call('domainRuntime/serverRuntimes/ms7?links=none&fields=defaultURL')).json()) as { defaultURL: string };
  assert.equal(ms7.defaultURL, `t3://127.0.0.1:${8008 + offset}`);
  await serve.stop();
});

test('init refuses ports past 65535 and a listen address that is not one, before creating anything', async () => {
  const far = runCli(['init', '--data-dir', join(newDir(), 'data'), '--servers', '100', '--first-port', '65500'], ADMIN);
  assert.notEqual(await far.exited, 0);
  assert.match(far.stderr(), /100 servers from port 65500 would need ports up to 65599, past 65535: give a lower --first-port or fewer --servers/);
  const bad = runCli(['init', '--data-dir', join(newDir(), 'data'), '--servers', '2', '--listen-address', 'a b'], ADMIN);
  assert.notEqual(await bad.exited, 0);
  assert.match(bad.stderr(), /--listen-address/);
  const zero = runCli(['init', '--data-dir', join(newDir(), 'data'), '--servers', '2', '--first-port', '0'], ADMIN);
  assert.notEqual(await zero.exited, 0);
  assert.match(zero.stderr(), /--first-port takes a whole number from 1 to 65535, not '0'/);
});
