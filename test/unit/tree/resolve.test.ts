// Path resolution (src/tree/resolve.ts) over small in-memory trees and the real catalog: what each
// path names, how singletons are synthesised, how collections keep their order and their scope.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProblem } from '../../../src/core/problems.js';
import { BeanTree } from '../../../src/tree/records.js';
import { TreeBuilder } from '../../../src/tree/builder.js';
import { CFG, DEFAULT_AUTHENTICATOR, RT, beanAt, catalog, configRoot, domainRuntimeRoot, resolver, serverRuntimeTree, smallDomain, targetAt } from '../../support/small-tree.js';

const { tree } = smallDomain();
const edit = configRoot(tree);

/** The segment a path is refused on, checked to be a 404. */
function notFoundAt(root: Parameters<typeof resolver.resolve>[0], segments: string[], version: 'current' | 'legacy' = 'current'): string {
  let target;
  try {
    target = resolver.resolve(root, segments, version);
  } catch (err) {
    assert.ok(isProblem(err, 'not-found'), String(err));
    return err.details[0]!.detail;
  }
  assert.fail(`${segments.join('/')} names a ${target.kind}`);
}

test('no segment names the root bean', () => {
  const root = beanAt(edit, []);
  assert.equal(root.type.name, `${CFG}DomainMBean`);
  assert.equal(root.key, '');
  assert.deepEqual(root.identity, []);
  assert.deepEqual(root.path, ['edit']);
  assert.deepEqual(root.parentPath, []);
  assert.equal(root.record?.values.name, 'd1');
  assert.equal(root.via, undefined);
});

test('an item has its identity, key, URL path and record', () => {
  const ms1 = beanAt(edit, ['servers', 'ms1']);
  assert.equal(ms1.type.name, `${CFG}ServerMBean`);
  assert.deepEqual(ms1.identity, ['servers', 'ms1']);
  assert.equal(ms1.key, 'servers/ms1');
  assert.deepEqual(ms1.path, ['edit', 'servers', 'ms1']);
  assert.deepEqual(ms1.parentPath, ['edit', 'servers']);
  assert.equal(ms1.via?.name, 'servers');
  assert.equal(ms1.record?.values.listenPort, 7003);
});

test('an item takes its concrete type from its record', () => {
  assert.equal(beanAt(edit, ['machines', 'm1']).type.short, 'UnixMachine');
  const provider = beanAt(edit, ['securityConfiguration', 'realms', 'myrealm', 'authenticationProviders', 'DefaultAuthenticator']);
  assert.equal(provider.type.name, DEFAULT_AUTHENTICATOR);
});

test('a collection path names the collection and its owner', () => {
  const target = targetAt(edit, ['servers'], 'collection');
  assert.equal(target.prop.name, 'servers');
  assert.equal(target.owner.key, '');
  assert.deepEqual(target.path, ['edit', 'servers']);
  assert.equal(target.mount, undefined);
});

test('items come in creation order, not sorted', () => {
  const root = beanAt(edit, []);
  const names = resolver.items(root, root.type.prop.get('servers')!).map((n) => n.identity.at(-1));
  assert.deepEqual(names, ['AdminServer', 'ms2', 'ms1']);
});

test('an empty collection has no items and still resolves', () => {
  const root = beanAt(edit, []);
  assert.deepEqual(resolver.items(root, root.type.prop.get('virtualTargets')!), []);
  targetAt(edit, ['virtualTargets'], 'collection');
});

test('an always-present singleton nobody configured is synthesised, named after its owner', () => {
  const log = beanAt(edit, ['servers', 'ms1', 'log']);
  assert.equal(log.record, undefined, 'no record: every value is a default');
  assert.equal(log.type.short, 'Log');
  assert.equal(log.parentName, 'ms1');
  assert.deepEqual(log.identity, ['servers', 'ms1', 'log']);
  assert.deepEqual(log.parentPath, ['edit', 'servers', 'ms1']);
  // Deeper singletons below a synthesised one still resolve, with the nearest name.
  const security = beanAt(edit, ['securityConfiguration']);
  assert.equal(security.record, undefined);
  assert.equal(security.parentName, 'd1');
});

test('a configured singleton is served from its record', () => {
  const nm = beanAt(edit, ['machines', 'm1', 'nodeManager']);
  assert.equal(nm.record?.values.listenPort, 5556);
  assert.equal(nm.parentName, 'm1');
});

