// Version segments (src/catalog/versions.ts): which spellings name which generation of the trees,
// for a domain of a given product version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_PRODUCT_VERSION, LEGACY_VERSION, PRODUCT_VERSIONS, isLifecycleVersion, managementVersion } from '../../../src/catalog/versions.js';

test('latest, the domain\'s own release and every earlier one name the current generation', () => {
  for (const v of ['latest', DEFAULT_PRODUCT_VERSION, '12.2.1.1', '12.2.1.2.0', '12.2.1.3.0', '12.2.1.4.0', '12.2.1.4']) {
    assert.equal(managementVersion(v, '12.2.1.4.0'), 'current', v);
  }
  for (const v of ['14.1.1.0.0', '14.1.1.0', '14.1.2.0.0', '15.1.1.0.0', '15.1.1.0', '12.2.1.3.0']) assert.equal(managementVersion(v, '15.1.1.0.0'), 'current', v);
});

test('a release newer than the domain\'s names nothing', () => {
  assert.equal(managementVersion('12.2.1.4.0', '12.2.1.3.0'), undefined);
  assert.equal(managementVersion('14.1.1.0.0', '12.2.1.4.0'), undefined);
  assert.equal(managementVersion('15.1.1.0', '14.1.2.0.0'), undefined);
});

test('12.2.1.0, short or long, names the legacy generation of every version', () => {
  for (const product of PRODUCT_VERSIONS) {
    assert.equal(managementVersion(LEGACY_VERSION, product), 'legacy');
    assert.equal(managementVersion('12.2.1.0.0', product), 'legacy');
  }
});

test('anything else names no version, prototype names included', () => {
  for (const v of ['', 'LATEST', '12.2.1', '12.2.1.5.0', '14.1.3.0.0', '__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
    assert.equal(managementVersion(v, '15.1.1.0.0'), undefined, v);
  }
});

test('the Lifecycle Manager answers latest and 12.2.1.0 only', () => {
  for (const v of ['latest', '12.2.1.0', '12.2.1.0.0']) assert.equal(isLifecycleVersion(v), true, v);
  for (const v of ['12.2.1.9.0', '', '__proto__', 'Latest']) assert.equal(isLifecycleVersion(v), false, v);
});
