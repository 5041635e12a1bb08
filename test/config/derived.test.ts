// Derived references and defaults over HTTP: a cluster's servers, the domain's targets,
// deployments and system resources, a provider's realm, a migratable target's host, a server's
// administration port and staging mode, log file names, a data source's descriptor, computed from
// the configuration in serverConfig, domainConfig and edit (where an edit session sees its own
// pending changes); values set on a bean keep theirs; all of it after a restart too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppserverClient } from 'appserver-admin/client';
import { typedClient } from '../support/client.js';
import { type Client, type RuntimeServer, names, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let admin: Client;
let typed: AppserverClient;

const SERVER = 'appserver.management.configuration.ServerMBean';
const DOMAIN = 'appserver.management.configuration.DomainMBean';

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  typed = typedClient(srv.origin);
});

after(async () => {
  await srv.stop(true);
});

async function get(path: string): Promise<any> {
  const r = await admin.get(path);
  assert.equal(r.status, 200, `GET ${path}: ${r.text}`);
  return r.json;
}

async function post(path: string, body: unknown = {}): Promise<void> {
  const r = await admin.post(path, body);
  assert.ok(r.status === 200 || r.status === 201, `POST ${path}: ${r.status} ${r.text}`);
}

const ids = (list: { identity: string[] }[]) => list.map((r) => r.identity);

test('Cluster.servers lists the servers that name the cluster, in every configuration tree', async () => {
  for (const tree of ['serverConfig', 'domainConfig', 'edit']) {
    const c = await get(`${tree}/clusters/cluster1?links=none&fields=servers,migratableTargets`);
    assert.deepEqual(ids(c.servers), [['servers', 'ms1'], ['servers', 'ms2']], tree);
    assert.deepEqual(c.migratableTargets, [], tree);
  }
});

test('an edit session sees its pending changes in derived references; the activated trees do not until it activates', async () => {
  await post('edit/changeManager/startEdit');
  await post('edit/servers/ms2', { cluster: null });
  await post('edit/servers', { name: 'ms3', cluster: ['clusters', 'cluster1'] });
  assert.deepEqual(ids((await get('edit/clusters/cluster1?links=none&fields=servers')).servers), [['servers', 'ms1'], ['servers', 'ms3']]);
  assert.deepEqual(ids((await get('serverConfig/clusters/cluster1?links=none&fields=servers')).servers), [['servers', 'ms1'], ['servers', 'ms2']]);
  await post('edit/changeManager/activate');
  assert.deepEqual(ids((await get('serverConfig/clusters/cluster1?links=none&fields=servers')).servers), [['servers', 'ms1'], ['servers', 'ms3']]);
  // Back as it was.
  await typed.inEditSession(async (c) => {
    await c.bean(SERVER, 'edit/servers/ms2').update({ cluster: ['clusters', 'cluster1'] });
    await c.delete('edit/servers/ms3');
  });
  assert.deepEqual(ids((await get('serverConfig/clusters/cluster1?links=none&fields=servers')).servers), [['servers', 'ms1'], ['servers', 'ms2']]);
});

test("the domain's targets, deployments and system resources come from its collections", async () => {
  const d = await get('serverConfig?links=none&fields=targets,deployments,systemResources');
  const targets = ids(d.targets);
  for (const t of [['servers', 'AdminServer'], ['servers', 'ms1'], ['servers', 'ms2'], ['clusters', 'cluster1'], ['virtualTargets', 'vt1'], ['virtualTargets', 'vt2'], ['JMSServers', 'JMSServer1']]) {
    assert.ok(targets.some((x) => x.join('/') === t.join('/')), `${t.join('/')} among the targets ${JSON.stringify(targets)}`);
  }
  assert.ok(!targets.some((x) => x[0] === 'machines' || x[0] === 'appDeployments'), JSON.stringify(targets));
  // Deployments are the beans of the deployment kinds (stores, JMS servers...): applications and
  // system resources are not, in the type data.
  const deployments = ids(d.deployments).map((x) => x.join('/'));
  for (const x of ['fileStores/FileStore1', 'JMSServers/JMSServer1', 'virtualTargets/vt1']) assert.ok(deployments.includes(x), `${x} among ${deployments.join(', ')}`);
  assert.ok(!deployments.some((x) => x.startsWith('servers/') || x.startsWith('appDeployments/')), deployments.join(', '));
  // The demo domain's data sources live in its partitions' resource groups: none at the domain level yet.
  assert.deepEqual(d.systemResources, []);
  await post('edit/JDBCSystemResources', { name: 'ds9', targets: [['servers', 'ms1']] });
  const after = await get('serverConfig?links=none&fields=systemResources');
  assert.deepEqual(ids(after.systemResources), [['JDBCSystemResources', 'ds9']]);
});

