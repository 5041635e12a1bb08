// The renderer (src/render/entity.ts) on small in-memory trees: the links of a bean and of an item,
// values and defaults, collections, create forms, and the fields/links filters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseShape } from '../../../src/render/query.js';
import {
  type JsonLink,
  beanAt,
  configRoot,
  context,
  domainRuntimeRoot,
  href,
  linkOf,
  rels,
  renderer,
  serverRuntimeTree,
  smallDomain,
  targetAt,
} from '../../support/small-tree.js';

const { tree } = smallDomain();
const edit = configRoot(tree);
const readOnly = configRoot(tree, 'serverConfig');

type Json = Record<string, any>;
const render = (root = edit, path: string[] = [], query: Record<string, unknown> = {}, version: 'current' | 'legacy' = 'current'): Json =>
  renderer.bean(beanAt(root, path, version), context(parseShape(query), version));
const actions = (body: Json): JsonLink[] => (body.links as JsonLink[]).filter((l) => l.rel === 'action');

test('a bean\'s links start with parent, self and canonical', () => {
  const body = render(edit, ['servers', 'ms1']);
  assert.deepEqual(rels(body).slice(0, 3), ['parent', 'self', 'canonical']);
  assert.equal(linkOf(body, 'parent'), href('edit', 'servers'));
  assert.equal(linkOf(body, 'self'), href('edit', 'servers', 'ms1'));
  assert.equal(linkOf(body, 'canonical'), href('edit', 'servers', 'ms1'));
});

test('a tree root\'s parent is the version root, and it links its search', () => {
  const body = render(edit);
  assert.equal(linkOf(body, 'parent'), 'http://admin.test:7001/management/appserver/latest');
  // A bean at the version root itself has the version list as parent.
  const top = render(configRoot(tree, 'edit', { base: [] }));
  assert.equal(linkOf(top, 'parent'), 'http://admin.test:7001/management/appserver');
  assert.equal(linkOf(top, 'self'), 'http://admin.test:7001/management/appserver/latest');
  assert.equal(linkOf(body, 'search'), href('edit', 'search'));
  assert.equal(linkOf(render(edit, ['servers', 'ms1']), 'search'), undefined, 'only roots are searched');
});

test('a bean links each child, and in the edit tree the create form of each creatable collection', () => {
  const body = render(edit, ['servers', 'ms1']);
  assert.equal(linkOf(body, 'log'), href('edit', 'servers', 'ms1', 'log'));
  assert.equal(linkOf(body, 'networkAccessPoints'), href('edit', 'servers', 'ms1', 'networkAccessPoints'));
  assert.equal(linkOf(body, 'networkAccessPointCreateForm'), href('edit', 'servers', 'ms1', 'networkAccessPointCreateForm'));
  const elsewhere = render(readOnly, ['servers', 'ms1']);
  assert.equal(linkOf(elsewhere, 'networkAccessPoints'), href('serverConfig', 'servers', 'ms1', 'networkAccessPoints'));
  assert.equal(linkOf(elsewhere, 'networkAccessPointCreateForm'), undefined, 'no create forms outside edit');
});

test('an optional singleton not created has a create form and no link; once created, a link and no form', () => {
  const realm = ['securityConfiguration', 'realms', 'myrealm'];
  const before = render(edit, realm);
  assert.equal(linkOf(before, 'adjudicator'), undefined);
  assert.equal(linkOf(before, 'adjudicatorCreateForm'), href('edit', ...realm, 'adjudicatorCreateForm'));
  assert.equal(linkOf(before, 'userLockoutManager'), href('edit', ...realm, 'userLockoutManager'), 'an always-present singleton is linked');
  const { tree: t } = smallDomain();
  t.putSingleton('securityConfiguration/realms/myrealm', 'adjudicator', { type: 'appserver.security.providers.authorization.DefaultAdjudicatorMBean', values: { name: 'DefaultAdjudicator' } });
  const after = render(configRoot(t), realm);
  assert.equal(linkOf(after, 'adjudicator'), href('edit', ...realm, 'adjudicator'));
  assert.equal(linkOf(after, 'adjudicatorCreateForm'), undefined);
});

