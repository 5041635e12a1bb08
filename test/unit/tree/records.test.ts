// The in-memory bean tree (src/tree/records.ts): records by key, collections in order, subtrees
// found through the children index (unstored singletons in between included), and removal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { itemKey } from '../../../src/core/identity.js';
import { type BeanRecord, BeanTree } from '../../../src/tree/records.js';

const rec = (type = 'T', values: Record<string, unknown> = {}): BeanRecord => ({ type, values });

function sample(): BeanTree {
  const t = new BeanTree();
  t.setRoot(rec('Domain', { name: 'd1' }));
  t.putItem('', 'servers', 'ms1', rec('Server'));
  t.putSingleton('servers/ms1', 'log', rec('Log'));
  t.putItem('servers/ms1', 'networkAccessPoints', 'nap1', rec('NAP'));
  t.putItem('', 'servers', 'ms2', rec('Server'));
  t.putItem('', 'clusters', 'c1', rec('Cluster'));
  return t;
}

test('records are found by key, the root by the empty key', () => {
  const t = sample();
  assert.equal(t.bean('')?.values.name, 'd1');
  assert.equal(t.bean('servers/ms1')?.type, 'Server');
  assert.equal(t.bean('servers/ms1/log')?.type, 'Log');
  assert.equal(t.bean('servers/ms9'), undefined);
  assert.equal(t.bean('servers'), undefined, 'a collection is no record');
  assert.equal(t.size, 6);
});

test('put methods return the key they stored under', () => {
  const t = new BeanTree();
  assert.equal(t.putItem('', 'servers', 'a/b', rec()), 'servers/a%2Fb');
  assert.equal(t.putSingleton('servers/a%2Fb', 'log', rec()), 'servers/a%2Fb/log');
  assert.equal(t.putItem('servers/a%2Fb', 'networkAccessPoints', 'n', rec()), 'servers/a%2Fb/networkAccessPoints/n');
});

test('items are listed by name in the order they were added', () => {
  const t = new BeanTree();
  for (const name of ['zeta', 'alpha', 'mu']) t.putItem('', 'servers', name, rec());
  assert.deepEqual(t.itemNames('servers'), ['zeta', 'alpha', 'mu']);
  assert.deepEqual(t.itemNames('clusters'), [], 'an empty collection has no names');
});

test('replacing an item keeps its place and lists it once', () => {
  const t = sample();
  t.putItem('', 'servers', 'ms1', rec('Server', { listenPort: 1 }));
  assert.deepEqual(t.itemNames('servers'), ['ms1', 'ms2']);
  assert.equal(t.bean('servers/ms1')?.values.listenPort, 1);
  assert.equal(t.bean('servers/ms1/log')?.type, 'Log', 'its children stay');
  assert.equal(t.placementOf('servers/ms1')?.[2], 0);
});

test('names are listed decoded: encoded "/", unicode and __proto__', () => {
  const t = new BeanTree();
  for (const name of ['a/b', 'ünï', '__proto__', 'constructor']) t.putItem('', 'servers', name, rec());
  assert.deepEqual(t.itemNames('servers'), ['a/b', 'ünï', '__proto__', 'constructor']);
  assert.ok(t.bean('servers/__proto__'));
  assert.equal(t.bean('__proto__'), undefined);
});

test('an item\'s placement is its collection, its name and its order; singletons have none', () => {
  const t = sample();
  assert.deepEqual(t.placementOf('servers/ms1'), ['servers', 'ms1', 0]);
  assert.deepEqual(t.placementOf('servers/ms2'), ['servers', 'ms2', 1]);
  assert.equal(t.placementOf('servers/ms1/log'), undefined);
  assert.equal(t.placementOf(''), undefined);
});

test('order numbers continue after the last item, and an explicit order is kept', () => {
  const t = new BeanTree();
  t.putRaw(itemKey('servers', 'a'), rec(), 'servers', 'a', 10);
  assert.equal(t.nextOrd('servers'), 11);
  t.putItem('', 'servers', 'b', rec());
  assert.deepEqual(t.placementOf('servers/b'), ['servers', 'b', 11]);
  assert.equal(t.nextOrd('clusters'), 0);
  t.remove('servers/b');
  assert.equal(t.nextOrd('servers'), 11);
});

test('a subtree lists the bean and everything below it, parents first', () => {
  const t = sample();
  const keys = t.subtree('servers/ms1');
  assert.deepEqual([...keys].sort(), ['servers/ms1', 'servers/ms1/log', 'servers/ms1/networkAccessPoints/nap1']);
  assert.equal(keys[0], 'servers/ms1');
  const all = t.subtree('');
  assert.equal(all.length, t.size);
  for (const [i, k] of all.entries()) {
    for (const later of all.slice(i + 1)) assert.ok(!k.startsWith(`${later}/`), `${later} comes after its descendant ${k}`);
  }
});

