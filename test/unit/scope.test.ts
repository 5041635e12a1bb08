// The scope the resolver gives every bean as it walks a small in-memory tree: the server whose
// runtime tree holds it, and the partition whose collection item its path went through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import { standardBehaviours } from '../../src/behaviour/index.js';
import { isPartitionCollection } from '../../src/behaviour/partition-scope.js';
import { TreeBuilder } from '../../src/tree/builder.js';
import { BeanTree } from '../../src/tree/records.js';
import { type BeanNode, type Mount, Resolver, type TreeRoot } from '../../src/tree/resolve.js';

const catalog = catalogWithOperations();
const behaviours = standardBehaviours(catalog);
const resolver = new Resolver(catalog, behaviours);
const C = 'appserver.management.configuration.';
const R = 'appserver.management.runtime.';

/** ms1's runtime tree: a partition runtime with a data source, and a data source of the domain. */
function serverTree(name: string): BeanTree {
  const b = new TreeBuilder(catalog, new BeanTree());
  const root = b.root(`${R}ServerRuntimeMBean`, { name });
  const pr = b.item(root, 'partitionRuntimes', 'p1');
  b.item(b.singleton(pr, 'JDBCPartitionRuntime'), 'JDBCDataSourceRuntimeMBeans', 'ds1');
  b.item(b.singleton(root, 'JDBCServiceRuntime'), 'JDBCDataSourceRuntimeMBeans', 'dsD');
  return b.tree;
}

function serverRoot(name: string, base: string[]): TreeRoot {
  return { name: 'serverRuntime', source: serverTree(name), type: catalog.type(`${R}ServerRuntimeMBean`), base, server: name, editable: false };
}

/** The domain runtime: two partitions with a resource group each, a domain resource group, ms1 mounted. */
function domainRuntime(filter?: TreeRoot['filter']): TreeRoot {
  const b = new TreeBuilder(catalog, new BeanTree());
  const root = b.root(`${R}DomainRuntimeMBean`, { name: 'd' });
  for (const p of ['p1', 'p2']) {
    const plc = b.singleton(b.item(root, 'domainPartitionRuntimes', p), 'partitionLifeCycleRuntime', { name: p });
    b.item(plc, 'resourceGroupLifeCycleRuntimes', `rg-${p}`);
  }
  b.item(root, 'resourceGroupLifeCycleRuntimes', 'rgD');
  b.item(root, 'serverLifeCycleRuntimes', 'ms1');
  const servers: Mount = { names: () => ['ms1'], root: (s) => (s === 'ms1' ? serverRoot(s, ['domainRuntime', 'serverRuntimes', s]) : undefined) };
  return {
    name: 'domainRuntime',
    source: b.tree,
    type: catalog.type(`${R}DomainRuntimeMBean`),
    base: ['domainRuntime'],
    mounts: new Map([['serverRuntimes', servers]]),
    editable: false,
    ...(filter ? { filter } : {}),
  };
}

function configTree(): TreeRoot {
  const b = new TreeBuilder(catalog, new BeanTree());
  const root = b.root(`${C}DomainMBean`, { name: 'd' });
  b.item(root, 'servers', 'ms1');
  b.item(b.item(root, 'partitions', 'p1'), 'resourceGroups', 'rg1');
  return { name: 'domainConfig', source: b.tree, type: catalog.type(`${C}DomainMBean`), base: ['domainConfig'], editable: false };
}

function bean(root: TreeRoot, path: string): BeanNode {
  const target = resolver.resolve(root, path === '' ? [] : path.split('/'), 'current');
  assert.equal(target.kind, 'bean', `${path} names a bean`);
  return (target as { node: BeanNode }).node;
}

const scopeOf = (root: TreeRoot, path: string) => ({ ...bean(root, path).scope });

describe('bean scope', () => {
  test('beans of the domain have none', () => {
    const dr = domainRuntime();
    assert.deepEqual(scopeOf(dr, ''), {});
    assert.deepEqual(scopeOf(dr, 'serverLifeCycleRuntimes/ms1'), {});
    assert.deepEqual(scopeOf(dr, 'resourceGroupLifeCycleRuntimes/rgD'), {});
    assert.deepEqual(scopeOf(configTree(), 'servers/ms1'), {});
  });

  test('the item of a partition-scoped collection puts itself and what lies below it in its partition', () => {
    const dr = domainRuntime();
    assert.deepEqual(scopeOf(dr, 'domainPartitionRuntimes/p1'), { partition: 'p1' });
    assert.deepEqual(scopeOf(dr, 'domainPartitionRuntimes/p2/partitionLifeCycleRuntime'), { partition: 'p2' });
    assert.deepEqual(scopeOf(dr, 'domainPartitionRuntimes/p1/partitionLifeCycleRuntime/resourceGroupLifeCycleRuntimes/rg-p1'), { partition: 'p1' });
    assert.deepEqual(scopeOf(configTree(), 'partitions/p1/resourceGroups/rg1'), { partition: 'p1' });
  });

  test("a server's runtime tree puts every bean on that server, wherever the tree is mounted", () => {
    const own = serverRoot('AdminServer', ['serverRuntime']);
    assert.deepEqual(scopeOf(own, ''), { server: 'AdminServer' });
    assert.deepEqual(scopeOf(own, 'JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans/dsD'), { server: 'AdminServer' });
    const dr = domainRuntime();
    assert.deepEqual(scopeOf(dr, 'serverRuntimes/ms1'), { server: 'ms1' });
    // An always-present singleton nobody stored is in its owner's scope too.
    assert.deepEqual(scopeOf(dr, 'serverRuntimes/ms1/JVMRuntime'), { server: 'ms1' });
    assert.deepEqual(scopeOf(dr, 'serverRuntimes/ms1/partitionRuntimes/p1'), { server: 'ms1', partition: 'p1' });
    assert.deepEqual(scopeOf(dr, 'serverRuntimes/ms1/partitionRuntimes/p1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/ds1'), { server: 'ms1', partition: 'p1' });
    assert.deepEqual(scopeOf(dr, 'serverRuntimes/ms1/JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans/dsD'), { server: 'ms1' });
  });

  test('collection listings carry the same scopes as single lookups', () => {
    const dr = domainRuntime();
    const owner = bean(dr, '');
    const items = resolver.items(owner, owner.type.prop.get('domainPartitionRuntimes')!);
    assert.deepEqual(
      items.map((n) => [n.identity.at(-1), { ...n.scope }]),
      [
        ['p1', { partition: 'p1' }],
        ['p2', { partition: 'p2' }],
      ],
    );
    const mounted = resolver.mountedItems(dr.mounts!.get('serverRuntimes')!);
    assert.deepEqual(mounted.map((n) => ({ ...n.scope })), [{ server: 'ms1' }]);
  });

  test("a partition-scoped request sees its own partition's items, and the domain's beans keep the domain's scope", () => {
    const dr = domainRuntime((prop, name) => !isPartitionCollection(behaviours, prop) || name === 'p1');
    assert.deepEqual(scopeOf(dr, 'domainPartitionRuntimes/p1/partitionLifeCycleRuntime'), { partition: 'p1' });
    assert.throws(() => resolver.resolve(dr, ['domainPartitionRuntimes', 'p2'], 'current'), /'p2' was not found/);
    assert.deepEqual(scopeOf(dr, 'resourceGroupLifeCycleRuntimes/rgD'), {});
    const owner = bean(dr, '');
    assert.deepEqual(
      resolver.items(owner, owner.type.prop.get('domainPartitionRuntimes')!).map((n) => n.identity.at(-1)),
      ['p1'],
    );
  });
});
