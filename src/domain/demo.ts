// The demo domain a new data directory starts with: an administration server, a two-server
// cluster on a machine, two virtual targets, two partitions each with a resource group holding a
// JDBC and a JMS system resource, a JMS server with its file store, two applications and the
// default security realm.
import type { Catalog } from '../catalog/load.js';
import { BeanTree } from '../tree/records.js';
import { type BeanRef, TreeBuilder } from '../tree/builder.js';

export interface DemoOptions {
  domainName: string;
  adminServerName: string;
  listenAddress: string;
  listenPort: number;
}

const REALM = ['securityConfiguration', 'realms', 'myrealm'];
const ref = (...identity: string[]) => identity;
const refs = (...identities: string[][]) => identities;

export function demoDomain(catalog: Catalog, opts: DemoOptions): BeanTree {
  const b = new TreeBuilder(catalog, new BeanTree());
  const domain = b.root('appserver.management.configuration.DomainMBean', {
    name: opts.domainName,
    domainVersion: catalog.productVersion,
    configurationVersion: catalog.productVersion,
    adminServerName: opts.adminServerName,
    productionModeEnabled: false,
  });

  const machine = b.item(domain, 'machines', 'machine1', {}, 'UnixMachine');
  b.singleton(machine, 'nodeManager', { listenAddress: 'localhost', listenPort: 5556, NMType: 'Plain' });

  b.item(domain, 'clusters', 'cluster1', { clusterMessagingMode: 'unicast', clusterAddress: 'localhost:7003,localhost:7005' });

  b.item(domain, 'servers', opts.adminServerName, { listenAddress: opts.listenAddress, listenPort: opts.listenPort });
  for (const [name, port] of [['ms1', 7003], ['ms2', 7005]] as const) {
    b.item(domain, 'servers', name, {
      listenAddress: 'localhost',
      listenPort: port,
      cluster: ref('clusters', 'cluster1'),
      machine: ref('machines', 'machine1'),
    });
  }

  // Partitions, resource groups and virtual targets are gone from the product since 14.1.1.
  const multitenant = catalog.type('appserver.management.configuration.DomainMBean').prop.has('partitions');
  if (multitenant) b.item(domain, 'virtualTargets', 'vt1', { targets: refs(ref('servers', opts.adminServerName)), uriPrefix: '/partition1' });
  if (multitenant) b.item(domain, 'virtualTargets', 'vt2', { targets: refs(ref('clusters', 'cluster1')), uriPrefix: '/partition2' });

  b.item(domain, 'fileStores', 'FileStore1', { directory: 'stores/FileStore1', targets: refs(ref('servers', 'ms1')) });
  b.item(domain, 'JMSServers', 'JMSServer1', {
    persistentStore: ref('fileStores', 'FileStore1'),
    targets: refs(ref('servers', 'ms1')),
  });

  if (multitenant) for (const [index, vt] of [[1, 'vt1'], [2, 'vt2']] as const) partition(b, domain, index, vt);

  b.item(domain, 'appDeployments', 'benefits', {
    moduleType: 'war',
    sourcePath: 'applications/benefits.war',
    targets: refs(ref('clusters', 'cluster1')),
  });
  b.item(domain, 'appDeployments', 'inventory', {
    moduleType: 'ear',
    sourcePath: 'applications/inventory.ear',
    targets: refs(ref('servers', opts.adminServerName)),
  });
  // A resource adapter whose connection pool the applications use.
  b.item(domain, 'appDeployments', 'demo-adapter', {
    moduleType: 'rar',
    sourcePath: 'applications/demo-adapter.rar',
    targets: refs(ref('servers', opts.adminServerName)),
  });

  realm(b, domain, opts.domainName);
  return b.tree;
}

function partition(b: TreeBuilder, domain: BeanRef, index: number, vt: string): void {
  const name = `partition${index}`;
  const p = b.item(domain, 'partitions', name, {
    partitionID: `${index}0000000-0000-4000-8000-00000000000${index}`,
    availableTargets: refs(ref('virtualTargets', vt)),
    defaultTargets: refs(ref('virtualTargets', vt)),
    realm: REALM,
    primaryIdentityDomain: name,
  });
  const rg = b.item(p, 'resourceGroups', `${name}-rg`, { useDefaultTarget: true });
  const ds = b.item(rg, 'JDBCSystemResources', `${name}-ds`, {});
  const jdbc = b.singleton(ds, 'JDBCResource', { name: `${name}-ds`, datasourceType: 'GENERIC' });
  b.singleton(jdbc, 'JDBCDataSourceParams', { JNDINames: [`jdbc/${name}`], globalTransactionsProtocol: 'OnePhaseCommit' });
  const driver = b.singleton(jdbc, 'JDBCDriverParams', {
    // An in-memory embedded database, which this server provides: the demo starts healthy.
    driverName: 'org.apache.derby.jdbc.EmbeddedDriver',
    url: `jdbc:derby:memory:${name};create=true`,
  });
  const props = b.singleton(driver, 'properties');
  b.item(props, 'properties', 'user', { value: `${name}_user` });
  b.singleton(jdbc, 'JDBCConnectionPoolParams', { initialCapacity: 1, maxCapacity: 15, testTableName: 'SQL SELECT 1 FROM SYS.SYSTABLES' });
  const jms = b.item(rg, 'JMSSystemResources', `${name}-jms`, {});
  const resource = b.singleton(jms, 'JMSResource', {});
  b.item(resource, 'queues', `${name}-orders`, { JNDIName: `jms/${name}/orders` });
}

function realm(b: TreeBuilder, domain: BeanRef, domainName: string): void {
  const security = b.singleton(domain, 'securityConfiguration', { name: domainName, defaultRealm: REALM });
  const realm = b.item(security, 'realms', 'myrealm');
  const providers: [string, string, string][] = [
    ['authenticationProviders', 'DefaultAuthenticator', 'appserver.security.providers.authentication.DefaultAuthenticatorMBean'],
    ['authenticationProviders', 'DefaultIdentityAsserter', 'appserver.security.providers.authentication.DefaultIdentityAsserterMBean'],
    ['authorizers', 'XACMLAuthorizer', 'appserver.security.providers.xacml.authorization.XACMLAuthorizerMBean'],
    ['roleMappers', 'XACMLRoleMapper', 'appserver.security.providers.xacml.authorization.XACMLRoleMapperMBean'],
    ['credentialMappers', 'DefaultCredentialMapper', 'appserver.security.providers.credentials.DefaultCredentialMapperMBean'],
    ['certPathProviders', 'AppServerCertPathProvider', 'appserver.security.providers.pk.AppServerCertPathProviderMBean'],
    ['passwordValidators', 'SystemPasswordValidator', 'appserver.security.providers.authentication.passwordvalidator.SystemPasswordValidatorMBean'],
  ];
  for (const [collection, name, type] of providers) b.item(realm, collection, name, { realm: REALM }, type);
  b.singleton(realm, 'adjudicator', { name: 'DefaultAdjudicator', realm: REALM }, 'appserver.security.providers.authorization.DefaultAdjudicatorMBean');
}