test('items below an unconfigured singleton resolve', () => {
  const realm = beanAt(edit, ['securityConfiguration', 'realms', 'myrealm']);
  assert.equal(realm.record?.values.name, 'myrealm');
  assert.deepEqual(realm.path, ['edit', 'securityConfiguration', 'realms', 'myrealm']);
});

test('an optional singleton not created is absent: the path names its place, nothing below it', () => {
  const path = ['securityConfiguration', 'realms', 'myrealm', 'adjudicator'];
  const absent = targetAt(edit, path, 'absent');
  assert.equal(absent.prop.name, 'adjudicator');
  assert.equal(absent.owner.key, 'securityConfiguration/realms/myrealm');
  assert.deepEqual(absent.path, ['edit', ...path]);
  assert.equal(resolver.singleton(absent.owner, absent.prop), undefined);
  assert.match(notFoundAt(edit, [...path, 'name']), /'adjudicator'/);
});

test('an optional singleton once created resolves as a bean', () => {
  const { tree: t } = smallDomain();
  t.putSingleton('securityConfiguration/realms/myrealm', 'adjudicator', { type: 'appserver.security.providers.authorization.DefaultAdjudicatorMBean', values: { name: 'DefaultAdjudicator' } });
  const node = beanAt(configRoot(t), ['securityConfiguration', 'realms', 'myrealm', 'adjudicator']);
  assert.equal(node.type.short, 'DefaultAdjudicator');
});

test('an unknown item is not found, naming it', () => {
  assert.match(notFoundAt(edit, ['servers', 'ms9']), /'ms9'/);
  assert.match(notFoundAt(edit, ['servers', 'ms9', 'log']), /'ms9'/);
});

test('a name that is no child, a scalar property, or a key-less path is not found', () => {
  assert.match(notFoundAt(edit, ['nope']), /'nope'/);
  assert.match(notFoundAt(edit, ['name']), /'name'/, 'a property is not a resource');
  assert.match(notFoundAt(edit, ['servers', 'ms1', 'listenPort']), /'listenPort'/);
  assert.match(notFoundAt(edit, ['servers', 'ms1', 'cluster']), /'cluster'/, 'a reference is not a child');
  assert.match(notFoundAt(edit, ['__proto__']), /__proto__/);
  assert.match(notFoundAt(edit, ['servers', '__proto__']), /__proto__/);
});

test('names are matched exactly, encoded "/" and unicode included', () => {
  const builder = new TreeBuilder(catalog, new BeanTree());
  const domain = builder.root(`${CFG}DomainMBean`, { name: 'd' });
  for (const name of ['a/b', 'ünïcødé', '日本', '__proto__', 'Ms1']) builder.item(domain, 'clusters', name, {});
  const root = configRoot(builder.tree);
  for (const name of ['a/b', 'ünïcødé', '日本', '__proto__', 'Ms1']) {
    const node = beanAt(root, ['clusters', name]);
    assert.deepEqual(node.identity, ['clusters', name]);
  }
  notFoundAt(root, ['clusters', 'a']);
  notFoundAt(root, ['clusters', 'ms1']);
  notFoundAt(root, ['clusters', 'a%2Fb']);
});

test('a partition-scoped root hides the other partitions\' items', () => {
  const scoped = configRoot(tree, 'edit', { filter: (prop, name) => prop.name !== 'partitions' || name === 'p1' });
  const root = beanAt(scoped, []);
  assert.deepEqual(resolver.items(root, root.type.prop.get('partitions')!).map((n) => n.identity.at(-1)), ['p1']);
  beanAt(scoped, ['partitions', 'p1', 'resourceGroups', 'p1-rg']);
  assert.match(notFoundAt(scoped, ['partitions', 'p2']), /'p2'/);
  notFoundAt(scoped, ['partitions', 'p2', 'resourceGroups', 'p2-rg']);
  assert.equal(resolver.items(root, root.type.prop.get('servers')!).length, 3, 'other collections are untouched');
});

test('actions of a bean\'s type resolve to their declaration', () => {
  const target = targetAt(edit, ['changeManager', 'activate'], 'action');
  assert.equal(target.op.name, 'activate');
  assert.equal(target.node.type.name, 'appserver.management.rest.ChangeManager');
  assert.deepEqual(target.path, ['edit', 'changeManager', 'activate']);
  notFoundAt(edit, ['changeManager', 'noSuchAction']);
});

test('a child only the edit tree has is not found elsewhere', () => {
  beanAt(edit, ['changeManager']);
  assert.match(notFoundAt(configRoot(tree, 'serverConfig'), ['changeManager']), /'changeManager'/);
  notFoundAt(configRoot(tree, 'domainConfig'), ['changeManager', 'activate']);
});