test('a set single reference is linked to its target in the same tree; lists of references are not', () => {
  const body = render(edit, ['servers', 'ms1']);
  assert.equal(linkOf(body, 'cluster'), href('edit', 'clusters', 'c1'));
  assert.equal(linkOf(body, 'machine'), href('edit', 'machines', 'm1'));
  assert.equal(linkOf(body, 'candidateMachines'), undefined);
  assert.equal(linkOf(render(readOnly, ['servers', 'ms1']), 'cluster'), href('serverConfig', 'clusters', 'c1'));
  assert.equal(linkOf(render(edit, ['servers', 'ms2']), 'cluster'), undefined, 'an unset reference has no link');
});

test('every action link names an operation of the bean\'s type, with its title', () => {
  for (const [root, path] of [[edit, ['changeManager']], [edit, []], [domainRuntimeRoot({ ms1: serverRuntimeTree('ms1') }), ['serverLifeCycleRuntimes', 'ms1']], [domainRuntimeRoot({ ms1: serverRuntimeTree('ms1') }), ['serverRuntimes', 'ms1']]] as const) {
    const node = beanAt(root, path);
    const body = renderer.bean(node, context());
    const self = linkOf(body, 'self')!;
    for (const link of actions(body)) {
      assert.ok(node.type.operations.has(link.title!), `${node.type.short} has no operation ${link.title}`);
      assert.equal(link.href, `${self}/${link.title}`);
    }
  }
});

test('the change manager offers the edit actions', () => {
  const titles = actions(render(edit, ['changeManager'])).map((l) => l.title);
  for (const op of ['startEdit', 'activate', 'cancelEdit']) assert.ok(titles.includes(op), `${op} in ${titles.join(', ')}`);
});

test('a runtime bean offers its lifecycle actions', () => {
  const runtime = domainRuntimeRoot({ ms1: serverRuntimeTree('ms1') });
  const titles = actions(render(runtime, ['serverLifeCycleRuntimes', 'ms1'])).map((l) => l.title);
  for (const op of ['start', 'shutdown']) assert.ok(titles.includes(op), `${op} in ${titles.join(', ')}`);
});

test('a bean shows its identity and every visible property: set values, else defaults', () => {
  const body = render(edit, ['servers', 'ms1']);
  assert.deepEqual(body.identity, ['servers', 'ms1']);
  assert.equal(body.name, 'ms1');
  assert.equal(body.listenPort, 7003);
  assert.equal(body.type, 'Server', 'the type is the discriminator, never stored');
  assert.deepEqual(body.cluster, ['clusters', 'c1']);
  assert.deepEqual(body.candidateMachines, [{ identity: ['machines', 'm1'] }]);
  const server = beanAt(edit, ['servers', 'ms1']).type;
  const expected = server.fields.current.map((p) => p.name).sort();
  assert.deepEqual(Object.keys(body).filter((k) => k !== 'links' && k !== 'identity').sort(), expected);
  assert.equal(body.listenAddress, server.prop.get('listenAddress')!.defaultValue ?? null);
});

test('a synthesised singleton shows defaults, named after its owner', () => {
  const body = render(edit, ['servers', 'ms1', 'log']);
  assert.deepEqual(body.identity, ['servers', 'ms1', 'log']);
  assert.equal(body.name, 'ms1');
  assert.equal(linkOf(body, 'parent'), href('edit', 'servers', 'ms1'));
});

test('secrets are never shown, set or not', () => {
  const { builder, domain } = smallDomain();
  builder.item(domain, 'servers', 'secretive', { customIdentityKeyStorePassPhrase: { $sealed: 'xyz' } });
  const body = render(configRoot(builder.tree), ['servers', 'secretive']);
  assert.equal(body.customIdentityKeyStorePassPhrase, null);
});

test('deprecated properties and children show under legacy URLs only', () => {
  const current = render(edit, ['servers', 'ms1']);
  const legacy = render(edit, ['servers', 'ms1'], {}, 'legacy');
  assert.equal('COMEnabled' in current, false);
  assert.equal('COMEnabled' in legacy, true);
  assert.equal(linkOf(current, 'COM'), undefined);
  assert.equal(linkOf(legacy, 'COM'), href('edit', 'servers', 'ms1', 'COM'));
});

