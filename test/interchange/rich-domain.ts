// A domain with something of everything an import or export carries: clusters (one dynamic, with
// its server template), machines of both kinds, servers, a JDBC data source with a sealed
// password, a JMS server on a file store and a JMS module with queues, a topic, a connection
// factory and a subdeployment, applications, partitions with resource groups holding their own
// resources, the realm, sealed security credentials, users and groups.
import type { Catalog } from '../../src/catalog/load.js';
import type { Secrets } from '../../src/config/secrets.js';
import type { SecurityData } from '../../src/interchange/index.js';
import { TreeBuilder } from '../../src/tree/builder.js';
import { BeanTree } from '../../src/tree/records.js';

const REALM = ['securityConfiguration', 'realms', 'myrealm'];

export function richDomain(catalog: Catalog, secrets: Secrets): BeanTree {
  const b = new TreeBuilder(catalog, new BeanTree());
  const domain = b.root('appserver.management.configuration.DomainMBean', {
    name: 'rich_domain',
    domainVersion: '12.2.1.3.0',
    configurationVersion: '12.2.1.3.0',
    adminServerName: 'AdminServer',
    productionModeEnabled: true,
    notes: 'line one\nline two & <three>',
  });
  const security = b.singleton(domain, 'securityConfiguration', {
    name: 'rich_domain',
    defaultRealm: REALM,
    nodeManagerUsername: 'nodemanager',
    nodeManagerPassword: secrets.seal('nm-secret'),
  });
  const realm = b.item(security, 'realms', 'myrealm');
  b.item(realm, 'authenticationProviders', 'DefaultAuthenticator', { controlFlag: 'SUFFICIENT' }, 'appserver.security.providers.authentication.DefaultAuthenticatorMBean');
  b.item(realm, 'authenticationProviders', 'DefaultIdentityAsserter', { activeTypes: ['AuthenticatedUser', 'jwt-token'] }, 'appserver.security.providers.authentication.DefaultIdentityAsserterMBean');
  b.singleton(realm, 'adjudicator', { name: 'DefaultAdjudicator' }, 'appserver.security.providers.authorization.DefaultAdjudicatorMBean');

  const m1 = b.item(domain, 'machines', 'machine1', {}, 'UnixMachine');
  b.singleton(m1, 'nodeManager', { listenAddress: 'host1.example.test', listenPort: 5556, NMType: 'SSL' });
  const m2 = b.item(domain, 'machines', 'machine2', { notes: 'plain machine' });
  b.singleton(m2, 'nodeManager', { listenAddress: 'host2.example.test' });

  b.item(domain, 'clusters', 'cluster1', { clusterMessagingMode: 'unicast', clusterAddress: 'host1:8001,host2:8001' });
  const dyn = b.item(domain, 'clusters', 'dyncluster', { clusterMessagingMode: 'unicast' });
  b.item(domain, 'serverTemplates', 'dyn-template', { listenPort: 9001, cluster: ['clusters', 'dyncluster'] });
  b.singleton(dyn, 'dynamicServers', {
    serverTemplate: ['serverTemplates', 'dyn-template'],
    serverNamePrefix: 'dyn-server-',
    dynamicClusterSize: 4,
    maxDynamicClusterSize: 8,
    calculatedListenPorts: true,
  });

  b.item(domain, 'servers', 'AdminServer', { listenAddress: '', listenPort: 7001 });
  for (const [name, port, machine] of [['ms1', 8001, 'machine1'], ['ms2', 8001, 'machine2']] as const) {
    const s = b.item(domain, 'servers', name, { listenAddress: `${name}.example.test`, listenPort: port, cluster: ['clusters', 'cluster1'], machine: ['machines', machine] });
    b.singleton(s, 'SSL', { enabled: true, listenPort: port + 1 });
  }

  b.item(domain, 'virtualTargets', 'vt1', { targets: [['clusters', 'cluster1']], uriPrefix: '/tenant1' });
  b.item(domain, 'virtualTargets', 'vt2', { targets: [['servers', 'AdminServer'], ['clusters', 'dyncluster']], uriPrefix: '/tenant2' });

  b.item(domain, 'fileStores', 'FileStore1', { directory: 'stores/one', targets: [['servers', 'ms1']] });
  b.item(domain, 'JMSServers', 'JMSServer1', { persistentStore: ['fileStores', 'FileStore1'], targets: [['servers', 'ms1']] });
  const module = b.item(domain, 'JMSSystemResources', 'OrdersModule', { targets: [['clusters', 'cluster1']] });
  b.item(module, 'subDeployments', 'orders-sub', { targets: [['JMSServers', 'JMSServer1']] });
  const jms = b.singleton(module, 'JMSResource', {});
  b.item(jms, 'queues', 'OrderQueue', { JNDIName: 'jms/orders', subDeploymentName: 'orders-sub' });
  b.item(jms, 'queues', 'ReplyQueue', { JNDIName: 'jms/replies', subDeploymentName: 'orders-sub', maximumMessageSize: 1048576 });
  b.item(jms, 'topics', 'Events', { JNDIName: 'jms/events', subDeploymentName: 'orders-sub' });
  b.item(jms, 'connectionFactories', 'OrdersFactory', { JNDIName: 'jms/cf', defaultTargetingEnabled: true });

  dataSource(b, domain, 'OrdersDS', 'jdbc/orders', [['clusters', 'cluster1']], secrets);

  b.item(domain, 'appDeployments', 'orders', { moduleType: 'ear', sourcePath: 'apps/orders.ear', targets: [['clusters', 'cluster1']] });
  b.item(domain, 'appDeployments', 'console-ext', { moduleType: 'war', sourcePath: 'apps/ext.war', targets: [['servers', 'AdminServer'], ['clusters', 'dyncluster']], stagingMode: 'nostage' });

  for (const [name, vt] of [['tenant1', 'vt1'], ['tenant2', 'vt2']] as const) {
    const p = b.item(domain, 'partitions', name, {
      partitionID: `${name === 'tenant1' ? 1 : 2}0000000-0000-4000-8000-000000000000`,
      availableTargets: [['virtualTargets', vt]],
      defaultTargets: [['virtualTargets', vt]],
      realm: REALM,
      primaryIdentityDomain: name,
    });
    const rg = b.item(p, 'resourceGroups', 'rg', { useDefaultTarget: true });
    // The same data source name in each partition: references inside resolve to their own.
    dataSource(b, rg, 'LocalDS', `jdbc/${name}`, undefined, secrets);
    b.item(rg, 'appDeployments', `${name}-app`, { moduleType: 'war', sourcePath: `apps/${name}.war` });
  }
  return b.tree;
}

