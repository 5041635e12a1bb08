// The first run, as a newcomer sees it: `serve` on a terminal (a pseudo-terminal made by `script`
// from util-linux) prints readable lines only, no warning and no JSON, names the console's URL and
// how to sign in; the demo domain is healthy everywhere, managed servers started included. On a
// pipe the same start logs JSON lines, for log collectors.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN, ROOT, dataDirs, runCli } from '../support/cli.js';
import { freePortOffset } from '../support/ports.js';

const newDir = dataDirs('appserver-first-run-');
const noScript = spawnSync('script', ['--version']).error ? 'script (util-linux) is not installed' : false;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
});

/** `serve` on a pseudo-terminal; resolves with what it printed once it said where the console is. */
async function serveOnTerminal(args: string[]): Promise<{ text: () => string; banner: string; stop: () => Promise<void> }> {
  const command = [process.execPath, BIN, 'serve', ...args].map(quote).join(' ');
  // -q: no header line; -f: flush at once; -e: script's exit code is the command's; the log file is discarded.
  const proc = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, APPSERVER_ADMIN_USER: undefined, APPSERVER_ADMIN_PASSWORD: undefined, APPSERVER_SECRET_KEY: undefined, TERM: 'xterm' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((done) => proc.once('close', () => done()));
  const stop = async () => {
    if (proc.exitCode !== null) return;
    proc.stdin.write('\x03'); // Ctrl-C on the terminal: SIGINT to the server, which stops cleanly
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  stops.push(stop);
  const banner = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no start-up lines within 60 s:\n${out}`)), 60_000);
    const look = () => {
      if (/managed servers (listen|do not listen)[^\n]*\n/.test(out)) {
        clearTimeout(timer);
        done(out);
      }
    };
    proc.stdout.on('data', look);
    void exited.then(() => fail(new Error(`serve ended before it started:\n${out}`)));
  });
  return { text: () => out, banner, stop };
}

async function get(url: string, auth: string): Promise<any> {
  // X-Requested-By: reading domainRuntime/serverRuntimes while managed servers run needs it (as the product's does).
  const r = await fetch(url, { headers: { authorization: auth, 'x-requested-by': 'first-run' } });
  assert.equal(r.status, 200, `${url}: ${r.status}`);
  return r.json();
}

test('on a terminal: readable lines only, no warning, the console and how to sign in; the demo is healthy', { skip: noScript, timeout: 120_000 }, async () => {
  const offset = await freePortOffset();
  const dir = newDir();
  const run = await serveOnTerminal(['--host', '127.0.0.1', '--port', '0', '--port-offset', String(offset), '--data-dir', join(dir, 'data')]);
  const lines = run.banner.replace(/\r/g, '').split('\n').filter((l) => l.trim() !== '');
  assert.deepEqual(lines.filter((l) => /^\s*\{/.test(l)), [], 'no JSON line on a terminal');
  assert.deepEqual(lines.filter((l) => /warn|error/i.test(l)), [], 'no warning on a fresh demo');
  const console = /console at (http:\/\/127\.0\.0\.1:(\d+)\/console\/) \(sign in as admin with the password shown above\)/.exec(run.banner);
  assert.ok(console, run.banner);
  const password = /Administrator: admin \/ (\S+) \(shown only this once\)/.exec(run.banner)?.[1];
  assert.ok(password, run.banner);
  const origin = `http://127.0.0.1:${console[2]}`;
  const auth = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
  assert.equal((await fetch(console[1]!)).status, 200, 'the console answers at the URL shown');

  // Start both managed servers, then every server, data source and application is healthy.
  const api = `${origin}/management/appserver/latest`;
  for (const ms of ['ms1', 'ms2']) {
    const r = await fetch(`${api}/domainRuntime/serverLifeCycleRuntimes/${ms}/start`, { method: 'POST', headers: { authorization: auth, 'x-requested-by': 'first-run', 'content-type': 'application/json', prefer: 'wait=60' }, body: '{}' });
    assert.equal(r.status, 200, `start ${ms}: ${await r.text()}`);
  }
  const servers = (await get(`${api}/domainRuntime/serverRuntimes?links=none&fields=name,state,overallHealthState`, auth)).items as any[];
  assert.deepEqual(servers.map((s) => [s.name, s.state, s.overallHealthState.state]).sort(), [['AdminServer', 'RUNNING', 'ok'], ['ms1', 'RUNNING', 'ok'], ['ms2', 'RUNNING', 'ok']]);
  const search = await fetch(`${api}/domainRuntime/search`, {
    method: 'POST',
    headers: { authorization: auth, 'x-requested-by': 'first-run', 'content-type': 'application/json' },
    body: JSON.stringify({ links: [], fields: [], children: { serverRuntimes: { links: [], fields: ['name'], children: {
      JDBCServiceRuntime: { links: [], fields: ['healthState'], children: { JDBCDataSourceRuntimeMBeans: { links: [], fields: ['name', 'state'] } } },
      partitionRuntimes: { links: [], fields: ['name'], children: { JDBCPartitionRuntime: { links: [], fields: [], children: { JDBCDataSourceRuntimeMBeans: { links: [], fields: ['name', 'state'] } } } } },
      applicationRuntimes: { links: [], fields: ['name', 'healthState'] },
    } } } }),
  });
  assert.equal(search.status, 200);
  const found = (await search.json()) as any;
  const dataSources: string[] = [];
  const unhealthy: string[] = [];
  for (const s of found.serverRuntimes.items) {
    if (s.JDBCServiceRuntime.healthState.state !== 'ok') unhealthy.push(`${s.name} JDBC service ${s.JDBCServiceRuntime.healthState.state}`);
    const all = [...s.JDBCServiceRuntime.JDBCDataSourceRuntimeMBeans.items, ...(s.partitionRuntimes?.items ?? []).flatMap((p: any) => p.JDBCPartitionRuntime?.JDBCDataSourceRuntimeMBeans?.items ?? [])];
    for (const ds of all) {
      dataSources.push(`${s.name}/${ds.name}`);
      if (ds.state !== 'Running') unhealthy.push(`${s.name}/${ds.name} ${ds.state}`);
    }
    for (const app of s.applicationRuntimes.items) if (app.healthState.state !== 'ok') unhealthy.push(`${s.name}/${app.name} ${app.healthState.state}`);
  }
  assert.ok(dataSources.some((d) => d.startsWith('AdminServer/partition1-ds')), dataSources.join(' '));
  assert.deepEqual(unhealthy, []);
  await run.stop();
  assert.doesNotMatch(run.text(), /warn/i, 'nothing warned while it ran and stopped');
});

test('on a pipe the log lines are JSON; --log-format pretty asks for readable ones', { timeout: 60_000 }, async () => {
  const run = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--no-listeners', '--data-dir', join(newDir(), 'data')], { APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' });
  await run.listening;
  await run.stop();
  const logLine = run.stdout().split('\n').find((l) => l.includes('stopping: no new requests are taken'));
  assert.ok(logLine?.startsWith('{'), run.stdout());
  assert.equal(JSON.parse(logLine!).level, 30);
  // The framework's own "listening at" line is left out: the server's start-up lines say where it listens.
  assert.doesNotMatch(run.stdout(), /Server listening at/);
  assert.match(run.stdout(), /console at http:\/\/127\.0\.0\.1:\d+\/console\/ \(sign in as admin with the password given in APPSERVER_ADMIN_PASSWORD\)/);
});
