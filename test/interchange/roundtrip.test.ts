// Export then import gives back the same configuration, compared as bean trees, in both formats,
// on a domain with something of everything and on the demo domain; a second round gives the same
// text. Secrets travel sealed (and open again with the domain's key), as placeholders, or as they
// came when another key sealed them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { Secrets, isSealed } from '../../src/config/secrets.js';
import { demoDomain } from '../../src/domain/demo.js';
import { type ExportResult, type ImportInput, type InterchangeFormat, exportDomain, importDomain } from '../../src/interchange/index.js';
import type { BeanTree } from '../../src/tree/records.js';
import { RICH_USERS, richDomain } from './rich-domain.js';

const catalog = loadCatalog();

/** A tree as comparable data: every bean with its type and values, sealed values opened. */
function snapshot(tree: BeanTree, secrets: Secrets): unknown {
  const open = (v: unknown): unknown => (isSealed(v) ? { clear: secrets.open(v) } : v);
  const byKey = (a: [string, ...unknown[]], b: [string, ...unknown[]]) => (a[0] < b[0] ? -1 : 1);
  return [...tree.entries()]
    .map(([key, r]): [string, string, unknown] => [key, r.type, Object.fromEntries(Object.entries(r.values).map(([k, v]): [string, unknown] => [k, open(v)]).sort(byKey))])
    .sort(byKey);
}

function inputOf(format: InterchangeFormat, out: ExportResult): ImportInput {
  const files = new Map(out.files.map((f) => [f.path, f.text]));
  return format === 'xml'
    ? { format, file: 'config/config.xml', text: files.get('config.xml')!, readDescriptor: (p) => files.get(p) }
    : { format, file: 'model.yaml', text: out.files[0]!.text };
}

for (const format of ['xml', 'model'] as const) {
  test(`${format}: a domain with clusters, a dynamic cluster, machines, data sources, JMS, applications, partitions and users comes back the same`, () => {
    const secrets = new Secrets(randomBytes(32));
    const tree = richDomain(catalog, secrets);
    const out = exportDomain(catalog, tree, RICH_USERS, { format });
    assert.deepEqual(out.findings.filter((f) => f.severity === 'warning' && !/users and .* groups are not exported/.test(f.message)), []);
    // Nothing in clear: the passwords are sealed text.
    const all = out.files.map((f) => f.text).join('\n');
    assert.doesNotMatch(all, /OrdersDS-pw|nm-secret/);
    assert.match(all, /\{APPSERVER-AES256-GCM\}/);
    const back = importDomain(catalog, inputOf(format, out), { secrets });
    // The only notes: the passwords the export marked to be supplied, each at its line.
    assert.deepEqual(
      back.findings.map((f) => [f.severity, f.path, typeof f.line]),
      format === 'xml'
        ? []
        : [
            ['info', 'domainInfo.AdminPassword', 'number'],
            ['info', 'topology.Security.User.deployer1.Password', 'number'],
            ['info', 'topology.Security.User.watcher.Password', 'number'],
          ],
    );
    assert.deepEqual(snapshot(back.config, secrets), snapshot(tree, secrets));
    if (format === 'model') {
      assert.equal(back.users.adminUser, 'admin');
      assert.deepEqual(back.users.users.map(({ name, description, groups }) => ({ name, description, groups })), RICH_USERS.users);
      assert.deepEqual(back.users.groups, RICH_USERS.groups);
      assert.ok(back.users.users.every((u) => u.password === undefined), 'no password travels');
    } else {
      assert.ok(out.findings.some((f) => /3 users and 3 groups are not exported/.test(f.message)), 'config.xml says it leaves the users out');
    }
    // A second round writes the same text.
    const again = exportDomain(catalog, back.config, format === 'model' ? RICH_USERS : undefined, { format });
    assert.deepEqual(again.files.map((f) => [f.path, f.text.replace(/\{APPSERVER-AES256-GCM\}[^<\s"]+/g, 'SEALED')]), out.files.map((f) => [f.path, f.text.replace(/\{APPSERVER-AES256-GCM\}[^<\s"]+/g, 'SEALED')]));
  });

  test(`${format}: the demo domain exported and imported again is the same tree`, () => {
    const secrets = new Secrets(randomBytes(32));
    const tree = demoDomain(catalog, { domainName: 'demo_domain', adminServerName: 'AdminServer', listenAddress: '127.0.0.1', listenPort: 7001 });
    const out = exportDomain(catalog, tree, undefined, { format });
    assert.deepEqual(out.findings, []);
    const back = importDomain(catalog, inputOf(format, out), { secrets });
    assert.deepEqual(back.findings, []);
    assert.deepEqual(snapshot(back.config, secrets), snapshot(tree, secrets));
  });

  test(`${format}: secrets sealed with another domain's key are kept sealed, or replaced by the placeholder, and reported`, () => {
    const mine = new Secrets(randomBytes(32));
    const other = new Secrets(randomBytes(32));
    const tree = richDomain(catalog, mine);
    const out = exportDomain(catalog, tree, undefined, { format });
    const kept = importDomain(catalog, inputOf(format, out), { secrets: other });
    const password = (t: BeanTree) => t.bean('JDBCSystemResources/OrdersDS/JDBCResource/JDBCDriverParams')!.values.password;
    const opaque = password(kept.config) as { $opaque: string };
    assert.match(opaque.$opaque, /^\{APPSERVER-AES256-GCM\}/);
    assert.ok(kept.findings.some((f) => f.severity === 'info' && /sealed with a key this server does not have/.test(f.message) && /JDBCDriverParams|jdbc-driver-params/.test(f.path)));
    // Exported again, the foreign value is written exactly as it came.
    const twice = exportDomain(catalog, kept.config, undefined, { format });
    assert.ok(twice.files.some((f) => f.text.includes(opaque.$opaque)));
    const replaced = importDomain(catalog, inputOf(format, out), { secrets: other, foreignSecrets: 'placeholder', secretPlaceholder: 'set-me' });
    assert.equal(other.open(password(replaced.config) as { $sealed: string }), 'set-me');
    assert.ok(replaced.findings.some((f) => /replaced by the placeholder 'set-me'/.test(f.message)));
  });

  test(`${format}: with --secrets placeholder an export holds no sealed value, and the import leaves those passwords to be supplied`, () => {
    const secrets = new Secrets(randomBytes(32));
    const out = exportDomain(catalog, richDomain(catalog, secrets), undefined, { format, secrets: 'placeholder' });
    const all = out.files.map((f) => f.text).join('\n');
    assert.doesNotMatch(all, /APPSERVER-AES256-GCM/);
    assert.match(all, /@@SECRET:JDBCSystemResources\/OrdersDS\/JDBCResource\/JDBCDriverParams:password@@/);
    const back = importDomain(catalog, inputOf(format, out), { secrets });
    assert.equal(back.config.bean('JDBCSystemResources/OrdersDS/JDBCResource/JDBCDriverParams')!.values.password, undefined);
    assert.ok(back.findings.some((f) => /is a placeholder .* left unset/.test(f.message)));
  });
}