test('a bean below an unstored singleton is still in the subtree of every owner above it', () => {
  const t = new BeanTree();
  t.setRoot(rec('Domain'));
  // securityConfiguration itself is never stored: its realm hangs below it all the same.
  t.putItem('securityConfiguration', 'realms', 'myrealm', rec('Realm'));
  t.putItem('securityConfiguration/realms/myrealm', 'authenticationProviders', 'p', rec('Provider'));
  assert.deepEqual(t.subtree('securityConfiguration'), ['securityConfiguration/realms/myrealm', 'securityConfiguration/realms/myrealm/authenticationProviders/p']);
  assert.ok(t.subtree('').includes('securityConfiguration/realms/myrealm/authenticationProviders/p'));
  t.remove('securityConfiguration');
  assert.equal(t.bean('securityConfiguration/realms/myrealm'), undefined);
  assert.deepEqual(t.itemNames('securityConfiguration/realms'), []);
  assert.equal(t.size, 1);
});

test('removing an item removes its subtree and unlists it, keeping the others\' order', () => {
  const t = sample();
  t.putItem('', 'servers', 'ms3', rec('Server'));
  t.remove('servers/ms2');
  assert.deepEqual(t.itemNames('servers'), ['ms1', 'ms3']);
  t.remove('servers/ms1');
  assert.deepEqual(t.itemNames('servers'), ['ms3']);
  assert.equal(t.bean('servers/ms1/log'), undefined);
  assert.equal(t.bean('servers/ms1/networkAccessPoints/nap1'), undefined);
  assert.deepEqual(t.itemNames('servers/ms1/networkAccessPoints'), []);
  assert.deepEqual(t.subtree('servers/ms1'), []);
  assert.ok(!t.subtree('').some((k) => k.startsWith('servers/ms1')));
});

test('removing a singleton removes what is below it', () => {
  const t = sample();
  t.putItem('servers/ms1/log', 'filters', 'f', rec('Filter'));
  t.remove('servers/ms1/log');
  assert.equal(t.bean('servers/ms1/log'), undefined);
  assert.equal(t.bean('servers/ms1/log/filters/f'), undefined);
  assert.ok(t.bean('servers/ms1'));
});

test('removing what is not there changes nothing', () => {
  const t = sample();
  const before = [...t.entries()];
  t.remove('servers/ms9');
  t.remove('nothing/here');
  assert.deepEqual([...t.entries()], before);
});

test('an item removed and added again goes to the end', () => {
  const t = sample();
  t.remove('servers/ms1');
  t.putItem('', 'servers', 'ms1', rec('Server'));
  assert.deepEqual(t.itemNames('servers'), ['ms2', 'ms1']);
  assert.deepEqual(t.subtree('servers/ms1'), ['servers/ms1'], 'with none of its old children');
});

test('clearing a collection removes every item and their subtrees', () => {
  const t = sample();
  t.clearCollection('servers');
  assert.deepEqual(t.itemNames('servers'), []);
  assert.equal(t.bean('servers/ms1/log'), undefined);
  assert.deepEqual(t.itemNames('clusters'), ['c1']);
  assert.deepEqual([...t.collectionEntries()].map(([k]) => k), ['clusters'], 'an emptied collection is dropped');
});

test('entries and collection entries cover what is stored', () => {
  const t = sample();
  assert.deepEqual(new Set([...t.entries()].map(([k]) => k)), new Set(['', 'servers/ms1', 'servers/ms1/log', 'servers/ms1/networkAccessPoints/nap1', 'servers/ms2', 'clusters/c1']));
  assert.deepEqual(new Map(t.collectionEntries()), new Map([['servers', ['ms1', 'ms2']], ['servers/ms1/networkAccessPoints', ['nap1']], ['clusters', ['c1']]]));
});

