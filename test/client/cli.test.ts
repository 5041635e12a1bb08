// The built client commands (`bin/appserver-admin.js get|set|...`) run as child processes against a
// running server on a manual clock, as a user or a script would run them: what they print (tables,
// --json), what they change (checked over HTTP), and the exit codes scripts rely on.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { execFile } from 'node:child_process';
import { BIN, cliEnv, cliOutcome, killRunning, runCli } from '../support/cli.js';
import { type RuntimeServer, createUser, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let home: string;

before(async () => {
  srv = await startRuntimeServer();
  home = mkdtempSync(join(tmpdir(), 'appserver-cli-home-'));
});

after(async () => {
  await killRunning();
  await srv.stop(true);
  rmSync(home, { recursive: true, force: true });
});

/** The connection as environment variables; no configuration file unless a test writes one. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { APPSERVER_URL: srv.origin, APPSERVER_USER: 'admin', APPSERVER_PASSWORD: 'welcome1', APPSERVER_CONFIG: undefined, XDG_CONFIG_HOME: home, ...extra };
}

interface Ran {
  code: number | string;
  out: string;
  err: string;
}

const cli = (args: string[], extra: Record<string, string | undefined> = {}): Promise<Ran> => cliOutcome(args, env(extra));

function ok(r: Ran, what: string): Ran {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.out}${r.err}`);
  return r;
}

const field = async (path: string, name: string) => (await srv.admin.get(`${path}?links=none&fields=${name}`)).json[name];

test('get: a table of properties, a table of items, JSON for scripts', async () => {
  const table = ok(await cli(['get', 'edit/servers/ms1', '--fields', 'name,listenPort']), 'get bean');
  assert.match(table.out, /^PROPERTY\s+VALUE\n/);
  assert.match(table.out, /\nlistenPort\s+\d+\n/);
  assert.match(table.out, /\nname\s+ms1\n/);
  const items = ok(await cli(['get', 'domainRuntime/serverLifeCycleRuntimes', '--columns', 'state']), 'get collection');
  assert.match(items.out, /^NAME\s+STATE\n/);
  assert.match(items.out, /\nAdminServer\s+RUNNING\n/);
  assert.match(items.out, /\nms1\s+SHUTDOWN\n/);
  const json = JSON.parse(ok(await cli(['get', 'edit/servers/ms1', '--json', '--fields', 'name,cluster']), 'get --json').out);
  assert.deepEqual(json, { name: 'ms1', cluster: await field('edit/servers/ms1', 'cluster') });
});

test('set: typed values in an edit session that is activated; a refused value exits 5 and changes nothing', async () => {
  const r = ok(await cli(['set', 'edit/servers/ms2', 'listenPort=7802', 'notes=set from the CLI', 'cluster=clusters/cluster1']), 'set');
  assert.match(r.out, /activated/);
  assert.equal(await field('serverConfig/servers/ms2', 'listenPort'), 7802, 'the change was not activated');
  assert.equal(await field('serverConfig/servers/ms2', 'notes'), 'set from the CLI');
  assert.deepEqual(await field('serverConfig/servers/ms2', 'cluster'), ['clusters', 'cluster1']);

  const refused = await cli(['set', 'edit/servers/ms2', 'notes=half', 'listenPort=99999999']);
  assert.equal(refused.code, 5, refused.err);
  assert.match(refused.err, /listenPort/);
  assert.equal(await field('edit/servers/ms2', 'notes'), 'set from the CLI', 'half of a refused change stayed');
  assert.equal((await srv.admin.get('edit/changeManager?links=none')).json.locked, false, 'the edit lock was left held');
});

test('usage mistakes exit 2 before anything is sent: unknown property, wrong type, path outside edit, missing argument', async () => {
  for (const args of [
    ['set', 'edit/servers/ms2', 'listenPortt=1'],
    ['set', 'edit/servers/ms2', 'listenPort=abc'],
    ['set', 'serverConfig/servers/ms2', 'notes=x'],
    ['set', 'edit/servers/ms2', 'justtext'],
    ['set', 'edit/servers/ms2'],
    ['get'],
    ['start', 'ms1', '--timeout', 'soon'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.out}${r.err}`);
    assert.notEqual(r.err, '', `${args.join(' ')}: no message`);
  }
  assert.equal(await field('edit/servers/ms2', 'notes'), 'set from the CLI');
});

test('exit codes: not found 4, wrong password 3, no server 6, edit lock held by another user 5', async () => {
  const missing = await cli(['get', 'edit/servers/nosuch']);
  assert.equal(missing.code, 4, missing.err);
  assert.match(missing.err, /nosuch/);
  const denied = await cli(['get', 'edit'], { APPSERVER_PASSWORD: 'wrong' });
  assert.equal(denied.code, 3, denied.err);
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((done) => closed.close(() => done()));
  const down = await cli(['get', 'edit', '--url', `http://127.0.0.1:${port}`]);
  assert.equal(down.code, 6, down.err);
  assert.match(down.err, /cannot reach/);

  const other = srv.admin.as(await createUser(srv.admin, 'lockholder', 'lockholder-pw1', 'Administrators'));
  assert.equal((await other.post('edit/changeManager/startEdit', {})).status, 200);
  try {
    const locked = await cli(['set', 'edit/servers/ms2', 'notes=blocked']);
    assert.equal(locked.code, 5, locked.err);
    assert.match(locked.err, /lockholder/);
  } finally {
    await other.post('edit/changeManager/cancelEdit', {});
  }
});

test('create and delete wrap edit sessions; describe reads the type of a path', async () => {
  const made = ok(await cli(['create', 'edit/clusters', 'cliCluster', 'notes=made by the CLI']), 'create');
  assert.match(made.out, /Created edit\/clusters\/cliCluster; activated/);
  assert.equal(await field('serverConfig/clusters/cliCluster', 'notes'), 'made by the CLI');
  const twice = await cli(['create', 'edit/clusters', 'cliCluster']);
  assert.equal(twice.code, 5, twice.err);

  const described = ok(await cli(['describe', 'edit/clusters/cliCluster']), 'describe');
  assert.match(described.out, /^Cluster \(appserver\.management\.configuration\.ClusterMBean\), config in edit\n/);
  assert.match(described.out, /\nclusterMessagingMode\s+string\s+"unicast"\s+writable,restart\s+multicast, unicast\n/);
  const json = JSON.parse(ok(await cli(['describe', 'domainRuntime/serverLifeCycleRuntimes/ms1', '--json']), 'describe --json').out);
  assert.equal(json.source, 'server', 'the server has a description: it comes first');
  assert.equal(json.typeName, 'appserver.management.runtime.ServerLifeCycleRuntimeMBean');
  const start = json.actions.find((a: { name: string }) => a.name === 'start');
  assert.deepEqual(start.access.invoke, ['Admin', 'Operator']);
  assert.equal(start.returnsTask, true);

  // A collection of several types: --type picks one, and its own properties are taken (and typed).
  const providers = 'edit/securityConfiguration/realms/myrealm/authenticationProviders';
  ok(await cli(['create', providers, 'cliLdap', '--type', 'appserver.security.providers.authentication.LDAPAuthenticator', 'controlFlag=OPTIONAL', 'host=ldap.example', 'port=1389']), 'create a provider');
  const ldap = (await srv.admin.get(`${providers.replace(/^edit/, 'serverConfig')}/cliLdap?links=none&fields=host,port,controlFlag`)).json;
  assert.deepEqual(ldap, { host: 'ldap.example', port: 1389, controlFlag: 'OPTIONAL' });
  const notLdap = await cli(['create', providers, 'cliOther', 'host=ldap.example']);
  assert.equal(notLdap.code, 2, `a property of another type was taken: ${notLdap.err}`);

  ok(await cli(['delete', 'edit/clusters/cliCluster']), 'delete');
  assert.equal((await srv.admin.get('serverConfig/clusters/cliCluster')).status, 404);
});

test('describe from the catalog of the client when the server has no description of its own', async () => {
  // A server of an older build: it ignores ?describe and answers with the bean.
  let asked = '';
  const older = createServer((req, res) => {
    asked = req.url ?? '';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name: 'c1', type: 'Cluster', links: [] }));
  });
  await new Promise<void>((done) => older.listen(0, '127.0.0.1', done));
  try {
    const url = `http://127.0.0.1:${(older.address() as AddressInfo).port}`;
    const r = ok(await cli(['describe', 'edit/clusters/c1', '--url', url]), 'describe from the catalog');
    assert.match(asked, /^\/management\/appserver\/latest\/edit\/clusters\/c1\?/);
    assert.match(r.out, /^Cluster \(appserver\.management\.configuration\.ClusterMBean\), config\n/);
    assert.match(r.out, /described from the catalog this client was built with/);
    assert.match(r.out, /\nclusterMessagingMode\s+String\s+"unicast"\s+writable,restart\s+multicast, unicast\n/);
    const json = JSON.parse(ok(await cli(['describe', 'edit/clusters/c1', '--url', url, '--json']), 'describe --json from the catalog').out);
    assert.equal(json.source, 'catalog');
    assert.equal(json.type, 'appserver.management.configuration.ClusterMBean');
  } finally {
    await new Promise<void>((done) => older.close(() => done()));
  }
});

test('text from the server cannot drive the terminal: control characters are shown escaped', async () => {
  const hostile = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.includes('nosuch')) {
      res.statusCode = 404;
      res.end(JSON.stringify({ status: 404, title: 'FAILURE', detail: 'gone\u001b]0;pwned\u0007' }));
      return;
    }
    res.end(JSON.stringify({ name: 'x\u001b[2J\u001b[31mred', notes: 'a\u009bb', links: [] }));
  });
  await new Promise<void>((done) => hostile.listen(0, '127.0.0.1', done));
  try {
    const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    const table = ok(await cli(['get', 'edit/servers/x', '--url', url]), 'get from a hostile server');
    assert.doesNotMatch(table.out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(table.out));
    assert.match(table.out, /x\\u001b\[2J\\u001b\[31mred/);
    assert.match(table.out, /a\\u009bb/);
    const err = await cli(['get', 'edit/servers/nosuch', '--url', url]);
    assert.equal(err.code, 4);
    assert.doesNotMatch(err.err, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(err.err));
    // For scripts, JSON escapes them itself.
    assert.equal(JSON.parse(ok(await cli(['get', 'edit/servers/x', '--url', url, '--json']), 'json').out).name, 'x\u001b[2J\u001b[31mred');
  } finally {
    await new Promise<void>((done) => hostile.close(() => done()));
  }
});

test('start and stop follow the task until it ends, without a progress bar when not on a terminal; --timeout bounds the wait (exit 7)', async () => {
  const tasks = 'domainRuntime/serverLifeCycleRuntimes/ms1/tasks?links=none&fields=name,completed';
  const running = async () => ((await srv.admin.get(tasks)).json.items as { completed: boolean }[]).filter((t) => !t.completed).length;

  const start = runCli(['start', 'ms1'], env());
  await pollUntil(running, (n) => n > 0, 'a running start task', 20_000);
  srv.advance(60_000);
  assert.equal(await start.exited, 0, start.stderr());
  assert.match(start.stdout(), /Starting ms1 server: completed \(TASK COMPLETED\)/);
  assert.equal(start.stderr(), '', 'a progress bar was drawn on a pipe');
  assert.equal(await field('domainRuntime/serverLifeCycleRuntimes/ms1', 'state'), 'RUNNING');

  const again = await cli(['start', 'ms1']);
  assert.equal(again.code, 5, 'starting a running server is a failed task');
  assert.match(again.err, /RUNNING/);

  const slow = await cli(['stop', 'ms1', '--timeout', '0.5']);
  assert.equal(slow.code, 7, slow.err);
  assert.match(slow.err, /did not finish within/);
  srv.advance(60_000);
  await pollUntil(() => field('domainRuntime/serverLifeCycleRuntimes/ms1', 'state'), (s) => s === 'SHUTDOWN', 'ms1 shut down');

  const json = await cli(['start', 'ms1', '--no-wait', '--json']);
  assert.equal(json.code, 0, json.err);
  assert.equal(JSON.parse(json.out).operation, 'start');
  srv.advance(60_000);
});

test('deploy uploads an archive and follows its progress object', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'appserver-cli-app-'));
  try {
    const archive = join(dir, 'cliapp.war');
    writeFileSync(archive, 'PK\u0003\u0004 an archive deployed by the CLI test');
    const run = runCli(['deploy', archive, '--targets', 'AdminServer'], env());
    await pollUntil(async () => (await srv.admin.get('domainRuntime/deploymentManager/deploymentProgressObjects/cliapp?links=none')).status, (s) => s === 200, 'the progress object', 20_000);
    srv.advance(60_000);
    assert.equal(await run.exited, 0, run.stderr());
    assert.match(run.stdout(), /completed \(STATE_COMPLETED\)/);
    const names = (await srv.admin.get('domainRuntime/deploymentManager/appDeploymentRuntimes?links=none&fields=name')).json.items.map((a: { name: string }) => a.name);
    assert.ok(names.includes('cliapp'), names.join(','));
    const unknown = await cli(['deploy', archive, '--name', 'other', '--targets', 'nowhere']);
    assert.equal(unknown.code, 4, unknown.err);
    const neither = await cli(['deploy', '--targets', 'AdminServer']);
    assert.equal(neither.code, 2, neither.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deploy --library deploys a shared library and follows its progress object', async () => {
  const run = runCli(['deploy', '--library', '--source-path', '/srv/libs/cli-lib.jar', '--name', 'cli-lib#1.0', '--targets', 'AdminServer'], env());
  await pollUntil(async () => (await srv.admin.get(`domainRuntime/deploymentManager/deploymentProgressObjects/${encodeURIComponent('cli-lib#1.0')}?links=none`)).status, (s) => s === 200, 'the progress object', 20_000);
  srv.advance(60_000);
  assert.equal(await run.exited, 0, run.stderr());
  assert.match(run.stdout(), /completed \(STATE_COMPLETED\)/);
  const libs = (await srv.admin.get('domainRuntime/deploymentManager/libDeploymentRuntimes?links=none&fields=name,specificationVersion')).json.items;
  assert.deepEqual(libs, [{ name: 'cli-lib#1.0', specificationVersion: '1.0' }]);
  const apps = (await srv.admin.get('edit/appDeployments?links=none&fields=name')).json.items.map((a: { name: string }) => a.name);
  assert.ok(!apps.includes('cli-lib#1.0'), 'the library was deployed as an application');
});

test('invoke prints a return value; search prints a row per bean found', async () => {
  const url = ok(await cli(['invoke', 'domainRuntime/serverLifeCycleRuntimes/ms1', 'getIPv4URL', 'protocol=http']), 'invoke');
  assert.match(url.out, /^http:\/\/\S+:\d+\n$/);
  const rows = ok(await cli(['search', 'edit', '--fields', 'name', '--child', 'servers:name,listenPort']), 'search');
  assert.match(rows.out, /^PATH\s+NAME\s+LISTENPORT\n/);
  assert.match(rows.out, /\nservers\/ms2\s+ms2\s+7802\n/);
  const json = JSON.parse(ok(await cli(['search', 'edit', '--query', '{"links":[],"fields":["name"],"children":{"servers":{"fields":["name"],"links":[]}}}', '--json']), 'search --json').out);
  assert.deepEqual(json.servers.items.map((s: { name: string }) => s.name).sort(), ['AdminServer', 'ms1', 'ms2']);
  const bad = await cli(['search', 'edit', '--query', '{not json']);
  assert.equal(bad.code, 2, bad.err);
});

test('credentials from a configuration file: used at mode 0600, refused (exit 2) when others may read it; flags win', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'appserver-cli-config-'));
  try {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ url: srv.origin, user: 'admin', password: 'welcome1' }));
    chmodSync(file, 0o600);
    const noEnv = { APPSERVER_URL: undefined, APPSERVER_USER: undefined, APPSERVER_PASSWORD: undefined };
    ok(await cli(['get', 'edit/servers/ms1', '--fields', 'name', '--config', file], noEnv), 'config file at 0600');
    // The default place: $XDG_CONFIG_HOME/appserver-admin/config.json.
    const xdg = join(dir, 'xdg');
    const dflt = join(xdg, 'appserver-admin', 'config.json');
    mkdirSync(join(xdg, 'appserver-admin'), { recursive: true });
    writeFileSync(dflt, JSON.stringify({ url: srv.origin, user: 'admin', password: 'welcome1' }), { mode: 0o600 });
    ok(await cli(['get', 'edit/servers/ms1', '--fields', 'name'], { ...noEnv, XDG_CONFIG_HOME: xdg }), 'default config file');

    chmodSync(file, 0o644);
    const open = await cli(['get', 'edit', '--config', file], noEnv);
    assert.equal(open.code, 2, open.err);
    assert.match(open.err, /chmod 600/);
    const wrongFlag = await cli(['get', 'edit', '--config', dflt, '--password', 'wrong'], { ...noEnv, XDG_CONFIG_HOME: xdg });
    assert.equal(wrongFlag.code, 3, 'the --password flag did not win over the file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('completion: the bash script calls back the CLI, which completes tree roots, children, items and server names', async () => {
  const script = ok(await cli(['completion', 'bash']), 'completion bash').out;
  assert.match(script, /complete -F _appserver_admin_complete appserver-admin/);
  assert.match(script, /__complete/);
  assert.equal((await cli(['completion', 'fish'])).code, 2);

  assert.deepEqual(ok(await cli(['__complete', 'get', 'ed']), 'roots').out.split('\n').filter(Boolean), ['edit/']);
  const children = ok(await cli(['__complete', 'get', 'edit/se']), 'children').out.split('\n').filter(Boolean);
  assert.ok(children.includes('edit/servers/'), children.join(' '));
  assert.ok(children.every((c) => c.startsWith('edit/se')), children.join(' '));
  assert.deepEqual(ok(await cli(['__complete', 'get', 'edit/servers/m']), 'items').out.split('\n').filter(Boolean), ['edit/servers/ms1/', 'edit/servers/ms2/']);
  assert.deepEqual(ok(await cli(['__complete', 'start', 'ms']), 'servers').out.split('\n').filter(Boolean), ['ms1', 'ms2']);
  const actions = ok(await cli(['__complete', 'action', 'get', 'domainRuntime/serverLifeCycleRuntimes/ms1']), 'actions').out.split('\n').filter(Boolean);
  assert.deepEqual(actions, ['getIPv4URL', 'getIPv6URL']);

  // The script itself, in bash, calling back the built CLI through a launcher named like the command.
  const dir = mkdtempSync(join(tmpdir(), 'appserver-cli-bash-'));
  try {
    const launcher = join(dir, 'appserver-admin');
    writeFileSync(launcher, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
    const complete = (...words: string[]) =>
      new Promise<string[]>((done, fail) => {
        const line = `eval "$(${launcher} completion bash)"; COMP_WORDS=(${[launcher, ...words].map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _appserver_admin_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
        execFile('bash', ['-c', line], { env: cliEnv(env()) as NodeJS.ProcessEnv, timeout: 60_000 }, (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : done(stdout.split('\n').filter(Boolean))));
      });
    assert.deepEqual(await complete('st'), ['start', 'stop']);
    assert.deepEqual(await complete('get', 'edit/servers/'), ['edit/servers/AdminServer/', 'edit/servers/ms1/', 'edit/servers/ms2/']);
    assert.deepEqual(await complete('invoke', 'domainRuntime/serverLifeCycleRuntimes/ms1', 'getIPv'), ['getIPv4URL', 'getIPv6URL']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // No server: completion offers nothing and says nothing.
  const quiet = await cli(['__complete', 'get', 'edit/se'], { APPSERVER_URL: 'http://127.0.0.1:1' });
  assert.equal(quiet.out + quiet.err, '');
});
