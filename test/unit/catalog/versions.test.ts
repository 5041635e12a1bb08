// Version segments (src/catalog/versions.ts): which spellings name which generation of the trees.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CURRENT_VERSION, LEGACY_VERSION, isLifecycleVersion, managementVersion } from '../../../src/catalog/versions.js';

test('latest and every later release name the current generation', () => {
  for (const v of ['latest', CURRENT_VERSION, '12.2.1.1', '12.2.1.2.0', '12.2.1.3.0', '12.2.1.4.0']) {
    assert.equal(managementVersion(v), 'current', v);
  }
});

test('12.2.1.0, short or long, names the legacy generation', () => {
  assert.equal(managementVersion(LEGACY_VERSION), 'legacy');
  assert.equal(managementVersion('12.2.1.0.0'), 'legacy');
});

test('anything else names no version, prototype names included', () => {
  for (const v of ['', 'LATEST', '12.2.1', '12.2.1.5.0', '__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
    assert.equal(managementVersion(v), undefined, v);
  }
});

test('the Lifecycle Manager answers latest and 12.2.1.0 only', () => {
  for (const v of ['latest', '12.2.1.0', '12.2.1.0.0']) assert.equal(isLifecycleVersion(v), true, v);
  for (const v of ['12.2.1.9.0', '', '__proto__', 'Latest']) assert.equal(isLifecycleVersion(v), false, v);
});
