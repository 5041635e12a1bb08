// The type-behaviour registry (inheritance, most specific first, lookups resolved once per type)
// and the product's behaviours as registered on the real catalog.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Catalog } from '../../src/catalog/load.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import type { CatalogType } from '../../src/catalog/format.js';
import type { TypeDef } from '../../src/catalog/model.js';
import { CHANGE_MANAGER } from '../../src/catalog/overlay/rest-only.js';
import type { BeanScope, BeanView } from '../../src/behaviour/bean.js';
import { checkDelete, checkUpdate } from '../../src/behaviour/config-rules.js';
import { isCreateOnly } from '../../src/behaviour/create-only.js';
import { deployable, deploysThrough } from '../../src/behaviour/deployables.js';
import { type DerivedContext, derivedValues } from '../../src/behaviour/derived-values.js';
import { standardBehaviours } from '../../src/behaviour/index.js';
import { isPartitionCollection } from '../../src/behaviour/partition-scope.js';
import { BehaviourKind, BehaviourRegistry } from '../../src/behaviour/registry.js';
import { type ActivationChange, runtimeEffect } from '../../src/behaviour/runtime-effects.js';
import { stateMachineOf } from '../../src/behaviour/state-machines.js';
import { isProblem } from '../../src/core/problems.js';

// ---- the registry, on a small made-up hierarchy ----

/** Base <- Mid <- Leaf; Other stands apart; Mixed inherits from Mid and Other; Diamond names Base before Mid. */
function tinyCatalog(): Catalog {
  const t = (s: string, b: string[] = []): CatalogType => ({ s, kind: 'config', b, p: [{ n: 'name', t: 'java.lang.String', k: 1 }] });
  return new Catalog(
    { source: 'test', version: '0', types: { Base: t('Base'), Mid: t('Mid', ['Base']), Leaf: t('Leaf', ['Mid']), Other: t('Other'), Mixed: t('Mixed', ['Mid', 'Other']), Diamond: t('Diamond', ['Base', 'Mid']) } },
    { types: {}, patches: {} },
  );
}

/** Counts the walks of a type's ancestors. */
class CountingSet extends Set<string> {
  walks = 0;
  override [Symbol.iterator](): SetIterator<string> {
    this.walks++;
    return super[Symbol.iterator]();
  }
}

function counted(type: TypeDef): CountingSet {
  const set = new CountingSet(type.ancestors);
  type.ancestors = set;
  return set;
}

