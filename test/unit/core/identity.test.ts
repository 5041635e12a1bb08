// Identities and keys (src/core/identity.ts): how a bean's place in a tree becomes one string and
// back, and the rules every store and resolver relies on (one key per bean, a subtree is a prefix).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  ROOT_KEY,
  childKey,
  depthOfKey,
  describeIdentity,
  describeKey,
  identityOfKey,
  isWithin,
  itemKey,
  keyOfIdentity,
  lastSegment,
  ownerKey,
  parseReference,
  sameIdentity,
  segmentKey,
  upKey,
} from '../../../src/core/identity.js';
import { text } from '../../support/arbitraries.js';

/** A segment as names and property names are: any valid Unicode, never empty. */
const segment = text({ minLength: 1, maxLength: 12 });
/** Segments that stress encoding: separators, escapes, prototype names, non-Latin scripts. */
const tricky = fc.constantFrom('/', '%', '%2F', '__proto__', 'constructor', 'a b', 'é', '日本', '😀', '..', '?', '#');
const anySegment = fc.oneof(segment, tricky);
const identity = fc.array(anySegment, { maxLength: 6 });
/** Property names come from the catalog: identifiers, written into keys as they are. */
const propName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/);

test('the root has the empty key and the empty identity', () => {
  assert.equal(ROOT_KEY, '');
  assert.equal(keyOfIdentity([]), ROOT_KEY);
  assert.deepEqual(identityOfKey(ROOT_KEY), []);
  assert.equal(depthOfKey(ROOT_KEY), 0);
  assert.equal(upKey(ROOT_KEY), ROOT_KEY);
});

test('a key is the identity joined with "/", each segment percent-encoded', () => {
  assert.equal(keyOfIdentity(['servers', 'ms1']), 'servers/ms1');
  assert.equal(keyOfIdentity(['servers', 'a/b']), 'servers/a%2Fb');
  assert.equal(keyOfIdentity(['servers', 'café']), 'servers/caf%C3%A9');
  assert.equal(segmentKey('a/b%c'), 'a%2Fb%25c');
});

test('identity -> key -> identity gives back the identity', () => {
  fc.assert(
    fc.property(identity, (id) => {
      assert.deepEqual(identityOfKey(keyOfIdentity(id)), id);
    }),
  );
});

test('key -> identity -> key gives back the key', () => {
  fc.assert(
    fc.property(identity, (id) => {
      const key = keyOfIdentity(id);
      assert.equal(keyOfIdentity(identityOfKey(key)), key);
    }),
  );
});

test('two identities have the same key exactly when they name the same bean', () => {
  fc.assert(
    fc.property(identity, identity, (a, b) => {
      assert.equal(keyOfIdentity(a) === keyOfIdentity(b), sameIdentity(a, b));
    }),
  );
});

test('an encoded "/" stays inside its segment: depth, parent and last segment see one name', () => {
  const key = keyOfIdentity(['servers', 'a/b']);
  assert.equal(depthOfKey(key), 2);
  assert.equal(upKey(key), 'servers');
  assert.equal(lastSegment(key), 'a/b');
  assert.deepEqual(identityOfKey(key), ['servers', 'a/b']);
  // The text "%2F" as a name is not a slash either.
  assert.deepEqual(identityOfKey(keyOfIdentity(['%2F'])), ['%2F']);
});

test('empty segments between others survive the round trip', () => {
  for (const id of [['servers', ''], ['', 'x'], ['a', '', 'b']]) {
    assert.deepEqual(identityOfKey(keyOfIdentity(id)), id, JSON.stringify(id));
  }
});

test('__proto__ and other prototype names are plain segments', () => {
  const key = itemKey(childKey(ROOT_KEY, 'servers'), '__proto__');
  assert.equal(key, 'servers/__proto__');
  assert.deepEqual(identityOfKey(key), ['servers', '__proto__']);
  assert.equal(lastSegment(key), '__proto__');
  assert.deepEqual(parseReference(['servers', '__proto__']), ['servers', '__proto__']);
});

test('depth, parent, child and item keys agree with the identity', () => {
  fc.assert(
    fc.property(identity, propName, anySegment, (id, prop, name) => {
      const key = keyOfIdentity(id);
      assert.equal(depthOfKey(key), id.length);
      const singleton = childKey(key, prop);
      assert.deepEqual(identityOfKey(singleton), [...id, prop]);
      assert.equal(upKey(singleton), key);
      const item = itemKey(childKey(key, prop), name);
      assert.deepEqual(identityOfKey(item), [...id, prop, name]);
      assert.equal(lastSegment(item), name);
      assert.equal(upKey(upKey(item)), key);
    }),
  );
});

