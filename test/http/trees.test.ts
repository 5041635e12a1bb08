// The resource shapes the spec prescribes: versions, lifecycle entry, currentUser, the runtime and
// configuration trees, references, URL generations, the partition-scoped form and the wire cosmetics.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import v8 from 'node:v8';
import { adminAuth, call, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let M: string;

before(async () => {
  srv = await startTestServer();
  M = `${srv.origin}/management/appserver`;
});

after(async () => {
  await srv.stop(true);
});

interface Link {
  rel: string;
  href: string;
  title?: string;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await call(url, { headers });
  assert.equal(r.status, 200, `GET ${url}: ${r.status} ${r.text.slice(0, 300)}`);
  return r;
}

const rels = (body: { links: Link[] }): string[] => body.links.map((l) => l.rel);
const link = (body: { links: Link[] }, rel: string): Link | undefined => body.links.find((l) => l.rel === rel);
const href = (body: { links: Link[] }, rel: string): string => {
  const l = link(body, rel);
  assert.ok(l, `no ${rel} link among ${rels(body).join(', ')}`);
  return l.href;
};
const actions = (body: { links: Link[] }): string[] => body.links.filter((l) => l.rel === 'action').map((l) => l.title!);
const itemNames = (body: { items: { name: string }[] }): string[] => body.items.map((i) => i.name);

function assertIncludes(actual: string[], expected: string[], what: string): void {
  const missing = expected.filter((e) => !actual.includes(e));
  assert.deepEqual(missing, [], `${what}: missing ${missing.join(', ')}`);
}

describe('versions', () => {
  test('the version list: version, isLatest, lifecycle per version; self, canonical, current links', async () => {
    const { json } = await get(M);
    assert.deepEqual(rels(json), ['self', 'canonical', 'current']);
    assert.equal(href(json, 'self'), M);
    assert.equal(href(json, 'canonical'), M);
    assert.equal(href(json, 'current'), `${M}/12.2.1.4.0`);
    assert.ok(!('parent' in json) && !rels(json).includes('parent'), 'the version list has no parent');
    assert.deepEqual(
      json.items.map((i: any) => ({ version: i.version, isLatest: i.isLatest, lifecycle: i.lifecycle })),
      [
        { version: '12.2.1.4.0', isLatest: true, lifecycle: 'active' },
        { version: '12.2.1.0', isLatest: false, lifecycle: 'deprecated' },
      ],
    );
    for (const item of json.items) {
      assert.equal(href(item, 'self'), `${M}/${item.version}`);
      assert.equal(href(item, 'canonical'), `${M}/${item.version}`);
    }
  });

  for (const [segment, version, isLatest, lifecycle] of [
    ['latest', '12.2.1.4.0', true, 'active'],
    ['12.2.1.4.0', '12.2.1.4.0', true, 'active'],
    // An earlier release's segment names the domain's version.
    ['12.2.1.3.0', '12.2.1.4.0', true, 'active'],
    ['12.2.1.0', '12.2.1.0', false, 'deprecated'],
    ['12.2.1.0.0', '12.2.1.0', false, 'deprecated'],
  ] as const) {
    test(`version segment ${segment} resolves`, async () => {
      const { json } = await get(`${M}/${segment}`);
      assert.equal(json.version, version);
      assert.equal(json.isLatest, isLatest);
      assert.equal(json.lifecycle, lifecycle);
      assert.equal(href(json, 'self'), `${M}/${segment}`);
      assert.equal(href(json, 'parent'), M);
      const user = await get(`${M}/${segment}/currentUser`);
      assert.equal(user.json.user, 'admin');
      const dr = await get(`${M}/${segment}/domainRuntime`);
      assert.equal(dr.json.type, 'DomainRuntime');
      assert.equal(href(dr.json, 'self'), `${M}/${segment}/domainRuntime`);
    });
  }

  test('the version entity links to every tree and currentUser', async () => {
    const { json } = await get(srv.latest);
    assert.deepEqual(rels(json), [
      'parent',
      'self',
      'canonical',
      'edit',
      'domainConfig',
      'domainRuntime',
      'serverRuntime',
      'serverConfig',
      'currentUser',
    ]);
    for (const tree of ['edit', 'domainConfig', 'domainRuntime', 'serverRuntime', 'serverConfig', 'currentUser']) {
      assert.equal(href(json, tree), `${srv.latest}/${tree}`);
    }
  });

  test('the lifecycle version list has a current link and /latest links its collections', async () => {
    const LC = `${srv.origin}/management/lifecycle`;
    const list = await get(`${LC}/`);
    assertIncludes(rels(list.json), ['self', 'canonical', 'current'], 'lifecycle version list');
    assert.match(href(list.json, 'current'), new RegExp(`^${LC}/12\\.2\\.1\\.0$`));
    assert.ok(list.json.items.length >= 1);
    for (const item of list.json.items) {
      assert.equal(typeof item.version, 'string');
      assert.equal(typeof item.isLatest, 'boolean');
      assert.equal(item.lifecycle, 'active');
    }
    const latest = await get(`${LC}/latest`);
    assert.deepEqual(rels(latest.json), [
      'parent',
      'self',
      'canonical',
      'environmentCreateForm',
      'environments',
      'runtimeCreateForm',
      'runtimes',
      'tenantCreateForm',
      'tenants',
      'plugins',
    ]);
    assert.equal(href(latest.json, 'environments'), `${LC}/latest/environments`);
    assert.equal(latest.json.lifecycle, 'active');
    const legacy = await get(`${LC}/12.2.1.0`);
    assert.equal(legacy.json.version, '12.2.1.0');
  });
});

describe('currentUser', () => {
  test('reports the caller and the domain partition', async () => {
    const { json } = await get(`${srv.latest}/currentUser`);
    assert.equal(json.user, 'admin');
    assert.equal(json.partitionName, 'DOMAIN');
    assert.equal(typeof json.partitionId, 'string');
    assert.deepEqual(rels(json), ['parent', 'self', 'canonical']);
    assert.equal(href(json, 'parent'), srv.latest);
    assert.ok(!('identity' in json));
  });
});

describe('domainRuntime', () => {
  test('the domain runtime entity', async () => {
    const { json } = await get(`${srv.latest}/domainRuntime`);
    assert.deepEqual(json.identity, []);
    assert.equal(json.type, 'DomainRuntime');
    assert.equal(json.name, 'demo_domain');
    assert.equal(json.currentDomainPartitionRuntime, null, 'a domain-level caller has no current partition');
    assert.ok(!rels(json).includes('currentDomainPartitionRuntime'), 'no reference link for an unset reference');
    assertIncludes(
      rels(json),
      ['parent', 'self', 'canonical', 'domainPartitionRuntimes', 'rolloutService', 'search', 'serverRuntimes'],
      'domainRuntime links',
    );
    assert.equal(href(json, 'parent'), srv.latest);
    assert.equal(href(json, 'search'), `${srv.latest}/domainRuntime/search`);
    assert.equal(href(json, 'serverRuntimes'), `${srv.latest}/domainRuntime/serverRuntimes`);
  });

  test('serverRuntimes lists exactly the running servers', async () => {
    const { json } = await get(`${srv.latest}/domainRuntime/serverRuntimes`);
    assert.deepEqual(itemNames(json), ['AdminServer']);
    const item = json.items[0];
    assert.deepEqual(item.identity, [], 'a server runtime is the root of its own tree');
    assert.equal(item.state, 'RUNNING');
    assert.deepEqual(rels(item), ['self', 'canonical']);
    assert.equal(href(item, 'self'), `${srv.latest}/domainRuntime/serverRuntimes/AdminServer`);
  });

  test('serverRuntimes/AdminServer and its JVMRuntime have server-relative identities', async () => {
    const server = await get(`${srv.latest}/domainRuntime/serverRuntimes/AdminServer`);
    assert.deepEqual(server.json.identity, []);
    assert.equal(server.json.type, 'ServerRuntime');
    assert.equal(server.json.name, 'AdminServer');
    assert.equal(href(server.json, 'search'), `${srv.latest}/domainRuntime/serverRuntimes/AdminServer/search`);
    assert.equal(href(server.json, 'parent'), `${srv.latest}/domainRuntime/serverRuntimes`);
    const jvm = await get(href(server.json, 'JVMRuntime'));
    assert.deepEqual(jvm.json.identity, ['JVMRuntime']);
    assert.equal(jvm.json.type, 'JVMRuntime');
    assert.ok(!rels(jvm.json).includes('search'), 'search only on tree roots');
  });

  test('JVMRuntime reports the real heap and uptime of the process', async () => {
    const url = `${srv.latest}/domainRuntime/serverRuntimes/AdminServer/JVMRuntime`;
    const before = process.uptime() * 1000;
    const first = (await get(url)).json;
    const afterFirst = process.uptime() * 1000;
    assert.equal(typeof first.heapSizeCurrent, 'number');
    assert.ok(first.heapSizeCurrent > 0, `heapSizeCurrent ${first.heapSizeCurrent}`);
    assert.ok(first.heapSizeMax >= first.heapSizeCurrent);
    // The server runs in this process: its heap limit is this process's.
    assert.equal(first.heapSizeMax, v8.getHeapStatistics().heap_size_limit);
    assert.ok(first.heapFreeCurrent >= 0 && first.heapFreeCurrent <= first.heapSizeCurrent);
    assert.ok(first.uptime > 0, `uptime ${first.uptime}`);
    assert.ok(first.uptime >= Math.floor(before) - 1 && first.uptime <= Math.ceil(afterFirst) + 1, `uptime ${first.uptime} not within [${before}, ${afterFirst}]`);
    const second = (await get(url)).json;
    assert.ok(second.uptime >= first.uptime, 'uptime never goes back');
    // The same bean through the serverRuntime tree.
    const direct = (await get(`${srv.latest}/serverRuntime/JVMRuntime`)).json;
    assert.deepEqual(direct.identity, ['JVMRuntime']);
    assert.ok(direct.heapSizeCurrent > 0);
  });

  test('domainPartitionRuntimes/{name} links the spec lists', async () => {
    const { json } = await get(`${srv.latest}/domainRuntime/domainPartitionRuntimes/partition1`);
    assert.deepEqual(json.identity, ['domainPartitionRuntimes', 'partition1']);
    assertIncludes(
      rels(json),
      ['appRuntimeStateRuntime', 'deploymentManager', 'editSessionConfigurationManager', 'partitionLifeCycleRuntime', 'partitionUserFileSystemManager'],
      'domain partition runtime links',
    );
    const list = await get(`${srv.latest}/domainRuntime/domainPartitionRuntimes`);
    assert.deepEqual(itemNames(list.json), ['partition1', 'partition2']);
  });

  test('partitionLifeCycleRuntime: actions, children and state of a running and a halted partition', async () => {
    const base = `${srv.latest}/domainRuntime/domainPartitionRuntimes`;
    const p1 = (await get(`${base}/partition1/partitionLifeCycleRuntime`)).json;
    assert.deepEqual(
      [...actions(p1)].sort(),
      ['boot', 'forceShutdown', 'forceSuspend', 'getState', 'getSubState', 'halt', 'purgeTasks', 'resume', 'shutdown', 'start', 'startInAdmin', 'suspend'],
    );
    assertIncludes(rels(p1), ['resourceGroupLifeCycleRuntimes', 'tasks'], 'partition lifecycle children');
    for (const l of p1.links.filter((x: Link) => x.rel === 'action')) {
      assert.equal(l.href, `${base}/partition1/partitionLifeCycleRuntime/${l.title}`);
    }
    assert.equal(p1.state, 'RUNNING');
    assert.equal(p1.type, 'PartitionLifeCycleRuntime');
    const p2 = (await get(`${base}/partition2/partitionLifeCycleRuntime`)).json;
    assert.equal(p2.state, 'SHUTDOWN');
    assert.equal(p2.subState, 'HALTED');
    const rg = (await get(`${base}/partition1/partitionLifeCycleRuntime/resourceGroupLifeCycleRuntimes`)).json;
    assert.deepEqual(itemNames(rg), ['partition1-rg']);
    const rg1 = (await get(href(rg.items[0], 'self'))).json;
    assert.deepEqual(
      [...actions(rg1)].sort(),
      ['forceShutdown', 'forceSuspend', 'getState', 'purgeTasks', 'resume', 'shutdown', 'start', 'startInAdmin', 'suspend'],
    );
    assert.equal(rg1.state, 'RUNNING');
  });
});

describe('serverRuntime', () => {
  test('actions listed by the spec appear as titled action links', async () => {
    const { json } = await get(`${srv.latest}/serverRuntime`);
    assert.deepEqual(json.identity, []);
    assert.equal(json.type, 'ServerRuntime');
    assert.equal(json.state, 'RUNNING');
    assertIncludes(
      actions(json),
      [
        'bootPartition', 'forceRestartPartition', 'forceShutdown', 'forceShutdownResourceGroup', 'forceSuspend',
        'forceSuspendResourceGroup', 'getIPv4URL', 'getIPv6URL', 'getRgState', 'getURL', 'restartSSLChannels', 'resume',
        'resumeResourceGroup', 'shutdown', 'shutdownResourceGroup', 'startPartition', 'startPartitionInAdmin',
        'startResourceGroup', 'startResourceGroupInAdmin', 'suspend', 'suspendResourceGroup',
      ],
      'serverRuntime actions',
    );
    for (const name of ['shutdown', 'startPartition', 'getRgState']) {
      const l = json.links.find((x: Link) => x.rel === 'action' && x.title === name);
      assert.ok(l, `no action link ${name}`);
      assert.equal(l.href, `${srv.latest}/serverRuntime/${name}`);
    }
    const titles = actions(json);
    assert.equal(new Set(titles).size, titles.length, 'one link per operation, even when overloaded');
  });

  test('singleton and collection children listed by the spec', async () => {
    const { json } = await get(`${srv.latest}/serverRuntime`);
    assertIncludes(
      rels(json),
      [
        'JDBCServiceRuntime', 'JMSRuntime', 'JTARuntime', 'JVMRuntime', 'MANAsyncReplicationRuntime', 'MANReplicationRuntime',
        'SAFRuntime', 'SNMPAgentRuntime', 'WANReplicationRuntime', 'asyncReplicationRuntime', 'batchJobRepositoryRuntime',
        'classLoaderRuntime', 'clusterRuntime', 'concurrentManagedObjectsRuntime', 'connectorServiceRuntime',
        'defaultExecuteQueueRuntime', 'entityCacheCumulativeRuntime', 'entityCacheCurrentStateRuntime',
        'entityCacheHistoricalRuntime', 'joltRuntime', 'logBroadcasterRuntime', 'serverLogRuntime', 'serverSecurityRuntime',
        'singleSignOnServicesRuntime', 'threadPoolRuntime', 'timerRuntime', 'wseeClusterFrontEndRuntime', 'wseeWsrmRuntime',
        'search',
        'applicationRuntimes', 'executeQueueRuntimes', 'libraryRuntimes', 'mailSessionRuntimes', 'maxThreadsConstraintRuntimes',
        'messagingBridgeRuntimes', 'minThreadsConstraintRuntimes', 'partitionRuntimes', 'pathServiceRuntimes',
        'persistentStoreRuntimes', 'requestClassRuntimes', 'serverChannelRuntimes', 'webServerRuntimes', 'workManagerRuntimes',
      ],
      'serverRuntime children',
    );
  });

  test('partitionRuntimes holds the running partition with the spec actions', async () => {
    const list = (await get(`${srv.latest}/serverRuntime/partitionRuntimes`)).json;
    assert.deepEqual(itemNames(list), ['partition1'], 'the halted partition2 has no runtime');
    const p = (await get(`${srv.latest}/serverRuntime/partitionRuntimes/partition1`)).json;
    assertIncludes(
      actions(p),
      [
        'forceShutdown', 'forceShutdownResourceGroup', 'forceSuspend', 'forceSuspendResourceGroup', 'getRgState', 'halt',
        'resume', 'resumeResourceGroup', 'shutdown', 'shutdownResourceGroup', 'startResourceGroup',
        'startResourceGroupInAdmin', 'suspend', 'suspendResourceGroup',
      ],
      'partition runtime actions',
    );
    assertIncludes(rels(p), ['JDBCPartitionRuntime', 'partitionWorkManagerRuntime', 'applicationRuntimes'], 'partition runtime children');
  });
});

describe('edit and serverConfig', () => {
  test('the edit root links the change manager, collections, their create forms and root actions', async () => {
    const { json } = await get(`${srv.latest}/edit`);
    assert.deepEqual(json.identity, []);
    assert.equal(json.type, 'Domain');
    assertIncludes(rels(json), ['changeManager', 'servers', 'serverCreateForm', 'JDBCSystemResourceCreateForm', 'search'], 'edit links');
    assertIncludes(
      rels(json),
      [
        'JDBCStoreCreateForm', 'JMSBridgeDestinationCreateForm', 'JMSInteropModuleCreateForm', 'JMSServerCreateForm',
        'JMSSystemResourceCreateForm', 'SAFAgentCreateForm', 'SNMPAgentDeploymentCreateForm',
        'WSReliableDeliveryPolicyCreateForm', 'XMLEntityCacheCreateForm', 'XMLRegistryCreateForm', 'clusterCreateForm',
        'configurationPropertyCreateForm', 'customResourceCreateForm', 'fileStoreCreateForm',
        'foreignJNDIProviderCreateForm', 'joltConnectionPoolCreateForm', 'logFilterCreateForm',
      ],
      'edit create forms',
    );
    assert.equal(href(json, 'serverCreateForm'), `${srv.latest}/edit/serverCreateForm`);
    assert.deepEqual(
      [...actions(json)].sort(),
      ['arePartitionsPresent', 'findConfigBeansWithTags', 'findPartitionByID', 'listTags', 'lookupSystemResource', 'lookupTarget'],
    );
  });

  test('edit/servers is a collection with a create-form link', async () => {
    const { json } = await get(`${srv.latest}/edit/servers`);
    assert.deepEqual(rels(json), ['parent', 'self', 'canonical', 'create-form']);
    assert.equal(href(json, 'create-form'), `${srv.latest}/edit/serverCreateForm`);
    assert.equal(href(json, 'parent'), `${srv.latest}/edit`);
    assert.deepEqual(itemNames(json), ['AdminServer', 'ms1', 'ms2']);
    for (const item of json.items) assert.deepEqual(item.identity, ['servers', item.name]);
  });

  test('edit/serverCreateForm: defaults, a null name and a create link to the collection', async () => {
    const { json } = await get(`${srv.latest}/edit/serverCreateForm`);
    assert.deepEqual(rels(json), ['parent', 'self', 'canonical', 'create']);
    assert.equal(href(json, 'create'), `${srv.latest}/edit/servers`);
    assert.equal(json.name, null);
    assert.equal(json.listenPort, 7001);
    assert.ok(!('identity' in json), 'a create form is not a bean yet');
  });

  test('the change manager is reachable in edit only', async () => {
    const cm = (await get(`${srv.latest}/edit/changeManager`)).json;
    assert.equal(cm.locked, false);
    assertIncludes(actions(cm), ['startEdit', 'activate', 'cancelEdit', 'safeResolve', 'forceResolve'], 'change manager actions');
    const r = await call(`${srv.latest}/serverConfig/changeManager`);
    assert.equal(r.status, 404);
  });

  test('serverConfig offers no create forms and no change manager', async () => {
    const { json } = await get(`${srv.latest}/serverConfig`);
    assert.deepEqual(json.identity, []);
    const names = rels(json);
    assert.deepEqual(names.filter((r) => r.endsWith('CreateForm')), []);
    assert.ok(!names.includes('changeManager'));
    assertIncludes(names, ['parent', 'self', 'partitions', 'resourceGroupTemplates', 'search', 'securityConfiguration', 'virtualTargets'], 'serverConfig links');
    const servers = (await get(`${srv.latest}/serverConfig/servers`)).json;
    assert.ok(!rels(servers).includes('create-form'));
    assert.deepEqual(itemNames(servers), ['AdminServer', 'ms1', 'ms2']);
    const ms1 = (await get(`${srv.latest}/serverConfig/servers/ms1`)).json;
    assert.deepEqual(rels(ms1).filter((r) => r.endsWith('CreateForm')), []);
  });
});

describe('references', () => {
  test('a singleton reference is an identity array, with a reference link', async () => {
    const { json } = await get(`${srv.latest}/edit/servers/ms1`);
    assert.deepEqual(json.cluster, ['clusters', 'cluster1']);
    assert.deepEqual(json.machine, ['machines', 'machine1']);
    assert.equal(href(json, 'cluster'), `${srv.latest}/edit/clusters/cluster1`);
    const cluster = (await get(href(json, 'cluster'))).json;
    assert.deepEqual(cluster.identity, ['clusters', 'cluster1']);
    const admin = (await get(`${srv.latest}/edit/servers/AdminServer`)).json;
    assert.equal(admin.cluster, null, 'an unset singleton reference is null');
    assert.ok(!rels(admin).includes('cluster'));
  });

  test('a reference collection is an array of {identity}', async () => {
    const { json } = await get(`${srv.latest}/edit/JMSServers/JMSServer1`);
    assert.deepEqual(json.targets, [{ identity: ['servers', 'ms1'] }]);
    assert.deepEqual(json.persistentStore, ['fileStores', 'FileStore1']);
    assert.equal(href(json, 'persistentStore'), `${srv.latest}/edit/fileStores/FileStore1`);
  });
});

describe('URL generations', () => {
  // Properties and children deprecated after 12.2.1.0, read from the catalog the server is built from.
  const catalog = JSON.parse(readFileSync(new URL('../../../catalog/catalog.json', import.meta.url), 'utf8')) as {
    types: Record<string, { p: { n: string; dep?: string; rel?: string; ri?: number }[] }>;
  };
  const server = catalog.types['appserver.management.configuration.ServerMBean']!;
  const deprecatedField = server.p.find((p) => p.dep && !p.rel && !p.ri);
  const deprecatedChild = server.p.find((p) => p.dep && p.rel === 'c');

  test('the catalog has deprecated properties on servers', () => {
    assert.ok(deprecatedField, 'no deprecated scalar property on ServerMBean');
    assert.ok(deprecatedChild, 'no deprecated child on ServerMBean');
  });

  test('a property deprecated after 12.2.1.0 shows under 12.2.1.0 URLs only', async () => {
    const name = deprecatedField!.n;
    const legacy = (await get(`${M}/12.2.1.0/edit/servers/ms1`)).json;
    assert.ok(name in legacy, `${name} (deprecated in ${deprecatedField!.dep}) missing under 12.2.1.0`);
    const legacyLong = (await get(`${M}/12.2.1.0.0/serverConfig/servers/ms1`)).json;
    assert.ok(name in legacyLong, `${name} missing under 12.2.1.0.0`);
    for (const segment of ['latest', '12.2.1.3.0']) {
      const current = (await get(`${M}/${segment}/edit/servers/ms1`)).json;
      assert.ok(!(name in current), `${name} (deprecated in ${deprecatedField!.dep}) present under ${segment}`);
      assert.equal(current.name, 'ms1');
    }
    const fields = (await get(`${M}/latest/edit/servers/ms1?fields=${name},name`)).json;
    assert.deepEqual(Object.keys(fields).filter((k) => k !== 'links'), ['name'], 'asking for it by name does not bring it back');
  });

  test('a child deprecated after 12.2.1.0 is linked and readable under 12.2.1.0 only', async () => {
    const child = deprecatedChild!.n;
    const legacy = (await get(`${M}/12.2.1.0/edit/servers/ms1`)).json;
    assert.equal(href(legacy, child), `${M}/12.2.1.0/edit/servers/ms1/${child}`);
    await get(`${M}/12.2.1.0/edit/servers/ms1/${child}`);
    const current = (await get(`${srv.latest}/edit/servers/ms1`)).json;
    assert.ok(!rels(current).includes(child), `${child} linked under latest`);
    const r = await call(`${srv.latest}/edit/servers/ms1/${child}`);
    assert.equal(r.status, 404);
    assert.equal(r.json.detail, `'${child}' was not found.`);
  });

  test('hrefs keep the version segment of the request', async () => {
    const legacy = (await get(`${M}/12.2.1.0/edit/servers`)).json;
    for (const item of legacy.items) assert.ok(href(item, 'self').startsWith(`${M}/12.2.1.0/edit/servers/`));
  });
});

describe('partition-scoped form', () => {
  test('domainRuntime names the partition as current and lists only it', async () => {
    const P = `${srv.origin}/partition1/management/appserver/latest`;
    const { json } = await get(`${P}/domainRuntime`);
    assert.deepEqual(json.currentDomainPartitionRuntime, ['domainPartitionRuntimes', 'partition1']);
    const current = href(json, 'currentDomainPartitionRuntime');
    assert.ok(current.endsWith('/domainPartitionRuntimes/partition1'), current);
    assert.equal(current, `${P}/domainRuntime/domainPartitionRuntimes/partition1`);
    for (const l of json.links as Link[]) assert.ok(l.href.startsWith(`${srv.origin}/partition1/management/appserver/`), `${l.rel} drops the prefix: ${l.href}`);
    const partitions = (await get(`${P}/domainRuntime/domainPartitionRuntimes`)).json;
    assert.deepEqual(itemNames(partitions), ['partition1']);
    assert.equal(href(partitions.items[0], 'self'), `${P}/domainRuntime/domainPartitionRuntimes/partition1`);
    const followed = (await get(current)).json;
    assert.deepEqual(followed.identity, ['domainPartitionRuntimes', 'partition1']);
    const other = await call(`${P}/domainRuntime/domainPartitionRuntimes/partition2`);
    assert.equal(other.status, 404);
  });

  test('currentUser reports the partition', async () => {
    const { json } = await get(`${srv.origin}/partition1/management/appserver/latest/currentUser`);
    assert.equal(json.partitionName, 'partition1');
    assert.equal(json.user, 'admin');
    assert.equal(href(json, 'self'), `${srv.origin}/partition1/management/appserver/latest/currentUser`);
    const long = (await get(`${srv.origin}/partitions/partition2/management/appserver/latest/currentUser`)).json;
    assert.equal(long.partitionName, 'partition2');
  });

  test('the version resources keep the prefix', async () => {
    const list = (await get(`${srv.origin}/partition1/management/appserver`)).json;
    assert.equal(href(list, 'self'), `${srv.origin}/partition1/management/appserver`);
    assert.equal(href(list, 'current'), `${srv.origin}/partition1/management/appserver/12.2.1.4.0`);
    const version = (await get(`${srv.origin}/partition1/management/appserver/latest`)).json;
    assert.equal(href(version, 'domainRuntime'), `${srv.origin}/partition1/management/appserver/latest/domainRuntime`);
    assert.equal(href(version, 'parent'), `${srv.origin}/partition1/management/appserver`);
  });

  test('an unknown partition prefix is 404', async () => {
    for (const url of [
      `${srv.origin}/nosuchpartition/management/appserver/latest/domainRuntime`,
      `${srv.origin}/partitions/nosuchpartition/management/appserver/latest`,
    ]) {
      const r = await call(url);
      assert.equal(r.status, 404, url);
      assert.equal(r.json.detail, "'nosuchpartition' was not found.");
    }
  });
});

describe('wire cosmetics', () => {
  test('bodies are pretty-printed with 4 spaces and escape / as \\/', async () => {
    for (const url of [srv.latest, `${srv.latest}/edit/servers`, `${srv.latest}/noSuchTree`]) {
      const r = await call(url);
      assert.equal(r.headers.get('content-type')?.split(';')[0]?.trim(), 'application/json', url);
      assert.equal(r.text, JSON.stringify(r.json, null, 4).replace(/\//g, '\\/'), `${url} is not printed the product's way`);
      assert.ok(r.text.startsWith('{\n    "'), url);
      assert.ok(r.text.includes('"http:\\/\\/'), `${url}: no escaped URL in the raw text`);
      assert.ok(!/[^\\]\//.test(r.text), `${url} has an unescaped /`);
    }
  });

  test('hrefs ignore forwarded headers from a client that is not a trusted proxy', async () => {
    // This server trusts no proxy (the default); test/security/item-15 covers trusted ones.
    const { json } = await get(`${srv.latest}/domainRuntime`, { 'x-forwarded-host': 'admin.example.test', 'x-forwarded-proto': 'https' });
    assert.ok(json.links.length > 3);
    for (const l of json.links as Link[]) assert.ok(l.href.startsWith(srv.latest), `${l.rel}: ${l.href}`);
    assert.equal(href(json, 'self'), `${srv.latest}/domainRuntime`);
    const list = (await get(M, { 'x-forwarded-host': 'admin.example.test', 'x-forwarded-proto': 'https' })).json;
    assert.equal(href(list, 'current'), `${srv.origin}/management/appserver/12.2.1.4.0`);
  });

  test('hrefs follow the Host header', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        `${srv.latest}/currentUser`,
        { headers: { host: 'admin.example.test:7001', authorization: adminAuth, accept: 'application/json' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode} ${text}`))));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const json = JSON.parse(body);
    assert.equal(href(json, 'self'), 'http://admin.example.test:7001/management/appserver/latest/currentUser');
  });
});
