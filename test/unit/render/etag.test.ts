// Entity tags of the renderer: one tag per bean state, whichever way it is read (a plain read, a
// read of some fields, links or none, another host, the tag alone as a condition is judged), and
// a new one as soon as anything a client can read of the bean moves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Urls } from '../../../src/render/links.js';
import { parseShape } from '../../../src/render/query.js';
import { beanAt, configRoot, context, domainRuntimeRoot, renderer, serverRuntimeTree, smallDomain, targetAt } from '../../support/small-tree.js';

const SHAPES: Record<string, unknown>[] = [{}, { links: 'none' }, { fields: 'name,listenPort' }, { excludeFields: 'listenPort' }, { excludeLinks: 'action', fields: 'name' }];

test('a bean has one tag whatever fields, links and host a read asks for, and etag() gives the same', () => {
  const { tree } = smallDomain();
  for (const root of [configRoot(tree), configRoot(tree, 'serverConfig'), domainRuntimeRoot({ ms1: serverRuntimeTree('ms1') })]) {
    const paths = root.name === 'domainRuntime' ? [[], ['serverLifeCycleRuntimes', 'ms1'], ['serverRuntimes', 'ms1'], ['serverRuntimes', 'ms1', 'threadPoolRuntime']] : [[], ['servers', 'ms1'], ['machines', 'm1', 'nodeManager'], ['securityConfiguration']];
    for (const path of paths) {
      const node = beanAt(root, path);
      const tag = renderer.etag(node, context());
      for (const query of SHAPES) {
        assert.equal(renderer.beanWithTag(node, context(parseShape(query))).etag, tag, `${root.name}/${path.join('/')} read with ${JSON.stringify(query)}`);
      }
      const elsewhere = { ...context(), urls: new Urls('https://other.example', '/management/appserver/12.2.1.3.0') };
      assert.equal(renderer.beanWithTag(node, elsewhere).etag, tag, 'another host and version spelling');
    }
  }
});

test('the tag moves with a value, with a default that becomes set, with an optional child, and with a secret', () => {
  const { tree } = smallDomain();
  const root = configRoot(tree, 'serverConfig');
  const tagAt = (path: string[]) => renderer.etag(beanAt(root, path), context());
  const ms1 = tagAt(['servers', 'ms1']);
  const record = tree.bean('servers/ms1')!;
  tree.putRaw('servers/ms1', { ...record, values: { ...record.values, listenPort: 7004 } }, 'servers', 'ms1');
  const moved = tagAt(['servers', 'ms1']);
  assert.notEqual(moved, ms1);
  tree.putRaw('servers/ms1', record, 'servers', 'ms1');
  assert.equal(tagAt(['servers', 'ms1']), ms1, 'the same state gives the same tag again');

  // Setting a property to its default value changes nothing a client sees: the tag stays.
  const ms2 = tagAt(['servers', 'ms2']);
  const ms2Record = tree.bean('servers/ms2')!;
  const shownPort = renderer.bean(beanAt(root, ['servers', 'ms2']), context()).listenThreadStartDelaySecs;
  tree.putRaw('servers/ms2', { ...ms2Record, values: { ...ms2Record.values, listenThreadStartDelaySecs: shownPort } }, 'servers', 'ms2');
  assert.equal(tagAt(['servers', 'ms2']), ms2);

  // An optional child made below a bean shows as a link: the owner's tag moves.
  const partition = tagAt(['partitions', 'p1']);
  tree.putSingleton('partitions/p1', 'partitionWorkManager', { type: 'appserver.management.configuration.PartitionWorkManagerMBean', values: { name: 'p1' } });
  assert.notEqual(tagAt(['partitions', 'p1']), partition);

  // A secret is shown as null, but a new sealed value moves the tag.
  const nm = tagAt(['machines', 'm1', 'nodeManager']);
  const nmRecord = tree.bean('machines/m1/nodeManager')!;
  tree.putRaw('machines/m1/nodeManager', { ...nmRecord, values: { ...nmRecord.values, password: 'sealed:one' } }, null, null);
  const sealed = tagAt(['machines', 'm1', 'nodeManager']);
  assert.notEqual(sealed, nm);
  assert.equal(renderer.bean(beanAt(root, ['machines', 'm1', 'nodeManager']), context()).password, null);
  assert.ok(!renderer.beanWithTag(beanAt(root, ['machines', 'm1', 'nodeManager']), context()).etag.includes('sealed'));
});

test('live values are part of the state (a runtime figure that moves moves the tag)', () => {
  const { tree } = smallDomain();
  let port = 1;
  const root = configRoot(tree, 'serverConfig', { live: (node) => (node.key === 'servers/ms1' ? { listenPort: port } : undefined) });
  const first = renderer.etag(beanAt(root, ['servers', 'ms1']), context());
  assert.equal(renderer.beanWithTag(beanAt(root, ['servers', 'ms1']), context()).etag, first);
  port = 2;
  assert.notEqual(renderer.etag(beanAt(root, ['servers', 'ms1']), context()), first);
});

test('a collection: the same tag rendered or not, whatever the shape; it moves with an item and with a new item', () => {
  const { tree } = smallDomain();
  const root = configRoot(tree, 'serverConfig');
  const servers = () => targetAt(root, ['servers'], 'collection');
  const tagOf = () => {
    const t = servers();
    return renderer.collectionEtag(t.owner, t.prop, context(), t.mount);
  };
  const tag = tagOf();
  for (const query of SHAPES) {
    const t = servers();
    assert.equal(renderer.collectionWithTag(t.owner, t.prop, t.path, context(parseShape(query)), t.mount).etag, tag, JSON.stringify(query));
  }
  const ms2 = tree.bean('servers/ms2')!;
  tree.putRaw('servers/ms2', { ...ms2, values: { ...ms2.values, notes: 'moved' } }, 'servers', 'ms2');
  const afterItem = tagOf();
  assert.notEqual(afterItem, tag);
  tree.putItem('', 'servers', 'ms3', { type: ms2.type, values: { name: 'ms3' } });
  assert.notEqual(tagOf(), afterItem);
  // Mounted collections (the running servers) are tagged too.
  const dr = domainRuntimeRoot({ ms1: serverRuntimeTree('ms1') });
  const mounted = targetAt(dr, ['serverRuntimes'], 'collection');
  const before = renderer.collectionEtag(mounted.owner, mounted.prop, context(), mounted.mount);
  assert.match(before, /^"[A-Za-z0-9_-]{22}"$/);
  const none = domainRuntimeRoot({});
  const empty = targetAt(none, ['serverRuntimes'], 'collection');
  assert.notEqual(renderer.collectionEtag(empty.owner, empty.prop, context(), empty.mount), before);
});