test('any sequence of puts and removals lists the items a simple model expects', () => {
  const op = fc.oneof(
    fc.record({ put: fc.constantFrom('a', 'b', 'c', 'd', 'e/f'), child: fc.boolean() }),
    fc.record({ remove: fc.constantFrom('a', 'b', 'c', 'd', 'e/f') }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const t = new BeanTree();
      t.setRoot(rec('Domain'));
      const model: string[] = [];
      for (const o of ops) {
        if ('put' in o) {
          const key = t.putItem('', 'servers', o.put, rec('Server'));
          if (!model.includes(o.put)) model.push(o.put);
          if (o.child) t.putSingleton(key, 'log', rec('Log'));
        } else {
          t.remove(itemKey('servers', o.remove));
          const i = model.indexOf(o.remove);
          if (i >= 0) model.splice(i, 1);
        }
      }
      assert.deepEqual(t.itemNames('servers'), model);
      const orders = model.map((n) => t.placementOf(itemKey('servers', n))![2]);
      assert.deepEqual(orders, [...orders].sort((x, y) => x - y), 'order numbers rise along the list');
      const stored = t.subtree('').filter((k) => k !== '');
      for (const k of stored) assert.ok(model.some((n) => k === itemKey('servers', n) || k.startsWith(`${itemKey('servers', n)}/`)), `${k} outlived its item`);
      assert.equal(t.size, 1 + stored.length);
    }),
  );
});

// Runtime trees are never stored: they keep no order index and trim their lists once built. They
// must answer every question the same way as a stored tree does, orders aside (their place).
test('a tree that is never stored answers like a stored one, whatever the puts and removals', () => {
  const name = fc.constantFrom('a', 'b', 'c', 'e/f', 'ü');
  const op = fc.oneof(
    fc.record({ put: name, child: fc.boolean(), nested: fc.boolean() }),
    fc.record({ remove: name }),
    fc.record({ removeLog: name }),
    fc.record({ compact: fc.constant(true) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const stored = new BeanTree();
      const lean = new BeanTree({ stored: false });
      for (const t of [stored, lean]) {
        t.setRoot(rec('Domain'));
        for (const o of ops) {
          if ('put' in o) {
            const key = t.putItem('', 'servers', o.put, rec('Server'));
            if (o.child) t.putSingleton(key, 'log', rec('Log'));
            if (o.nested) t.putItem(key, 'networkAccessPoints', 'n1', rec('NAP'));
          } else if ('remove' in o) t.remove(itemKey('servers', o.remove));
          else if ('removeLog' in o) t.remove(`${itemKey('servers', o.removeLog)}/log`);
          else t.compact();
        }
      }
      assert.deepEqual(lean.itemNames('servers'), stored.itemNames('servers'));
      assert.deepEqual(lean.subtree(''), stored.subtree(''));
      assert.deepEqual([...lean.entries()], [...stored.entries()]);
      for (const [i, n] of lean.itemNames('servers').entries()) {
        const key = itemKey('servers', n);
        assert.deepEqual(lean.placementOf(key), ['servers', n, i], 'an item\'s order is its place');
        assert.deepEqual(lean.placementOf(key)!.slice(0, 2), stored.placementOf(key)!.slice(0, 2));
        assert.equal(lean.placementOf(`${key}/log`), undefined, 'a singleton has no placement');
        assert.deepEqual(lean.subtree(key), stored.subtree(key));
      }
      assert.equal(lean.placementOf(''), undefined);
      assert.equal(lean.placementOf(itemKey('servers', 'nobody')), undefined);
    }),
  );
});

// A deferred collection (a runtime list of tens of thousands of beans) is put when first needed:
// until then nothing of it is made, and whatever is asked afterwards, the tree answers as if it
// had been put at once.
test('a deferred collection is made only when something in it is needed, and once', () => {
  const t = new BeanTree({ stored: false });
  t.setRoot(rec('Domain'));
  let fills = 0;
  t.defer('servers', () => {
    fills++;
    for (const n of ['a', 'b']) t.putItem('', 'servers', n, rec('Server', { name: n }));
  });
  t.putItem('', 'clusters', 'c1', rec('Cluster'));
  assert.equal(t.bean('clusters/c1')?.type, 'Cluster');
  assert.equal(t.bean('')?.type, 'Domain');
  assert.deepEqual(t.itemNames('clusters'), ['c1']);
  assert.equal(t.bean('serversX/a'), undefined, 'a key that only begins like the collection leaves it deferred');
  assert.equal(fills, 0, 'reading beside it makes nothing');
  assert.equal(t.bean('servers/b')?.values.name, 'b');
  assert.deepEqual(t.itemNames('servers'), ['a', 'b']);
  assert.equal(fills, 1, 'made once');
});

test('a deferred collection that can make one item answers a read of it without filling the rest', () => {
  const t = new BeanTree({ stored: false });
  t.setRoot(rec('Domain'));
  let fills = 0;
  const made: string[] = [];
  t.defer(
    'servers',
    () => {
      fills++;
      for (const n of ['a', 'b', 'c']) t.putItem('', 'servers', n, rec('Server', { name: n }));
    },
    (n) => (['a', 'b', 'c'].includes(n) ? (made.push(n), rec('Server', { name: n })) : undefined),
  );
  const b = t.bean('servers/b');
  assert.equal(b?.values.name, 'b');
  assert.equal(t.bean('servers/b'), b, 'made once, the same record after');
  assert.equal(t.bean('servers/x'), undefined, 'a name not in it is no item');
  assert.deepEqual([fills, made], [0, ['b']], 'nothing else made');
  b!.values.state = 'RUNNING';
  assert.deepEqual(t.itemNames('servers'), ['a', 'b', 'c'], 'the fill keeps the order');
  assert.equal(t.bean('servers/b'), b, 'the fill keeps the record read before');
  assert.equal(t.bean('servers/b')?.values.state, 'RUNNING');
  assert.equal(fills, 1);
});