test('create forms resolve in the edit tree only', () => {
  const form = targetAt(edit, ['serverCreateForm'], 'createForm');
  assert.equal(form.prop.name, 'servers');
  assert.equal(form.owner.key, '');
  assert.deepEqual(form.path, ['edit', 'serverCreateForm']);
  const nested = targetAt(edit, ['partitions', 'p1', 'resourceGroupCreateForm'], 'createForm');
  assert.equal(nested.prop.name, 'resourceGroups');
  const providerForm = targetAt(edit, ['securityConfiguration', 'realms', 'myrealm', 'adjudicatorCreateForm'], 'createForm');
  assert.equal(providerForm.prop.name, 'adjudicator');
  notFoundAt(configRoot(tree, 'serverConfig'), ['serverCreateForm']);
  notFoundAt(edit, ['logCreateForm']);
});

test('search resolves at a tree root only', () => {
  const search = targetAt(edit, ['search'], 'search');
  assert.equal(search.node.key, '');
  notFoundAt(edit, ['servers', 'ms1', 'search']);
});

test('deprecated children resolve under legacy URLs only', () => {
  assert.match(notFoundAt(edit, ['servers', 'ms1', 'COM']), /'COM'/);
  assert.equal(beanAt(edit, ['servers', 'ms1', 'COM'], 'legacy').type.short, 'COM');
  notFoundAt(edit, ['replicatedStores']);
  targetAt(edit, ['replicatedStores'], 'collection', 'legacy');
});

test('Resolver.child names only visible children', () => {
  const root = beanAt(edit, []);
  assert.equal(resolver.child(root, 'servers', 'current')?.name, 'servers');
  assert.equal(resolver.child(root, 'name', 'current'), undefined);
  assert.equal(resolver.child(root, 'replicatedStores', 'current'), undefined);
  assert.equal(resolver.child(root, 'replicatedStores', 'legacy')?.name, 'replicatedStores');
  assert.equal(resolver.child(root, 'nope', 'current'), undefined);
});

const runtime = domainRuntimeRoot({ ms1: serverRuntimeTree('ms1'), AdminServer: serverRuntimeTree('AdminServer') });

test('a mounted collection lists the roots of the trees mounted there', () => {
  const target = targetAt(runtime, ['serverRuntimes'], 'collection');
  assert.ok(target.mount);
  const roots = resolver.mountedItems(target.mount);
  assert.deepEqual(roots.map((r) => r.record?.values.name), ['ms1', 'AdminServer']);
  assert.deepEqual(roots[0]!.path, ['domainRuntime', 'serverRuntimes', 'ms1']);
});

test('a path through a mount continues in the mounted tree', () => {
  const server = beanAt(runtime, ['serverRuntimes', 'ms1']);
  assert.equal(server.type.name, `${RT}ServerRuntimeMBean`);
  assert.equal(server.key, '', 'the root of its own tree');
  assert.equal(server.root.name, 'serverRuntime');
  const app = beanAt(runtime, ['serverRuntimes', 'ms1', 'applicationRuntimes', 'benefits']);
  assert.deepEqual(app.path, ['domainRuntime', 'serverRuntimes', 'ms1', 'applicationRuntimes', 'benefits']);
  assert.deepEqual(app.identity, ['applicationRuntimes', 'benefits']);
  targetAt(runtime, ['serverRuntimes', 'ms1', 'search'], 'search');
  assert.match(notFoundAt(runtime, ['serverRuntimes', 'ms2']), /'ms2'/);
  assert.match(notFoundAt(runtime, ['serverRuntimes', 'ms1', 'applicationRuntimes', 'nope']), /'nope'/);
});

test('the domain runtime\'s own children resolve beside the mount', () => {
  const life = beanAt(runtime, ['serverLifeCycleRuntimes', 'ms1']);
  assert.equal(life.type.short, 'ServerLifeCycleRuntime');
  assert.ok(life.type.operations.has('start'));
  targetAt(runtime, ['serverLifeCycleRuntimes', 'ms1', 'start'], 'action');
});

test('a child only administrators may read is forbidden to others, open to administrators', () => {
  targetAt(runtime, ['auditRecords'], 'collection');
  const restricted = { ...runtime, restricted: true };
  assert.throws(
    () => resolver.resolve(restricted, ['auditRecords'], 'current'),
    (err: unknown) => isProblem(err, 'forbidden') && /'auditRecords'/.test(err.message),
  );
  assert.equal(resolver.child(beanAt(restricted, []), 'auditRecords', 'current'), undefined);
});