test('a REST-only resource has no identity', () => {
  const body = render(edit, ['changeManager']);
  assert.equal('identity' in body, false);
  assert.equal(body.editSession, 'default');
});

test('live values win over records, and a live value explicitly undefined hides the field', () => {
  const live = configRoot(tree, 'edit', { live: (node) => (node.key === 'servers/ms1' ? { listenPort: 9999, listenAddress: undefined } : undefined) });
  const body = render(live, ['servers', 'ms1']);
  assert.equal(body.listenPort, 9999);
  assert.equal('listenAddress' in body, false);
  assert.equal(render(live, ['servers', 'ms2']).listenPort, 7005);
});

test('a live reference is linked like a stored one', () => {
  const live = configRoot(tree, 'edit', { live: (node) => (node.key === 'servers/ms2' ? { cluster: ['clusters', 'c1'] } : undefined) });
  assert.equal(linkOf(render(live, ['servers', 'ms2']), 'cluster'), href('edit', 'clusters', 'c1'));
});

test('fields keeps only the properties named, identity included when named', () => {
  const body = render(edit, ['servers', 'ms1'], { fields: 'name,listenPort,noSuchField,log' });
  assert.deepEqual(Object.keys(body).sort(), ['links', 'listenPort', 'name']);
  assert.ok(rels(body).includes('log'), 'fields do not touch links');
  const withIdentity = render(edit, ['servers', 'ms1'], { fields: 'identity' });
  assert.deepEqual(Object.keys(withIdentity).sort(), ['identity', 'links']);
});

test('fields never brings back a deprecated or internal property', () => {
  assert.equal('COMEnabled' in render(edit, ['servers', 'ms1'], { fields: 'COMEnabled,name' }), false);
  assert.equal('COMEnabled' in render(edit, ['servers', 'ms1'], { fields: 'COMEnabled,name' }, 'legacy'), true);
});

test('excludeFields drops the properties named', () => {
  const full = render(edit, ['servers', 'ms1']);
  const body = render(edit, ['servers', 'ms1'], { excludeFields: 'identity,listenPort' });
  assert.deepEqual(Object.keys(body).sort(), Object.keys(full).filter((k) => k !== 'identity' && k !== 'listenPort').sort());
});

test('links=none drops the links key; links and excludeLinks choose relations', () => {
  assert.equal('links' in render(edit, ['servers', 'ms1'], { links: 'none' }), false);
  assert.deepEqual(rels(render(edit, ['servers', 'ms1'], { links: 'self,cluster' })), ['self', 'cluster']);
  const noActions = render(edit, ['changeManager'], { excludeLinks: 'action' });
  assert.deepEqual(actions(noActions), []);
  assert.ok(rels(noActions).includes('self'));
  assert.ok(actions(render(edit, ['changeManager'], { links: 'action' })).length > 0);
});

test('an item in a collection carries self and canonical only', () => {
  const ms1 = beanAt(edit, ['servers', 'ms1']);
  const item = renderer.bean(ms1, context(), true);
  assert.deepEqual(item.links, [
    { rel: 'self', href: href('edit', 'servers', 'ms1') },
    { rel: 'canonical', href: href('edit', 'servers', 'ms1') },
  ]);
  assert.deepEqual(item.identity, ['servers', 'ms1']);
  assert.equal(item.listenPort, 7003);
});

test('a collection: its links, a create form in edit only, and its items in order', () => {
  const target = targetAt(edit, ['servers'], 'collection');
  const body = renderer.collection(target.owner, target.prop, target.path, context());
  assert.deepEqual(body.links, [
    { rel: 'parent', href: href('edit') },
    { rel: 'self', href: href('edit', 'servers') },
    { rel: 'canonical', href: href('edit', 'servers') },
    { rel: 'create-form', href: href('edit', 'serverCreateForm') },
  ]);
  const items = body.items as Json[];
  assert.deepEqual(items.map((i) => i.name), ['AdminServer', 'ms2', 'ms1']);
  assert.deepEqual(rels(items[2]!), ['self', 'canonical']);
  const ro = targetAt(readOnly, ['servers'], 'collection');
  assert.deepEqual(rels(renderer.collection(ro.owner, ro.prop, ro.path, context())), ['parent', 'self', 'canonical']);
});

