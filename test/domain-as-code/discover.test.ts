// `appserver-admin discover` against a running server (the demo domain, plus a data source made over
// REST): the model holds the topology, the resources and the applications, leaves out values at
// their default, writes a secret as a token and never its value, and with --variables moves host
// names and ports into a properties file.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { killRunning, runCli } from '../support/cli.js';
import { type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';
import { inSession } from './support.js';

let srv: RuntimeServer;
let dir: string;

before(async () => {
  srv = await startRuntimeServer();
  dir = mkdtempSync(join(tmpdir(), 'appserver-dac-'));
  await inSession(srv.admin, async (c) => {
    await c.post('edit/JDBCSystemResources', { name: 'ordersDS', targets: [{ identity: ['clusters', 'cluster1'] }] });
    await c.post('edit/JDBCSystemResources/ordersDS/JDBCResource/JDBCDriverParams', { url: 'jdbc:postgresql://db.example:5432/orders', driverName: 'org.postgresql.Driver', password: 'never-shown' });
    await c.post('edit/JDBCSystemResources/ordersDS/JDBCResource/JDBCDataSourceParams', { JNDINames: ['jdbc/orders'] });
  });
});

after(async () => {
  await killRunning();
  await srv.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ APPSERVER_URL: srv.origin, APPSERVER_USER: 'admin', APPSERVER_PASSWORD: 'welcome1', APPSERVER_CONFIG: undefined, XDG_CONFIG_HOME: dir });

test('discover writes the domain as a model: topology, resources, applications; defaults left out; secrets as tokens', async () => {
  const out = join(dir, 'model.yaml');
  const run = runCli(['discover', '--out', out], env());
  assert.equal(await run.exited, 0, run.stderr());
  assert.match(run.stdout(), /Wrote .*model\.yaml: \d+ beans, \d+ secret tokens to supply/);
  const text = readFileSync(out, 'utf8');
  assert.ok(!text.includes('never-shown'), 'a secret value was written');
  const model = parse(text);
  assert.deepEqual(Object.keys(model), ['topology', 'resources', 'appDeployments']);
  assert.deepEqual(Object.keys(model.topology.Server).sort(), ['AdminServer', 'ms1', 'ms2']);
  assert.equal(model.topology.Server.ms1.Cluster, 'cluster1');
  assert.equal(model.topology.Server.ms1.ListenPort, 7003);
  assert.ok(model.topology.UnixMachine.machine1, 'the unix machine is in a folder of its own');
  assert.ok(!('MaxMessageSize' in model.topology.Server.ms1), 'a value at its default was written');
  const ds = model.resources.JDBCSystemResource.ordersDS;
  assert.equal(ds.Target, 'cluster1');
  assert.equal(ds.JDBCResource.JDBCDriverParams.Url, 'jdbc:postgresql://db.example:5432/orders');
  assert.equal(ds.JDBCResource.JDBCDriverParams.PasswordEncrypted, '@@SECRET:jdbcsystemresource-ordersds:password@@');
  assert.deepEqual(ds.JDBCResource.JDBCDataSourceParams.JNDIName, ['jdbc/orders']);
  assert.ok(model.resources.JMSServer.JMSServer1, 'the JMS server is missing');
  assert.ok(model.resources.FileStore.FileStore1, 'the file store is missing');
  assert.deepEqual(Object.keys(model.appDeployments.Application).sort(), ['benefits', 'demo-adapter', 'inventory']);
  assert.equal(typeof model.appDeployments.Application.benefits.SourcePath, 'string');
});

test('discover --variables: host names and ports become @@PROP tokens, their values go to the properties file', async () => {
  const out = join(dir, 'vars-model.yaml');
  const vars = join(dir, 'vars.properties');
  const run = runCli(['discover', '--out', out, '--variables', vars], env());
  assert.equal(await run.exited, 0, run.stderr());
  const model = parse(readFileSync(out, 'utf8'));
  assert.equal(model.topology.Server.ms1.ListenPort, '@@PROP:Server.ms1.ListenPort@@');
  assert.equal(model.topology.Server.ms1.ListenAddress, '@@PROP:Server.ms1.ListenAddress@@');
  const lines = readFileSync(vars, 'utf8').split('\n');
  assert.ok(lines.includes('Server.ms1.ListenPort=7003'), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('Server.ms1.ListenAddress=')));
});

test('discover names what went wrong: refused credentials, an unreachable server', async () => {
  const refused = runCli(['discover'], { ...env(), APPSERVER_PASSWORD: 'wrong' });
  assert.equal(await refused.exited, 3);
  assert.match(refused.stderr(), /401/);
  const away = runCli(['discover', '--url', 'http://127.0.0.1:1'], env());
  assert.equal(await away.exited, 6);
  assert.match(away.stderr(), /cannot reach http:\/\/127\.0\.0\.1:1/);
});
