// The command line end to end: `init --from` a model and a config.xml, `export` to standard output
// and to files (descriptors beside config.xml), a data directory that holds a domain refused, and a
// server started on an imported data directory serving the imported beans and users over HTTP.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startServer } from '../../src/cli/server.js';
import { cliOutcome, killRunning, ROOT } from '../support/cli.js';
import { basic, call } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'appserver-interchange-'));
after(async () => {
  await killRunning();
  rmSync(dir, { recursive: true, force: true });
});

const cli = cliOutcome;

const MODEL = `domainInfo:
  AdminUserName: boss
  AdminPassword: Boss-Pass-1
topology:
  Name: cli_domain
  AdminServerName: AdminServer
  Cluster:
    cluster1: {ClusterMessagingMode: unicast}
  Server:
    AdminServer: {ListenPort: 7001}
    ms1: {ListenPort: 7003, Cluster: cluster1}
  Security:
    Group:
      Auditors: {Description: People who look, GroupMemberOf: Monitors}
    User:
      carol: {Password: Carol-Pass-1, Description: An auditor, GroupMemberOf: [Auditors]}
resources:
  JDBCSystemResource:
    ds1:
      Target: cluster1
      JdbcResource:
        JDBCDriverParams: {URL: 'jdbc:postgresql://db/x', PasswordEncrypted: s3cret-in-clear}
`;

test('init --from a model, export it both ways, and serve it', { timeout: 120_000 }, async () => {
  const model = join(dir, 'domain.yaml');
  await import('node:fs').then((fs) => fs.writeFileSync(model, MODEL));
  const data = join(dir, 'from-model');
  const init = await cli(['init', '--from', model, '--data-dir', data]);
  assert.equal(init.code, 0, init.err);
  assert.match(init.out, /Created .*from-model from .*domain.yaml: 2 servers; 0 warnings, 1 note\./);
  assert.match(init.err, /info: .*domain.yaml:22: resources.JDBCSystemResource.ds1.JdbcResource.JDBCDriverParams.PasswordEncrypted: 'password' was given in clear: it is sealed/);

  // A second init on the same data directory is refused and changes nothing.
  const again = await cli(['init', '--from', model, '--data-dir', data]);
  assert.notEqual(again.code, 0);
  assert.match(again.err, /already holds a domain/);

  // Export to standard output (model) and to files (xml, descriptors beside config.xml).
  const out = await cli(['export', '--format', 'model', '--data-dir', data]);
  assert.equal(out.code, 0, out.err);
  assert.match(out.out, /ms1:\n\s+Cluster: cluster1\n\s+ListenPort: 7003/);
  assert.match(out.out, /carol:\n\s+Description: An auditor\n\s+GroupMemberOf:\n\s+- Auditors\n\s+Password: "@@SECRET:carol:password@@"/);
  assert.doesNotMatch(out.out, /s3cret-in-clear|Carol-Pass-1|Boss-Pass-1/);
  const xmlFile = join(dir, 'xml-export', 'config.xml');
  const xml = await cli(['export', '--format', 'xml', '--data-dir', data, '--out', xmlFile]);
  assert.equal(xml.code, 0, xml.err);
  assert.match(readFileSync(xmlFile, 'utf8'), /<jdbc-system-resource>\n\s+<name>ds1<\/name>\n\s+<target>cluster1<\/target>\n\s+<descriptor-file-name>jdbc\/ds1-jdbc.xml<\/descriptor-file-name>/);
  assert.match(readFileSync(join(dir, 'xml-export', 'jdbc', 'ds1-jdbc.xml'), 'utf8'), /<password-encrypted>\{APPSERVER-AES256-GCM\}/);
  assert.match(xml.err, /2 users and 6 groups are not exported/);

  // A server on the imported data directory serves the beans, and the imported users log in.
  const server = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir: data, quiet: true, logLevel: 'silent' });
  try {
    const origin = `http://127.0.0.1:${server.port}/management/appserver/latest`;
    const ms1 = await call(`${origin}/edit/servers/ms1`, { auth: basic('boss', 'Boss-Pass-1') });
    assert.equal(ms1.status, 200, ms1.text);
    assert.equal(ms1.json.listenPort, 7003);
    assert.deepEqual(ms1.json.cluster, ['clusters', 'cluster1']);
    const ds = await call(`${origin}/domainConfig/JDBCSystemResources/ds1/JDBCResource/JDBCDriverParams`, { auth: basic('carol', 'Carol-Pass-1') });
    assert.equal(ds.status, 200, ds.text);
    assert.equal(ds.json.url, 'jdbc:postgresql://db/x');
    assert.equal(ds.json.password, null);
  } finally {
    await server.close();
  }
});

test('init --from config.xml reads its descriptors; export --out writes them back the same', { timeout: 120_000 }, async () => {
  const fixture = join(ROOT, 'test/interchange/fixtures/realistic/config/config.xml');
  const data = join(dir, 'from-xml');
  const init = await cli(['init', '--from', fixture, '--data-dir', data], { APPSERVER_ADMIN_PASSWORD: 'welcome1' });
  assert.equal(init.code, 0, init.err);
  assert.match(init.out, /: 3 servers; 0 warnings, 3 notes\./);
  const first = join(dir, 'round1', 'config.xml');
  const second = join(dir, 'round2', 'config.xml');
  assert.equal((await cli(['export', '--format', 'xml', '--data-dir', data, '--out', first])).code, 0);
  const data2 = join(dir, 'from-export');
  const reinit = await cli(['init', '--from', first, '--data-dir', data2], { APPSERVER_ADMIN_PASSWORD: 'welcome1' });
  assert.equal(reinit.code, 0, reinit.err);
  assert.equal((await cli(['export', '--format', 'xml', '--data-dir', data2, '--out', second])).code, 0);
  for (const f of ['config.xml', 'jdbc/OrdersDS-jdbc.xml', 'jms/OrdersModule-jms.xml']) {
    assert.equal(readFileSync(join(dir, 'round2', f), 'utf8'), readFileSync(join(dir, 'round1', f), 'utf8'), f);
  }
  // The foreign {AES256} values went through unchanged.
  assert.match(readFileSync(join(dir, 'round2', 'jdbc/OrdersDS-jdbc.xml'), 'utf8'), /\{AES256\}Bqx\+yQJFO9RVu2bFmUUt\+g1m8TkJK8rmVH\+127tidEc=/);
});

test('a refused import leaves no data directory behind', { timeout: 60_000 }, async () => {
  const bad = join(dir, 'bad.yaml');
  await import('node:fs').then((fs) => fs.writeFileSync(bad, 'topology:\n  Server:\n    "a/b": {}\n'));
  const data = join(dir, 'never');
  const run = await cli(['init', '--from', bad, '--data-dir', data]);
  assert.notEqual(run.code, 0);
  assert.match(run.err, /bad.yaml:3 \(topology.Server.a\/b\): the name of a Server contains the character "\/"/);
  assert.equal(existsSync(data), false);
  const mixed = await cli(['init', '--from', bad, '--data-dir', data, '--servers', '3']);
  assert.match(mixed.err, /--servers cannot be given with it/);
});