test('a collection under a partition scope lists only that partition', () => {
  const scoped = configRoot(tree, 'edit', { filter: (prop, name) => prop.name !== 'partitions' || name === 'p2' });
  const target = targetAt(scoped, ['partitions'], 'collection');
  const body = renderer.collection(target.owner, target.prop, target.path, context());
  assert.deepEqual((body.items as Json[]).map((i) => i.name), ['p2']);
});

test('a mounted collection lists the mounted trees\' roots', () => {
  const runtime = domainRuntimeRoot({ ms1: serverRuntimeTree('ms1'), AdminServer: serverRuntimeTree('AdminServer') });
  const target = targetAt(runtime, ['serverRuntimes'], 'collection');
  const body = renderer.collection(target.owner, target.prop, target.path, context(), target.mount);
  const items = body.items as Json[];
  assert.deepEqual(items.map((i) => i.name), ['ms1', 'AdminServer']);
  assert.equal(linkOf(items[0]!, 'self'), href('domainRuntime', 'serverRuntimes', 'ms1'));
  assert.equal(linkOf(body, 'create-form'), undefined);
});

test('a collection honours fields and links on every item', () => {
  const target = targetAt(edit, ['servers'], 'collection');
  const body = renderer.collection(target.owner, target.prop, target.path, context(parseShape({ fields: 'name', links: 'none' })));
  assert.deepEqual(body, { items: [{ name: 'AdminServer' }, { name: 'ms2' }, { name: 'ms1' }] });
});

test('a create form shows the new bean\'s writable properties at their defaults, and links create', () => {
  const form = targetAt(edit, ['serverCreateForm'], 'createForm');
  const server = beanAt(edit, ['servers', 'ms1']).type;
  const body = renderer.createForm(form.owner, form.prop, form.path, server, context());
  assert.deepEqual(body.links, [
    { rel: 'parent', href: href('edit') },
    { rel: 'self', href: href('edit', 'serverCreateForm') },
    { rel: 'canonical', href: href('edit', 'serverCreateForm') },
    { rel: 'create', href: href('edit', 'servers') },
  ]);
  assert.equal(body.name, null, 'the key is the client\'s to choose');
  assert.equal(body.type, 'Server');
  assert.equal(body.listenPort, server.prop.get('listenPort')!.defaultValue);
  assert.equal(body.customIdentityKeyStorePassPhrase, null, 'secrets show no default');
  assert.equal('id' in body, false, 'read-only properties are not offered');
  assert.equal('identity' in body, false);
  const writable = server.fields.current.filter((p) => p.writable).map((p) => p.name);
  assert.deepEqual(Object.keys(body).filter((k) => k !== 'links' && k !== 'type').sort(), writable.sort());
});

test('a create form honours fields', () => {
  const form = targetAt(edit, ['serverCreateForm'], 'createForm');
  const server = beanAt(edit, ['servers', 'ms1']).type;
  const body = renderer.createForm(form.owner, form.prop, form.path, server, context(parseShape({ fields: 'name,listenPort', excludeLinks: 'parent' })));
  assert.deepEqual(Object.keys(body).sort(), ['links', 'listenPort', 'name']);
  assert.deepEqual(rels(body), ['self', 'canonical', 'create']);
});

test('hrefs encode names once', () => {
  const { builder, domain } = smallDomain();
  builder.item(domain, 'clusters', 'a/b c', {});
  const body = render(configRoot(builder.tree), ['clusters', 'a/b c']);
  assert.equal(linkOf(body, 'self'), 'http://admin.test:7001/management/appserver/latest/edit/clusters/a%2Fb%20c');
});

test('children only administrators may read are not linked for others', () => {
  const runtime = domainRuntimeRoot({});
  assert.equal(linkOf(render(runtime), 'auditRecords'), href('domainRuntime', 'auditRecords'));
  assert.equal(linkOf(render({ ...runtime, restricted: true }), 'auditRecords'), undefined);
});