test('the owner of an item is two segments up, of a singleton one', () => {
  const collection = childKey('machines/m1', 'servers');
  const item = itemKey(collection, 'ms1');
  assert.equal(ownerKey(item, collection), 'machines/m1');
  assert.equal(ownerKey(childKey('machines/m1', 'nodeManager'), null), 'machines/m1');
  assert.equal(ownerKey(childKey(ROOT_KEY, 'log'), null), ROOT_KEY);
});

test('a key lies within every prefix of its identity and nothing else', () => {
  fc.assert(
    fc.property(identity, identity, (a, b) => {
      const isPrefix = a.length <= b.length && a.every((s, i) => s === b[i]);
      assert.equal(isWithin(keyOfIdentity(b), keyOfIdentity(a)), isPrefix);
    }),
  );
});

test('isWithin does not mistake a longer name for a child', () => {
  assert.equal(isWithin('servers/ms10', 'servers/ms1'), false);
  assert.equal(isWithin('servers/ms1/log', 'servers/ms1'), true);
  assert.equal(isWithin('servers/ms1', 'servers/ms1'), true);
  assert.equal(isWithin('servers', ROOT_KEY), true);
  assert.equal(isWithin(ROOT_KEY, 'servers'), false);
});

test('a bean sorts before everything below it, and its subtree is one range of keys', () => {
  fc.assert(
    fc.property(identity, fc.array(anySegment, { minLength: 1, maxLength: 4 }), (a, below) => {
      const key = keyOfIdentity(a);
      const inner = keyOfIdentity([...a, ...below]);
      assert.ok(key < inner, `${key} < ${inner}`);
      // Everything below a non-root key starts with `key/`: the half-open range [key/, key0).
      if (key !== ROOT_KEY) assert.ok(inner >= `${key}/` && inner < `${key}0`, inner);
    }),
  );
});

test('identities and keys are shown as JSON arrays in messages', () => {
  assert.equal(describeIdentity(['servers', 'ms1']), '["servers","ms1"]');
  assert.equal(describeKey('servers/a%2Fb'), '["servers","a/b"]');
  assert.equal(describeKey(ROOT_KEY), '[]');
});

test('sameIdentity compares segment by segment', () => {
  assert.equal(sameIdentity(['a', 'b'], ['a', 'b']), true);
  assert.equal(sameIdentity(['a', 'b'], ['a']), false);
  assert.equal(sameIdentity(['a/b'], ['a', 'b']), false);
  assert.equal(sameIdentity([], []), true);
});

test('parseReference takes an identity array or an object holding one', () => {
  assert.deepEqual(parseReference(['clusters', 'c1']), ['clusters', 'c1']);
  assert.deepEqual(parseReference({ identity: ['clusters', 'c1'] }), ['clusters', 'c1']);
  // As a read shows it, with links beside the identity.
  assert.deepEqual(parseReference({ identity: ['machines', 'm1'], links: [] }), ['machines', 'm1']);
});

test('parseReference refuses anything else', () => {
  for (const value of [
    undefined,
    null,
    'clusters/c1',
    42,
    true,
    [],
    {},
    { identity: [] },
    { identity: 'c1' },
    { identity: null },
    ['clusters', 1],
    ['clusters', null],
    [['clusters', 'c1']],
    { identity: { identity: ['clusters', 'c1'] } },
  ]) {
    assert.equal(parseReference(value), undefined, JSON.stringify(value));
  }
});

test('parseReference does not read an identity through a prototype', () => {
  // JSON.parse makes "__proto__" an own key: it must not act as the object's prototype.
  const value = JSON.parse('{"__proto__": {"identity": ["servers", "ms1"]}}');
  assert.equal(parseReference(value), undefined);
});

test('parseReference accepts any array of strings it is given, unchanged', () => {
  fc.assert(
    fc.property(fc.array(anySegment, { minLength: 1, maxLength: 6 }), (id) => {
      assert.deepEqual(parseReference(id), id);
      assert.deepEqual(parseReference({ identity: id }), id);
    }),
  );
});