function dataSource(b: TreeBuilder, owner: ReturnType<TreeBuilder['root']>, name: string, jndi: string, targets: string[][] | undefined, secrets: Secrets): void {
  const ds = b.item(owner, 'JDBCSystemResources', name, targets ? { targets } : {});
  const jdbc = b.singleton(ds, 'JDBCResource', { name, datasourceType: 'GENERIC' });
  b.singleton(jdbc, 'JDBCDataSourceParams', { JNDINames: [jndi, `${jndi}-alias`], globalTransactionsProtocol: 'TwoPhaseCommit' });
  const driver = b.singleton(jdbc, 'JDBCDriverParams', { driverName: 'org.postgresql.Driver', url: 'jdbc:postgresql://db:5432/app', password: secrets.seal(`${name}-pw`) });
  const props = b.singleton(driver, 'properties');
  b.item(props, 'properties', 'user', { value: 'app' });
  b.singleton(jdbc, 'JDBCConnectionPoolParams', { initialCapacity: 2, maxCapacity: 20, testTableName: 'SQL SELECT 1' });
}

export const RICH_USERS: SecurityData = {
  adminUser: 'admin',
  users: [
    { name: 'admin', description: 'The domain administrator.', groups: ['Administrators'] },
    { name: 'deployer1', description: 'Ships applications', groups: ['Deployers', 'ReleaseTeam'] },
    { name: 'watcher', description: '', groups: ['Monitors'] },
  ],
  groups: [
    { name: 'Administrators', description: 'Administrators can view and modify all resource attributes and start and stop servers.', groups: [] },
    { name: 'ReleaseTeam', description: 'People who release', groups: ['Operators'] },
    { name: 'Operators', description: 'Operators can view and modify all resource attributes and perform server lifecycle operations.', groups: [] },
  ],
};