test('references inside a partition resolve to the bean of the same scope', () => {
  const secrets = new Secrets(randomBytes(32));
  const tree = richDomain(catalog, secrets);
  // A data source of tenant2 is referred to by name from tenant2's partition: the nearer one wins.
  tree.bean('partitions/tenant2')!.values.dataSourceForJobScheduler = ['partitions', 'tenant2', 'resourceGroups', 'rg', 'JDBCSystemResources', 'LocalDS'];
  for (const format of ['xml', 'model'] as const) {
    const out = exportDomain(catalog, tree, undefined, { format });
    assert.deepEqual(out.findings, []);
    const back = importDomain(catalog, inputOf(format, out), { secrets });
    assert.deepEqual(back.config.bean('partitions/tenant2')!.values.dataSourceForJobScheduler, ['partitions', 'tenant2', 'resourceGroups', 'rg', 'JDBCSystemResources', 'LocalDS']);
  }
});

test('a reference whose name would read back as another bean is reported at export', () => {
  const secrets = new Secrets(randomBytes(32));
  const tree = richDomain(catalog, secrets);
  // From the domain, 'LocalDS' names two data sources equally far away.
  tree.bean('partitions/tenant1')!.values.dataSourceForJobScheduler = ['partitions', 'tenant2', 'resourceGroups', 'rg', 'JDBCSystemResources', 'LocalDS'];
  const out = exportDomain(catalog, tree, undefined, { format: 'xml' });
  const finding = out.findings.find((f) => /dataSourceForJobScheduler/.test(f.message));
  assert.ok(finding, 'the ambiguous reference is reported');
  assert.equal(finding.path, '/domain/partition[tenant1]/data-source-for-job-scheduler');
  assert.match(finding.message, /reads back as \["partitions","tenant1"/);
});