/**
 * A collection's records as the tree lists them (stored trees), checked to be the very records its
 * beans' keys give, in the order of its names; undefined where the tree lists none.
 */
function listedRecords(t: BeanTree, collectionKey: string): BeanRecord[] | undefined {
  const records = t.itemRecords(collectionKey);
  if (records === undefined) return undefined;
  const names = t.itemNames(collectionKey);
  assert.equal(records.length, names.length, `${collectionKey}: as many records as names`);
  names.forEach((n, i) => assert.equal(records[i], t.bean(itemKey(collectionKey, n)), `${collectionKey}: the record of ${n} in its place`));
  return [...records];
}

test('a tree with a deferred collection answers like one where it was put at once, whatever comes after', () => {
  const name = fc.constantFrom('a', 'b', 'c', 'e/f', 'ü');
  const op = fc.oneof(
    fc.record({ put: name, child: fc.boolean() }),
    fc.record({ remove: name }),
    fc.record({ removeLog: name }),
    fc.record({ read: name }),
    fc.record({ readLog: name }),
    fc.record({ touch: name }),
    fc.record({ names: fc.constant(true) }),
    fc.record({ records: fc.constant(true) }),
    fc.record({ walk: fc.constantFrom('', 'servers', 'clusters/c1') }),
    fc.record({ clear: fc.constant(true) }),
  );
  fc.assert(
    fc.property(fc.subarray(['a', 'b', 'c', 'e/f', 'ü']), fc.boolean(), fc.boolean(), fc.array(op, { maxLength: 30 }), (initial, stored, oneByOne, ops) => {
      const eager = new BeanTree({ stored });
      const lazy = new BeanTree({ stored });
      const fillOf = (t: BeanTree) => () => {
        for (const n of initial) t.putSingleton(t.putItem('', 'servers', n, rec('Server', { name: n })), 'log', rec('Log'));
      };
      for (const t of [eager, lazy]) {
        t.setRoot(rec('Domain'));
        t.putItem('', 'clusters', 'c1', rec('Cluster'));
      }
      fillOf(eager)();
      // With `oneByOne`, a read of one item makes that item alone (its log comes with the fill).
      lazy.defer('servers', fillOf(lazy), oneByOne ? (n) => (initial.includes(n) ? rec('Server', { name: n }) : undefined) : undefined);
      for (const o of ops) {
        const answers = [eager, lazy].map((t) => {
          if ('put' in o) {
            const key = t.putItem('', 'servers', o.put, rec('Server', { name: o.put, again: true }));
            if (o.child) t.putSingleton(key, 'log', rec('Log'));
            return undefined;
          }
          if ('remove' in o) return t.remove(itemKey('servers', o.remove));
          if ('removeLog' in o) return t.remove(`${itemKey('servers', o.removeLog)}/log`);
          if ('read' in o) return t.bean(itemKey('servers', o.read));
          if ('readLog' in o) return t.bean(`${itemKey('servers', o.readLog)}/log`);
          if ('touch' in o) {
            // A record read is the bean: what is set on it stays, whenever the collection is filled.
            const record = t.bean(itemKey('servers', o.touch));
            if (record) record.values.touched = ((record.values.touched as number | undefined) ?? 0) + 1;
            return record;
          }
          if ('names' in o) return [...t.itemNames('servers')];
          if ('records' in o) return listedRecords(t, 'servers');
          if ('walk' in o) return new Set(t.subtree(o.walk));
          return t.clearCollection('servers');
        });
        assert.deepEqual(answers[1], answers[0], JSON.stringify(o));
      }
      assert.deepEqual(lazy.itemNames('servers'), eager.itemNames('servers'));
      assert.deepEqual(listedRecords(lazy, 'servers'), listedRecords(eager, 'servers'));
      assert.deepEqual(new Map(lazy.entries()), new Map(eager.entries()));
      assert.equal(lazy.size, eager.size);
      for (const n of eager.itemNames('servers')) assert.deepEqual(lazy.placementOf(itemKey('servers', n)), eager.placementOf(itemKey('servers', n)));
    }),
  );
});
