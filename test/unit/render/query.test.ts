// The query parameters that shape a GET response (src/render/query.ts): fields, excludeFields,
// links and excludeLinks, and what each makes the renderer keep.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isProblem } from '../../../src/core/problems.js';
import { parseShape, wantsField, wantsLinks, wantsRel } from '../../../src/render/query.js';

const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,10}$/);

test('no shaping parameter keeps every field and every link', () => {
  for (const query of [{}, { other: 'x', excludeFiels: 'a' }]) {
    const shape = parseShape(query);
    assert.deepEqual(shape, {});
    assert.equal(wantsField(shape, 'name'), true);
    assert.equal(wantsField(shape, 'identity'), true);
    assert.equal(wantsLinks(shape), true);
    assert.equal(wantsRel(shape, 'self'), true);
  }
});

test('fields keeps the fields listed, trimmed, empty entries dropped', () => {
  const shape = parseShape({ fields: ' name, listenPort,,identity ' });
  assert.deepEqual([...shape.fields!].sort(), ['identity', 'listenPort', 'name']);
  assert.equal(wantsField(shape, 'name'), true);
  assert.equal(wantsField(shape, 'identity'), true);
  assert.equal(wantsField(shape, 'listenAddress'), false);
  assert.equal(wantsLinks(shape), true, 'fields do not touch links');
});

test('a parameter given twice is one list', () => {
  const shape = parseShape({ fields: ['name', 'listenPort,cluster'] });
  assert.deepEqual([...shape.fields!].sort(), ['cluster', 'listenPort', 'name']);
});

test('an empty fields list keeps no field at all', () => {
  const shape = parseShape({ fields: '' });
  assert.equal(wantsField(shape, 'name'), false);
  assert.equal(wantsField(shape, 'identity'), false);
});

test('excludeFields keeps every field but the ones listed', () => {
  const shape = parseShape({ excludeFields: 'identity,listenPort' });
  assert.equal(wantsField(shape, 'identity'), false);
  assert.equal(wantsField(shape, 'listenPort'), false);
  assert.equal(wantsField(shape, 'name'), true);
});

test('fields and excludeFields are complements for the same list', () => {
  fc.assert(
    fc.property(fc.array(name, { maxLength: 8 }), name, (list, probe) => {
      const kept = wantsField(parseShape({ fields: list.join(',') }), probe);
      const dropped = !wantsField(parseShape({ excludeFields: list.join(',') }), probe);
      assert.equal(kept, dropped);
      assert.equal(kept, list.includes(probe));
    }),
  );
});

test('links=none drops the links altogether', () => {
  const shape = parseShape({ links: 'none' });
  assert.equal(shape.links, 'none');
  assert.equal(wantsLinks(shape), false);
  for (const rel of ['self', 'parent', 'action', 'none']) assert.equal(wantsRel(shape, rel), false, rel);
});

test('links keeps only the relations listed; none among others is just a name', () => {
  const shape = parseShape({ links: 'self,parent' });
  assert.equal(wantsLinks(shape), true);
  assert.equal(wantsRel(shape, 'self'), true);
  assert.equal(wantsRel(shape, 'parent'), true);
  assert.equal(wantsRel(shape, 'canonical'), false);
  const mixed = parseShape({ links: 'none,self' });
  assert.equal(wantsLinks(mixed), true);
  assert.equal(wantsRel(mixed, 'self'), true);
});

test('an empty links list keeps the links key but no link', () => {
  const shape = parseShape({ links: '' });
  assert.equal(wantsLinks(shape), true);
  assert.equal(wantsRel(shape, 'self'), false);
});

test('excludeLinks keeps every relation but the ones listed', () => {
  const shape = parseShape({ excludeLinks: 'action,canonical' });
  assert.equal(wantsRel(shape, 'action'), false);
  assert.equal(wantsRel(shape, 'canonical'), false);
  assert.equal(wantsRel(shape, 'self'), true);
  assert.equal(wantsLinks(shape), true);
});

test('links and fields shape independently', () => {
  const shape = parseShape({ fields: 'name', excludeLinks: 'action' });
  assert.equal(wantsField(shape, 'name'), true);
  assert.equal(wantsField(shape, 'id'), false);
  assert.equal(wantsRel(shape, 'action'), false);
  assert.equal(wantsRel(shape, 'self'), true);
});

/** The problem a query raises, checked to be a 400 naming `path`. */
function refusal(query: Record<string, unknown>, path: string): string {
  try {
    parseShape(query);
  } catch (err) {
    assert.ok(isProblem(err, 'invalid'), String(err));
    assert.equal(err.details[0]!.path, path);
    return err.details[0]!.detail;
  }
  assert.fail(`${JSON.stringify(query)} was accepted`);
}

test('fields with excludeFields is refused, naming both', () => {
  const detail = refusal({ fields: 'name', excludeFields: 'id' }, 'excludeFields');
  assert.match(detail, /'fields' and 'excludeFields' cannot be used together/);
  // Even when one of them is empty.
  refusal({ fields: '', excludeFields: 'id' }, 'excludeFields');
});

test('links with excludeLinks is refused, naming both', () => {
  const detail = refusal({ links: 'self', excludeLinks: 'action' }, 'excludeLinks');
  assert.match(detail, /'links' and 'excludeLinks' cannot be used together/);
});

test('a parameter that is not text is refused, naming it', () => {
  for (const key of ['fields', 'excludeFields', 'links', 'excludeLinks']) {
    for (const value of [42, { a: 1 }, null, true]) {
      const detail = refusal({ [key]: value }, key);
      assert.match(detail, new RegExp(`'${key}' must be a comma-separated list`));
    }
  }
});
