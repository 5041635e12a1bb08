// Imports of files written by hand: a realistic config.xml in the product's layout imports with no
// warning; what is not understood becomes a finding naming file, path and line; hostile input is
// refused with a clear error and builds nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { Secrets } from '../../src/config/secrets.js';
import { importInput } from '../../src/cli/interchange.js';
import { isProblem } from '../../src/core/problems.js';
import { type ImportInput, importDomain } from '../../src/interchange/index.js';
import { ROOT } from '../support/cli.js';

const catalog = loadCatalog();
const secrets = new Secrets(randomBytes(32));
const FIXTURE = join(ROOT, 'test/interchange/fixtures/realistic/config/config.xml');

const xml = (text: string | Buffer, descriptors: Record<string, string> = {}): ImportInput => ({
  format: 'xml',
  file: 'config/config.xml',
  text,
  readDescriptor: (p) => descriptors[p],
});
const model = (text: string | Buffer): ImportInput => ({ format: 'model', file: 'model.yaml', text });
const domainXml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<domain xmlns="urn:d" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n  <name>d</name>\n${body}\n</domain>\n`;

/** Runs an import that must be refused; returns the refusal's message. */
function refused(input: ImportInput): string {
  try {
    importDomain(catalog, input, { secrets });
  } catch (err) {
    assert.ok(isProblem(err, 'invalid'), `a Problem, not ${String(err)}`);
    return err.message;
  }
  assert.fail('the import was not refused');
}

test('a realistic config.xml with its JDBC and JMS descriptors imports without a warning', () => {
  const { config, findings } = importDomain(catalog, importInput(FIXTURE), { secrets });
  assert.deepEqual(findings.filter((f) => f.severity === 'warning'), []);
  // The three {AES256} values stay sealed as they came, each noted where it is.
  assert.deepEqual(
    findings.map((f) => [f.file.replace(/.*fixtures\/realistic\//, ''), f.line, f.path]),
    [
      ['config/config.xml', 31, '/domain/security-configuration[orders_domain]/credential-encrypted'],
      ['config/config.xml', 33, '/domain/security-configuration[orders_domain]/node-manager-password-encrypted'],
      ['config/jdbc/OrdersDS-4711-jdbc.xml', 14, '/jdbc-data-source/jdbc-driver-params/password-encrypted'],
    ],
  );
  const v = (key: string) => config.bean(key)?.values;
  assert.deepEqual(v('servers/ms1'), { name: 'ms1', listenAddress: 'ms1.example.test', listenPort: 7003, cluster: ['clusters', 'cluster1'], machine: ['machines', 'machine1'] });
  assert.equal(v('servers/AdminServer')!.listenAddress, '');
  assert.equal(config.bean('machines/machine1')!.type, 'appserver.management.configuration.UnixMachineMBean');
  assert.equal(config.bean('machines/machine2')!.type, 'appserver.management.configuration.MachineMBean');
  assert.deepEqual(v('clusters/dyn-cluster/dynamicServers')!.serverTemplate, ['serverTemplates', 'dyn-template']);
  assert.deepEqual(v('appDeployments/status')!.targets, [['servers', 'AdminServer'], ['clusters', 'cluster1']]);
  assert.deepEqual(v('JMSSystemResources/OrdersModule/subDeployments/orders-sub')!.targets, [['JMSServers', 'JMSServer1']]);
  assert.equal(v('JMSSystemResources/OrdersModule/JMSResource/queues/OrderQueue')!.JNDIName, 'jms/OrderQueue');
  assert.deepEqual(v('JDBCSystemResources/OrdersDS/JDBCResource/JDBCDataSourceParams')!.JNDINames, ['jdbc/orders', 'jdbc/orders-legacy']);
  assert.equal(v('JDBCSystemResources/OrdersDS/JDBCResource/JDBCDriverParams/properties/properties/user')!.value, 'orders');
  assert.match((v('JDBCSystemResources/OrdersDS/JDBCResource/JDBCDriverParams')!.password as { $opaque: string }).$opaque, /^\{AES256\}/);
  assert.equal(config.bean('securityConfiguration/realms/myrealm/adjudicator')!.type, 'appserver.security.providers.authorization.DefaultAdjudicatorMBean');
  assert.deepEqual(v('partitions/tenant1')!.availableTargets, [['virtualTargets', 'vt1']]);
  assert.deepEqual(v('partitions/tenant1')!.realm, ['securityConfiguration', 'realms', 'myrealm']);
  assert.equal(v('partitions/tenant1/resourceGroups/tenant1-rg/appDeployments/tenant1-app')!.sourcePath, 'applications/tenant1.war');
});

test('unknown elements, wrong values and references to missing beans are findings with file, path and line', () => {
  const text = domainXml(`  <server>
    <name>ms1</name>
    <listen-port>not-a-port</listen-port>
    <cluster>nowhere</cluster>
    <favourite-colour>blue</favourite-colour>
  </server>
  <machine xsi:type="mainframe-machineType"><name>m9</name></machine>
  <jdbc-system-resource><name>ds</name><descriptor-file-name>jdbc/missing-jdbc.xml</descriptor-file-name></jdbc-system-resource>`);
  const { config, findings } = importDomain(catalog, xml(text), { secrets });
  const seen = findings.map((f) => [f.severity, f.line, f.path, f.message]);
  const find = (re: RegExp) => seen.find((s) => re.test(String(s[3])));
  assert.deepEqual(find(/must be an integer/)?.slice(0, 3), ['warning', 6, '/domain/server[ms1]/listen-port']);
  assert.deepEqual(find(/refers to 'nowhere', which is not a Cluster/)?.slice(0, 3), ['warning', 7, '/domain/server[ms1]/cluster']);
  assert.deepEqual(find(/no element <favourite-colour>/)?.slice(0, 3), ['warning', 8, '/domain/server[ms1]/favourite-colour']);
  assert.deepEqual(find(/cannot be of the type mainframe-machineType/)?.slice(0, 3), ['warning', 10, '/domain/machine[m9]']);
  assert.deepEqual(find(/descriptor file config\/jdbc\/missing-jdbc.xml was not found/)?.slice(0, 3), ['warning', 11, '/domain/jdbc-system-resource[ds]/descriptor-file-name']);
  assert.equal(seen.length, 5);
  // What was understood is kept.
  assert.deepEqual(config.bean('servers/ms1')!.values, { name: 'ms1' });

  const yaml = ['topology:', '  Name: d', '  Server:', '    ms1:', '      ListenPort: 7003', '      Machine: m1', '      Colour: blue', 'extras:', '  x: 1', ''].join('\n');
  const m = importDomain(catalog, model(yaml), { secrets });
  assert.deepEqual(
    m.findings.map((f) => [f.line, f.path]).sort((a, b) => (a[0] as number) - (b[0] as number)),
    [
      [6, 'topology.Server.ms1.Machine'],
      [7, 'topology.Server.ms1.Colour'],
      [8, 'extras'],
    ].sort((a, b) => (a[0] as number) - (b[0] as number)),
  );
  assert.equal(m.config.bean('servers/ms1')!.values.listenPort, 7003);
});

test('hostile input is refused with a clear error', () => {
  assert.match(refused(xml('<?xml version="1.0"?>\n<!DOCTYPE domain [<!ENTITY a "aaaaaaaa">]>\n<domain>&a;</domain>')), /config\/config.xml:2: a document type declaration/);
  assert.match(refused(xml(domainXml('<notes>&custom;</notes>'))), /'&custom;' is not one of XML's predefined entities/);
  assert.match(refused(xml(`<domain>${'<server>'.repeat(100)}${'</server>'.repeat(100)}</domain>`)), /nested more than 64 levels/);
  assert.match(refused(xml(Buffer.concat([Buffer.from('<domain>\n<name>d'), Buffer.from([0xc3, 0x28]), Buffer.from('</name></domain>')]))), /not valid UTF-8: .*line 2/);
  assert.match(refused(xml(Buffer.alloc(33 * 1024 * 1024, 0x20))), /an import reads files of at most 33554432 bytes/);
  assert.match(refused(xml('<domain><name>d</name></domain><domain/>')), /exactly one root element|not well-formed/);
  assert.match(refused(xml('<domain><server></domain>')), /config\/config.xml:1: the file is not well-formed XML/);
  assert.match(refused(xml('<?xml version="1.0" encoding="ISO-8859-1"?><domain/>')), /declares the encoding ISO-8859-1/);
  assert.match(refused(xml(domainXml('<server><name>a/b</name></server>\n<cluster><name>..</name></cluster>'))), /server\[a\/b\].*contains the character "\/".*cluster\[\.\.\].*may not be '\.\.'/s);
  assert.match(refused(xml(domainXml('<jdbc-system-resource><name>ds</name><descriptor-file-name>../../etc/passwd</descriptor-file-name></jdbc-system-resource>'))), /not a path inside the folder of config.xml/);
  assert.match(refused(model('topology:\n  Name: &n d\n  AdminServerName: *n\n')), /model.yaml:3: aliases \(\*n\) are not accepted/);
  assert.match(refused(model(`topology:\n  Server:\n    ${'['.repeat(200)}${']'.repeat(200)}\n`)), /nested (more than 64 levels|too deeply)/);
  assert.match(refused(model('topology:\n  Server:\n    "bad,name": {}\n  Security:\n    User:\n      "a:b": {}\n')), /topology.Server.bad,name\).*contains the character ",".*topology.Security.User.a:b\).*contains the character ":"/s);
  assert.match(refused(model('topology: [1, 2\n')), /model.yaml:\d+: the file is not valid YAML/);
  assert.match(refused(model('- just\n- a list\n')), /a model is a map of sections/);
});