describe('behaviour registry', () => {
  const LABEL = new BehaviourKind<string>('label');

  test('a behaviour registered on a base type reaches every subtype, and nothing else', () => {
    const catalog = tinyCatalog();
    const registry = new BehaviourRegistry(catalog);
    registry.register(LABEL, 'Base', 'from Base');
    assert.equal(registry.find(LABEL, catalog.type('Base')), 'from Base');
    assert.equal(registry.find(LABEL, catalog.type('Mid')), 'from Base');
    assert.equal(registry.find(LABEL, catalog.type('Leaf')), 'from Base');
    assert.equal(registry.find(LABEL, catalog.type('Mixed')), 'from Base');
    assert.equal(registry.find(LABEL, catalog.type('Other')), undefined);
  });

  test('the nearest registration wins; all() lists the lineage, most specific first', () => {
    const catalog = tinyCatalog();
    const registry = new BehaviourRegistry(catalog);
    registry.register(LABEL, 'Base', 'base');
    registry.register(LABEL, 'Mid', 'mid');
    registry.register(LABEL, 'Other', 'other');
    assert.equal(registry.find(LABEL, catalog.type('Leaf')), 'mid');
    assert.deepEqual(registry.all(LABEL, catalog.type('Leaf')), ['mid', 'base']);
    assert.equal(registry.find(LABEL, catalog.type('Base')), 'base');
    // Two inheritance lines: the deeper one first (Mid has an ancestor, Other none), then the rest.
    assert.deepEqual(registry.all(LABEL, catalog.type('Mixed')), ['mid', 'base', 'other']);
    registry.register(LABEL, 'Leaf', 'leaf');
    assert.deepEqual(registry.all(LABEL, catalog.type('Leaf')), ['leaf', 'mid', 'base']);
  });

  test('a subtype comes before its base however the hierarchy lists them', () => {
    const catalog = tinyCatalog();
    const registry = new BehaviourRegistry(catalog);
    registry.register(LABEL, 'Base', 'base');
    registry.register(LABEL, 'Mid', 'mid');
    // Diamond names Base first among its bases, but Mid is a Base: Mid is the nearer.
    assert.equal([...catalog.type('Diamond').ancestors][0], 'Base');
    assert.equal(registry.find(LABEL, catalog.type('Diamond')), 'mid');
    assert.deepEqual(registry.all(LABEL, catalog.type('Diamond')), ['mid', 'base']);
  });

  test('kinds are independent of each other', () => {
    const catalog = tinyCatalog();
    const registry = new BehaviourRegistry(catalog);
    const COUNT = new BehaviourKind<number>('count');
    registry.register(LABEL, 'Base', 'base');
    registry.register(COUNT, 'Leaf', 3);
    assert.equal(registry.find(COUNT, catalog.type('Leaf')), 3);
    assert.equal(registry.find(COUNT, catalog.type('Mid')), undefined);
    assert.equal(registry.find(LABEL, catalog.type('Leaf')), 'base');
  });

  test('a type is resolved once: later lookups do not walk its hierarchy again', () => {
    const catalog = tinyCatalog();
    const registry = new BehaviourRegistry(catalog);
    registry.register(LABEL, 'Base', 'base');
    const leaf = catalog.type('Leaf');
    const ancestors = counted(leaf);
    const first = registry.all(LABEL, leaf);
    assert.equal(ancestors.walks, 1);
    for (let i = 0; i < 100; i++) assert.equal(registry.find(LABEL, leaf), 'base');
    assert.equal(registry.all(LABEL, leaf), first, 'the same resolved list every time');
    assert.equal(ancestors.walks, 1);
    // A registration made afterwards is seen: the kind's lookups are resolved again.
    registry.register(LABEL, 'Mid', 'mid');
    assert.equal(registry.find(LABEL, leaf), 'mid');
    assert.equal(ancestors.walks, 2);
  });

  test('registering a type twice, or a type the catalog lacks, is refused at once', () => {
    const registry = new BehaviourRegistry(tinyCatalog());
    registry.register(LABEL, 'Mid', 'one');
    assert.throws(() => registry.register(LABEL, 'Mid', 'two'), /Mid already has a behaviour 'label'/);
    assert.throws(() => registry.register(LABEL, 'Missing', 'x'), /unknown bean type Missing/);
  });
});

// ---- the product's behaviours ----

const catalog = catalogWithOperations();
const behaviours = standardBehaviours(catalog);
const C = 'appserver.management.configuration.';
const R = 'appserver.management.runtime.';
const type = (name: string) => catalog.type(name.includes('.') ? name : name.endsWith('RuntimeMBean') ? `${R}${name}` : `${C}${name}`);

describe('create-only properties', () => {
  test('are found on the type and through its ancestors', () => {
    assert.ok(isCreateOnly(behaviours, type('PartitionMBean'), 'partitionID'));
    assert.ok(isCreateOnly(behaviours, type('AppDeploymentMBean'), 'planPath'));
    // A library is an application deployment, which is a basic deployment.
    assert.ok(isCreateOnly(behaviours, type('LibraryMBean'), 'planPath'));
    assert.ok(isCreateOnly(behaviours, type('LibraryMBean'), 'sourcePath'));
    assert.ok(isCreateOnly(behaviours, type('JDBCSystemResourceMBean'), 'sourcePath'));
    assert.ok(!isCreateOnly(behaviours, type('JDBCSystemResourceMBean'), 'planPath'));
    assert.ok(!isCreateOnly(behaviours, type('ServerMBean'), 'sourcePath'));
  });
});