test("a data source's descriptor file and source path derive from its name; a set value keeps its own", async () => {
  const ds = await get('serverConfig/JDBCSystemResources/ds9?links=none&fields=descriptorFileName,sourcePath');
  assert.deepEqual(ds, { descriptorFileName: 'jdbc/ds9-jdbc.xml', sourcePath: './config/jdbc/ds9-jdbc.xml' });
  await post('edit/JMSSystemResources', { name: 'jms9' });
  assert.equal((await get('serverConfig/JMSSystemResources/jms9?links=none&fields=descriptorFileName')).descriptorFileName, 'jms/jms9-jms.xml');
  // A data source is bound under its own name unless its JNDI names are given.
  await post('edit/JDBCSystemResources/ds9/JDBCResource', { name: 'ds9' });
  assert.deepEqual((await get('serverConfig/JDBCSystemResources/ds9/JDBCResource/JDBCDataSourceParams?links=none&fields=JNDINames')).JNDINames, ['ds9']);
  const named = await get('serverConfig/partitions/partition1/resourceGroups/partition1-rg/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDataSourceParams?links=none&fields=JNDINames');
  assert.deepEqual(named.JNDINames, ['jdbc/partition1']);
});

test('administrationPort is the domain’s (9002) unless a server sets its own; staging mode and log names derive too', async () => {
  for (const tree of ['serverConfig', 'domainConfig', 'edit']) {
    const ms1 = await get(`${tree}/servers/ms1?links=none&fields=administrationPort,stagingMode,administrationProtocol,muxerClass,completeWriteTimeout,gatheredWritesEnabled`);
    assert.deepEqual(ms1, { administrationPort: 9002, stagingMode: 'stage', administrationProtocol: 't3s', muxerClass: 'appserver.socket.NIOSocketMuxer', completeWriteTimeout: 60, gatheredWritesEnabled: false }, tree);
    assert.equal((await get(`${tree}/servers/AdminServer?links=none&fields=stagingMode`)).stagingMode, 'nostage', tree);
  }
  assert.equal((await get('serverConfig/servers/ms1/log?links=none&fields=fileName')).fileName, 'logs/ms1.log');
  const domainName = (await get('serverConfig?links=none&fields=name')).name;
  assert.equal((await get('serverConfig/log?links=none&fields=fileName,dateFormatPattern')).fileName, `logs/${domainName}.log`);
  assert.equal((await get('serverConfig/servers/ms1/webServer/webServerLog?links=none&fields=fileName')).fileName, 'logs/access.log');
  // The domain's port moves every server that has none of its own; a server's own port stays.
  await typed.inEditSession(async (c) => {
    await c.bean(DOMAIN, 'edit').update({ administrationPort: 9102 });
    await c.bean(SERVER, 'edit/servers/ms2').update({ administrationPort: 9202 });
  });
  assert.equal((await get('serverConfig/servers/ms1?links=none&fields=administrationPort')).administrationPort, 9102);
  assert.equal((await get('serverConfig/servers/ms2?links=none&fields=administrationPort')).administrationPort, 9202);
  // Exalogic tunings follow the domain's switch.
  await post('edit', { exalogicOptimizationsEnabled: true });
  assert.equal((await get('serverConfig/servers/ms1?links=none&fields=gatheredWritesEnabled')).gatheredWritesEnabled, true);
  await post('edit', { exalogicOptimizationsEnabled: false });
});

test('security providers name their realm; a migratable target is hosted by its preferred server', async () => {
  const provider = await get('serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator');
  assert.deepEqual(provider.realm, ['securityConfiguration', 'realms', 'myrealm']);
  assert.ok(provider.links.some((l: any) => l.rel === 'realm' && l.href.endsWith('/serverConfig/securityConfiguration/realms/myrealm')));
  await post('edit/migratableTargets', { name: 'mt1', cluster: ['clusters', 'cluster1'] });
  const mt = await get('serverConfig/migratableTargets/mt1?links=none&fields=hostingServer');
  assert.deepEqual(mt.hostingServer, ['servers', 'ms1']);
  await post('edit/migratableTargets/mt1', { userPreferredServer: ['servers', 'ms2'] });
  assert.deepEqual((await get('serverConfig/migratableTargets/mt1?links=none&fields=hostingServer')).hostingServer, ['servers', 'ms2']);
  assert.deepEqual(ids((await get('serverConfig/clusters/cluster1?links=none&fields=migratableTargets')).migratableTargets), [['migratableTargets', 'mt1']]);
  // A server's own migratable target for transactions is hosted by that server.
  assert.deepEqual((await get('serverConfig/servers/ms2/JTAMigratableTarget?links=none&fields=hostingServer')).hostingServer, ['servers', 'ms2']);
});

test('derived values survive a restart', async () => {
  srv = await srv.restart();
  admin = srv.admin;
  assert.deepEqual(ids((await get('serverConfig/clusters/cluster1?links=none&fields=servers')).servers), [['servers', 'ms1'], ['servers', 'ms2']]);
  assert.equal((await get('serverConfig/servers/ms1?links=none&fields=administrationPort')).administrationPort, 9102);
  assert.deepEqual((await get('serverConfig/migratableTargets/mt1?links=none&fields=hostingServer')).hostingServer, ['servers', 'ms2']);
  assert.ok((await names(admin, 'serverConfig/JDBCSystemResources')).includes('ds9'));
});