describe('deployables', () => {
  test("the domain's application deployments and libraries go through the deployment service", () => {
    assert.ok(deploysThrough(behaviours, type('DomainMBean'), 'appDeployments'));
    assert.deepEqual(deployable(behaviours, type('DomainMBean'), 'libraries'), { deploys: true, what: 'library' });
    assert.equal(deployable(behaviours, type('DomainMBean'), 'servers'), undefined);
    assert.equal(deployable(behaviours, type('DomainMBean'), '__proto__'), undefined);
  });

  test('a resource group holds deployables through its base type, the resource group template', () => {
    assert.deepEqual(deployable(behaviours, type('ResourceGroupMBean'), 'appDeployments'), { deploys: false, what: 'application' });
    assert.deepEqual(deployable(behaviours, type('ResourceGroupTemplateMBean'), 'libraries'), { deploys: false, what: 'library' });
    assert.ok(!deploysThrough(behaviours, type('ResourceGroupMBean'), 'appDeployments'));
  });
});

describe('partition-scoped collections', () => {
  test('are the collections of partitions, in every tree', () => {
    const child = (owner: string, prop: string) => type(owner).prop.get(prop)!;
    assert.ok(isPartitionCollection(behaviours, child('DomainMBean', 'partitions')));
    assert.ok(isPartitionCollection(behaviours, child('DomainRuntimeMBean', 'domainPartitionRuntimes')));
    assert.ok(isPartitionCollection(behaviours, child('ServerRuntimeMBean', 'partitionRuntimes')));
    assert.ok(!isPartitionCollection(behaviours, child('DomainMBean', 'servers')));
    assert.ok(!isPartitionCollection(behaviours, child('PartitionMBean', 'resourceGroups')));
  });
});

describe('configuration rules', () => {
  const view = (beans: Record<string, Record<string, unknown>>) => ({ bean: (key: string) => (Object.hasOwn(beans, key) ? { values: beans[key]! } : undefined) });
  const domain = view({ '': { adminServerName: 'AdminServer' }, 'servers/AdminServer': {}, 'servers/ms1': {} });

  test('the administration server cannot be deleted; other servers can', () => {
    const err = catchProblem(() => checkDelete(behaviours, type('ServerMBean'), domain, 'servers/AdminServer'));
    assert.equal(err.kind, 'invalid');
    assert.match(err.message, /'AdminServer' is the administration server of the domain and cannot be deleted/);
    checkDelete(behaviours, type('ServerMBean'), domain, 'servers/ms1');
    checkDelete(behaviours, type('ClusterMBean'), domain, 'servers/AdminServer');
  });

  test('the domain must name an administration server it has', () => {
    const err = catchProblem(() => checkUpdate(behaviours, type('DomainMBean'), domain, '', { adminServerName: 'nobody' }));
    assert.deepEqual(err.details, [{ path: 'adminServerName', detail: "There is no server named 'nobody' to be the administration server." }]);
    checkUpdate(behaviours, type('DomainMBean'), domain, '', { adminServerName: 'ms1' });
    checkUpdate(behaviours, type('DomainMBean'), domain, '', { notes: 'no server named' });
  });
});

describe('runtime effects of configuration changes', () => {
  const cases: [string, ActivationChange, ReturnType<typeof runtimeEffect>][] = [
    ['the domain renamed', { operation: 'modify', identity: [], properties: [{ name: 'name' }] }, 'all'],
    ['a domain note', { operation: 'modify', identity: [], properties: [{ name: 'notes' }] }, 'none'],
    ['a server made', { operation: 'create', identity: ['servers', 'ms9'] }, { server: 'ms9' }],
    ['a server removed', { operation: 'delete', identity: ['servers', 'ms9'] }, { server: 'ms9' }],
    ["a server's port", { operation: 'modify', identity: ['servers', 'ms1'], properties: [{ name: 'listenPort' }] }, { server: 'ms1' }],
    ["a server's notes", { operation: 'modify', identity: ['servers', 'ms1'], properties: [{ name: 'notes' }] }, 'none'],
    ["a server's cluster", { operation: 'modify', identity: ['servers', 'ms1'], properties: [{ name: 'cluster' }] }, { placed: ['servers', 'ms1'] }],
    ["a server's log", { operation: 'modify', identity: ['servers', 'ms1', 'log'], properties: [{ name: 'fileName' }] }, 'none'],
    ['a cluster', { operation: 'create', identity: ['clusters', 'c1'] }, { placed: ['clusters', 'c1'] }],
    ["a cluster's dynamic servers", { operation: 'modify', identity: ['clusters', 'c1', 'dynamicServers'], properties: [{ name: 'maxDynamicClusterSize' }] }, { placed: ['clusters', 'c1'] }],
    ['a unix machine made', { operation: 'create', identity: ['machines', 'm1'] }, 'all'],
    ['a machine changed', { operation: 'modify', identity: ['machines', 'm1'], properties: [{ name: 'notes' }] }, { placed: ['machines', 'm1'] }],
    ['a migratable target', { operation: 'modify', identity: ['migratableTargets', 'mt1'], properties: [{ name: 'notes' }] }, 'all'],
    ['a library', { operation: 'delete', identity: ['libraries', 'lib1'] }, { placed: ['libraries', 'lib1'] }],
    ["a partition's resource group", { operation: 'create', identity: ['partitions', 'p1', 'resourceGroups', 'rg1'] }, { placed: ['partitions', 'p1'] }],
    ['a data source', { operation: 'modify', identity: ['JDBCSystemResources', 'ds1'], properties: [{ name: 'targets' }] }, { placed: ['JDBCSystemResources', 'ds1'] }],
    ['a JDBC store', { operation: 'modify', identity: ['JDBCStores', 'st1'], properties: [{ name: 'targets' }] }, { placed: ['JDBCStores', 'st1'] }],
    ["a JMS module's queue", { operation: 'create', identity: ['JMSSystemResources', 'jms1', 'JMSResource', 'queues', 'q1'] }, { placed: ['JMSSystemResources', 'jms1'] }],
    ["a data source's descriptor", { operation: 'modify', identity: ['JDBCSystemResources', 'ds1', 'JDBCResource'] }, 'none'],
    ['a mail session', { operation: 'create', identity: ['mailSessions', 'mail1'] }, 'none'],
    ['the domain log', { operation: 'modify', identity: ['log'], properties: [{ name: 'fileName' }] }, 'none'],
  ];
  for (const [what, change, effect] of cases) {
    test(`${what}: ${typeof effect === 'string' ? effect : 'server' in effect ? `server ${effect.server}` : `where ${effect.placed.join('/')} shows`}`, () => {
      assert.deepEqual(runtimeEffect(behaviours, change), effect);
    });
  }
});

describe('state machines', () => {
  test('the lifecycle runtime types say which states and transitions they have', () => {
    const server = stateMachineOf(behaviours, type('ServerLifeCycleRuntimeMBean'))!;
    assert.ok(server.states.includes('SHUTDOWN') && server.states.includes('FORCE_SHUTTING_DOWN'));
    assert.deepEqual(server.transitions.get('start')?.from, ['SHUTDOWN', 'FAILED']);
    assert.equal(server.transitions.get('start')?.to, 'RUNNING');
    const partition = stateMachineOf(behaviours, type('PartitionLifeCycleRuntimeMBean'))!;
    assert.ok(partition.states.includes('BOOTED') && partition.states.includes('FORCE_RESTARTING'));
    assert.equal(partition.transitions.get('boot')?.to, 'BOOTED');
    const group = stateMachineOf(behaviours, type('ResourceGroupLifeCycleRuntimeMBean'))!;
    assert.deepEqual([...group.transitions.keys()].sort(), ['forceShutdown', 'forceSuspend', 'resume', 'shutdown', 'start', 'startInAdmin', 'suspend']);
    assert.equal(stateMachineOf(behaviours, type('ServerMBean')), undefined);
  });

  test('every state a transition names is one of the machine states', () => {
    for (const t of ['ServerLifeCycleRuntimeMBean', 'PartitionLifeCycleRuntimeMBean', 'ResourceGroupLifeCycleRuntimeMBean']) {
      const m = stateMachineOf(behaviours, type(t))!;
      for (const [op, tr] of m.transitions) {
        for (const s of [...tr.from, tr.via, tr.to, ...(tr.already ?? [])]) assert.ok(m.states.includes(s), `${t} ${op}: ${s}`);
      }
    }
  });
});

describe('derived values', () => {
  const calls: string[] = [];
  const ctx: DerivedContext = {
    runtime: {
      serverState: (s) => (calls.push(`serverState ${s}`), 'RUNNING'),
      serverStateVal: () => 2,
      partitionState: (p) => (calls.push(`partitionState ${p}`), { state: 'RUNNING', subState: null }),
      partitionStateOn: (p, s) => (calls.push(`partitionStateOn ${p} ${s}`), { state: 'ADMIN', subState: null }),
      resourceGroupState: (p, g) => (calls.push(`resourceGroupState '${p}' ${g}`), 'SHUTDOWN'),
      dataSourceFigures: (s, p, d) => (calls.push(`dataSource ${s} '${p}' ${d}`), { state: 'Running' }),
      jdbcServiceFigures: (s) => (calls.push(`jdbc ${s}`), { healthState: { state: 'ok' } }),
      poolFigures: (s, pool, adapter) => (calls.push(`pool ${s} ${pool} ${adapter}`), { state: 'Running' }),
      adapterFigures: (s, a) => (calls.push(`adapter ${s} ${a}`), { state: 'Activated' }),
      jmsFigures: (j, d) => (calls.push(`jms ${j} ${d ?? '-'}`), { productionPaused: false }),
    },
    adminServer: 'AdminServer',
    process: { jvm: () => ({ heapSizeCurrent: 1 }), threadPool: () => ({ completedRequestCount: 5 }), openSockets: () => 3 },
    lockouts: () => ({ userLockoutTotalCount: 4 }),
    editSession: (name) => (name === 's1' ? { currentEditor: 'ann', mergeNeeded: false } : undefined),
  };
  const bean = (t: string, identity: string[], scope: BeanScope, values?: Record<string, unknown>): BeanView => ({
    type: t === CHANGE_MANAGER ? catalog.type(t) : type(t),
    key: identity.join('/'),
    identity,
    scope,
    ...(values ? { record: { values } } : {}),
  });
  const derive = (b: BeanView, c: DerivedContext = ctx) => {
    calls.length = 0;
    return derivedValues(behaviours, b, c);
  };

  test("a server's runtime root shows its state; the administration server's also this process's sockets", () => {
    assert.deepEqual(derive(bean('ServerRuntimeMBean', [], { server: 'ms1' })), { state: 'RUNNING', stateVal: 2 });
    assert.deepEqual(calls, ['serverState ms1']);
    assert.deepEqual(derive(bean('ServerRuntimeMBean', [], { server: 'AdminServer' })), { state: 'RUNNING', stateVal: 2, openSocketsCurrentCount: 3 });
  });

  test("this process's JVM and thread pool show in the administration server's tree only", () => {
    assert.deepEqual(derive(bean('JVMRuntimeMBean', ['JVMRuntime'], { server: 'AdminServer' })), { heapSizeCurrent: 1 });
    assert.equal(derive(bean('JVMRuntimeMBean', ['JVMRuntime'], { server: 'ms1' })), undefined);
    assert.deepEqual(derive(bean('ThreadPoolRuntimeMBean', ['threadPoolRuntime'], { server: 'AdminServer' })), { completedRequestCount: 5 });
    assert.equal(derive(bean('ThreadPoolRuntimeMBean', ['threadPoolRuntime'], {})), undefined);
  });

  test('states are read for the partition and server the scope names', () => {
    derive(bean('PartitionLifeCycleRuntimeMBean', ['domainPartitionRuntimes', 'p1', 'partitionLifeCycleRuntime'], { partition: 'p1' }));
    assert.deepEqual(calls, ['partitionState p1']);
    derive(bean('ResourceGroupLifeCycleRuntimeMBean', ['domainPartitionRuntimes', 'p1', 'partitionLifeCycleRuntime', 'resourceGroupLifeCycleRuntimes', 'rg1'], { partition: 'p1' }));
    assert.deepEqual(calls, ["resourceGroupState 'p1' rg1"]);
    derive(bean('ResourceGroupLifeCycleRuntimeMBean', ['resourceGroupLifeCycleRuntimes', 'rgD'], {}));
    assert.deepEqual(calls, ["resourceGroupState '' rgD"]);
    derive(bean('PartitionRuntimeMBean', ['partitionRuntimes', 'p1'], { server: 'ms1', partition: 'p1' }));
    assert.deepEqual(calls, ['partitionStateOn p1 ms1']);
    derive(bean('JDBCDataSourceRuntimeMBean', ['partitionRuntimes', 'p1', 'JDBCPartitionRuntime', 'JDBCDataSourceRuntimeMBeans', 'ds1'], { server: 'ms1', partition: 'p1' }));
    assert.deepEqual(calls, ["dataSource ms1 'p1' ds1"]);
    derive(bean('JDBCDataSourceRuntimeMBean', ['JDBCServiceRuntime', 'JDBCDataSourceRuntimeMBeans', 'ds2'], { server: 'ms1' }));
    assert.deepEqual(calls, ["dataSource ms1 '' ds2"]);
    derive(bean('ServerLifeCycleRuntimeMBean', ['serverLifeCycleRuntimes', 'ms2'], {}));
    assert.deepEqual(calls, ['serverState ms2']);
  });

  test('a resource adapter and its pool are read on their server', () => {
    derive(bean('ConnectorComponentRuntimeMBean', ['applicationRuntimes', 'ra', 'componentRuntimes', 'ra'], { server: 'ms1' }));
    assert.deepEqual(calls, ['adapter ms1 ra']);
    derive(bean('ConnectorConnectionPoolRuntimeMBean', ['connectorServiceRuntime', 'RAs', 'ra', 'connectionPools', 'eis/ra'], { server: 'ms1' }, { poolName: 'eis/ra' }));
    assert.deepEqual(calls, ['pool ms1 eis/ra ra']);
    assert.equal(derive(bean('ConnectorConnectionPoolRuntimeMBean', ['connectionPools', 'x'], {})), undefined);
  });

  test('request-wide values: lockouts, edit sessions, the change manager, the partition of the request', () => {
    assert.deepEqual(derive(bean('UserLockoutManagerRuntimeMBean', ['x'], { server: 'ms1' })), { userLockoutTotalCount: 4 });
    assert.deepEqual(derive(bean('EditSessionConfigurationRuntimeMBean', ['editSessionConfigurationManager', 'editSessionConfigurations', 's1'], {}, { name: 's1' })), {
      currentEditor: 'ann',
      mergeNeeded: false,
    });
    assert.equal(derive(bean('EditSessionConfigurationRuntimeMBean', ['editSessionConfigurationManager', 'editSessionConfigurations', 's2'], {}, { name: 's2' })), undefined);
    assert.equal(derive(bean(CHANGE_MANAGER, ['changeManager'], {})), undefined);
    assert.deepEqual(derive(bean(CHANGE_MANAGER, ['changeManager'], {}), { ...ctx, changeManager: () => ({ locked: true }) }), { locked: true });
    assert.equal(derive(bean('DomainRuntimeMBean', [], {})), undefined);
    assert.deepEqual(derive(bean('DomainRuntimeMBean', [], {}), { ...ctx, partition: 'p1' }), { currentDomainPartitionRuntime: ['domainPartitionRuntimes', 'p1'] });
  });

  test('types without derived values have none', () => {
    assert.equal(derive(bean('ServerMBean', ['servers', 'ms1'], {})), undefined);
  });
});

function catchProblem(fn: () => void) {
  try {
    fn();
  } catch (err) {
    if (isProblem(err)) return err;
    throw err;
  }
  assert.fail('no problem was raised');
}
