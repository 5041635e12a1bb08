// Request bodies (src/http/body.ts): strict JSON, the relaxed dialect up to 64 KiB, key=value pairs,
// duplicate keys, nesting depth, null, and reading in linear time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type Problem, isProblem } from '../../../src/core/problems.js';
import {
  MAX_BODY_BYTES,
  MAX_DEPTH,
  MAX_RELAXED_BYTES,
  bodyKindOf,
  duplicateKey,
  isPairs,
  pairs,
  parseLenient,
} from '../../../src/http/body.js';
import { text } from '../../support/arbitraries.js';
import { bodyObject } from '../../../src/api/management-api.js';

/** The 400 a body gets. */
function refusal(read: () => unknown): Problem {
  try {
    read();
  } catch (err) {
    assert.ok(isProblem(err, 'invalid'), `not a 400 problem: ${String(err)}`);
    return err;
  }
  assert.fail('the body was accepted');
}

const json = (text: string) => parseLenient(text, 'request body', 'json');
const textBody = (text: string) => parseLenient(text, 'request body', 'text');

test('media types choose how a body is read', () => {
  assert.equal(bodyKindOf('application/json'), 'json');
  assert.equal(bodyKindOf('application/json; charset=utf-8'), 'json');
  assert.equal(bodyKindOf('Application/JSON'), 'json');
  assert.equal(bodyKindOf('application/vnd.appserver+json'), 'json');
  assert.equal(bodyKindOf('text/plain'), 'text');
  assert.equal(bodyKindOf(' text/plain ; charset=utf-8'), 'text');
  // Forms are answered 415, as the product answers them.
  for (const type of ['text/html', 'application/xml', 'multipart/form-data', 'application/jsonx', 'application/x-www-form-urlencoded', '']) {
    assert.equal(bodyKindOf(type), undefined, type);
  }
});

test('strict JSON is read as it is', () => {
  assert.deepEqual(json('{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}'), { a: 1, b: [true, null, 'x'], c: { d: 1.5 } });
  assert.deepEqual(json('  {"a": "ünï 😀"}\n'), { a: 'ünï 😀' });
});

test('an empty body is an empty object', () => {
  for (const kind of ['json', 'text'] as const) {
    assert.deepEqual({ ...(parseLenient('', 'request body', kind) as object) }, {}, kind);
  }
  assert.deepEqual(json(' \n\t'), {});
});

test('any JSON value round-trips through strict reading', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
      const text = JSON.stringify(value);
      if (text.trim() === '') return;
      assert.deepEqual(json(text), JSON.parse(text));
    }),
  );
});

test('small bodies may be relaxed JSON: unquoted keys, single quotes, trailing commas, comments', () => {
  assert.deepEqual(json("{a: 1, 'b': 'x', c: [1, 2,], /* { */ d: {e: true,}, // }\n}"), { a: 1, b: 'x', c: [1, 2], d: { e: true } });
});

test('a body that is neither says where it broke', () => {
  const p = refusal(() => json('{"a": 1,\n "b": x}'));
  assert.match(p.message, /^The request body is not valid JSON at line 2, column 7/);
  assert.equal(p.details[0]!.path, undefined);
  assert.match(refusal(() => json('{"a": 1')).message, /not valid JSON/);
  assert.match(refusal(() => parseLenient('{', 'arguments')).message, /^The arguments /, 'the body is named as the caller calls it');
});

test('relaxed JSON is read only up to 64 KiB; larger bodies must be strict', () => {
  assert.equal(MAX_RELAXED_BYTES, 64 * 1024);
  const pad = ' '.repeat(MAX_RELAXED_BYTES);
  assert.equal((json(`{"a": 1, "pad": "${'x'.repeat(MAX_RELAXED_BYTES)}"}`) as { a: number }).a, 1, 'strict JSON of any size');
  const p = refusal(() => json(`{a: 1${pad}}`));
  assert.match(p.message, /relaxed JSON is read only in bodies up to 64 KiB/);
  assert.match(p.message, /at line 1, column \d+/);
  assert.deepEqual(json(`{a: 1${' '.repeat(MAX_RELAXED_BYTES - 10)}}`), { a: 1 });
});

test('a large body that is not JSON is refused at its place, without quoting it', () => {
  const p = refusal(() => json(`{"a":${' '.repeat(MAX_RELAXED_BYTES + 10)}}}`));
  assert.match(p.message, /at line 1, column \d+/);
  assert.doesNotMatch(p.message, /\}\}"/);
});

test('a text body may be key=value pairs, URL-decoded', () => {
  assert.deepEqual({ ...(textBody('a=1&b=x%20y+z&c=') as object) }, { a: '1', b: 'x y z', c: '' });
  assert.deepEqual({ ...(textBody('  name = ms3 ') as object) }, { name: ' ms3' }, 'keys are trimmed, values kept');
});

test('a JSON body is never read as pairs', () => {
  assert.match(refusal(() => json('a=1&b=2')).message, /not valid JSON/);
});

test('the relaxed reader takes = and => between a key and its value, as the product reader does', () => {
  assert.deepEqual(json("{target='cluster1'}"), { target: 'cluster1' });
  assert.deepEqual(json('{target => "cluster1", "n" = 2}'), { target: 'cluster1', n: 2 });
  assert.deepEqual(json("{a: 'x=y', b: \"p=>q\" /* c = d */, // e = f\n c: 1}"), { a: 'x=y', b: 'p=>q', c: 1 });
  // A key given twice is still refused, whatever separates it from its value.
  assert.match(refusal(() => json("{a='1', a='2'}")).message, /'a' appears more than once/);
  // What is not JSON-like at all still fails, saying where.
  assert.match(refusal(() => json('{a = = 1}')).message, /not valid JSON at line 1, column \d+/);
});

test('pairs refuse a key given twice, naming it', () => {
  const p = refusal(() => pairs('a=1&b=2&a=3'));
  assert.equal(p.details[0]!.path, 'a');
  assert.match(p.message, /The key 'a' appears more than once/);
  refusal(() => pairs('a=1& a=2'));
});

test('pairs make every key an own key, __proto__ included', () => {
  const out = pairs('__proto__=x&constructor=y');
  assert.equal(Object.hasOwn(out, '__proto__'), true);
  assert.equal(out.__proto__, 'x');
  assert.equal(out.constructor, 'y');
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('isPairs tells key=value text from other text', () => {
  for (const t of ['a=1', 'a=1&b=2', ' a = 1 ', 'a=', 'a=&b=', 'a.b=c=d', 'a=x y&b=1']) assert.equal(isPairs(t), true, t);
  for (const t of ['', 'a', 'a=1&b', 'a=1&', '=1', '{a=1}', '[a]=1', 'a b=1', 'a=1&&b=2', '&a=1']) assert.equal(isPairs(t), false, t);
});

test('a key repeated in one object is refused, naming key and place', () => {
  const top = refusal(() => json('{"a":1,"b":2,"a":3}'));
  assert.equal(top.details[0]!.path, 'a');
  assert.match(top.message, /The key 'a' appears more than once in one object of the request body; send each key once/);
  const nested = refusal(() => json('{"x":{"l":[{"a":1},{"a":1,"a":2}]}}'));
  assert.equal(nested.details[0]!.path, 'x.l[1].a');
  assert.match(nested.message, /\(in 'x\.l\[1\]'\)/);
});

test('the same key in different objects is fine', () => {
  assert.deepEqual(json('{"a":{"a":1},"b":[{"a":1},{"a":2}]}'), { a: { a: 1 }, b: [{ a: 1 }, { a: 2 }] });
});

test('keys are compared as the parser reads them: escapes and relaxed spellings', () => {
  assert.equal(refusal(() => json('{"a":1,"\\u0061":2}')).details[0]!.path, 'a');
  assert.equal(refusal(() => json("{a:1,'a':2}")).details[0]!.path, 'a');
  assert.equal(refusal(() => json('{a:1,"a":2}')).details[0]!.path, 'a');
  assert.equal(refusal(() => json('{\\u0061:1,a:2}')).details[0]!.path, 'a');
});

test('braces, quotes and colons inside strings and comments are not structure', () => {
  assert.deepEqual(json('{"k":"{\\"k\\":1,\\"k\\":2}","j":"a,b:c"}'), { k: '{"k":1,"k":2}', j: 'a,b:c' });
  assert.deepEqual(json("{k: '}{\"k\":1', /* k: 1, k: 2 */ j: 1 // k: 3\n}"), { k: '}{"k":1', j: 1 });
});

test('duplicateKey finds the first repeated key and where it is', () => {
  assert.equal(duplicateKey('{"a":1,"b":2}', false), undefined);
  assert.deepEqual(duplicateKey('{"a":{"b":1,"b":2},"a":3}', false), { key: 'b', at: 'a' });
  assert.deepEqual(duplicateKey('[0,{"a":1,"a":1}]', false), { key: 'a', at: '[1]' });
});

test('any object with distinct keys is accepted, and repeating one of its keys is refused', () => {
  const keys = fc.uniqueArray(text({ maxLength: 8 }), { minLength: 1, maxLength: 8 });
  fc.assert(
    fc.property(keys, fc.nat(), (list, pick) => {
      const members = list.map((k, i) => `${JSON.stringify(k)}:${i}`);
      assert.equal(duplicateKey(`{${members.join(',')}}`, false), undefined);
      const again = list[pick % list.length]!;
      assert.deepEqual(duplicateKey(`{${[...members, `${JSON.stringify(again)}:0`].join(',')}}`, false), { key: again, at: '' });
    }),
  );
});

test(`nesting is limited to ${MAX_DEPTH} levels, naming the top-level key at fault`, () => {
  const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  assert.doesNotThrow(() => json(nest(MAX_DEPTH)));
  assert.match(refusal(() => json(nest(MAX_DEPTH + 1))).message, /The request body is nested more than 64 levels deep/);
  assert.doesNotThrow(() => json(`{"deep":${nest(MAX_DEPTH - 1)}}`));
  const p = refusal(() => json(`{"ok":1,"deep":${nest(MAX_DEPTH)}}`));
  assert.equal(p.details[0]!.path, 'deep');
  assert.match(p.message, /The value of 'deep' in the request body is nested more than 64 levels deep/);
});

test('a null body reads as null, and a write refuses it', () => {
  assert.equal(json('null'), null);
  assert.match(refusal(() => bodyObject(null)).message, /The request body is null; send a JSON object \(at least \{\}\)/);
});

test('a write takes a JSON object only; no body is {}', () => {
  assert.deepEqual(bodyObject(undefined), {});
  assert.deepEqual(bodyObject({ a: 1 }), { a: 1 });
  for (const body of [[], 'x', 5, true]) assert.match(refusal(() => bodyObject(body)).message, /must be a JSON object/, JSON.stringify(body));
  assert.match(refusal(() => bodyObject([], 'arguments')).message, /The arguments must be a JSON object/);
});

// Bodies up to the largest accepted (1 MiB) in shapes that are slow for backtracking, recursive or
// rescanning readers. Read in linear time each takes milliseconds; a quadratic reader would take
// hours at this size, so the generous time-out can only catch a reader that is not linear.
const MiB = MAX_BODY_BYTES;
const third = Math.floor(MiB / 3);

test('pathological bodies of a megabyte are read in linear time', { timeout: 120_000 }, () => {
  const spaces = ' '.repeat(MiB - 16);
  // Neither JSON nor pairs.
  assert.match(refusal(() => textBody(`a=${spaces}&`)).message, /not valid JSON/);
  assert.match(refusal(() => textBody(`{"a":${spaces}`)).message, /not valid JSON/);
  assert.match(refusal(() => textBody(`[${'['.repeat(MiB / 2)}`)).message, /not valid JSON/);
  assert.match(refusal(() => textBody('&'.repeat(MiB))).message, /not valid JSON/);
  assert.match(refusal(() => textBody(`${'a'.repeat(MiB)}&`)).message, /not valid JSON/);
  // Pairs: many, or one with a long value.
  const many = Array.from({ length: MiB / 16 }, (_, i) => `k${i}=v`).join('&');
  assert.equal(Object.keys(textBody(many) as object).length, MiB / 16);
  assert.equal(isPairs(`a=${spaces}&b=1`), true);
  assert.equal(isPairs('a=&'.repeat(third)), false);
  // Deep and wide structures.
  assert.match(refusal(() => json(`${'['.repeat(MiB / 2)}${']'.repeat(MiB / 2)}`)).message, /nested more than 64 levels/);
  assert.equal((json(`[${'[],'.repeat(third - 1)}[]]`) as unknown[]).length, third);
  assert.equal((json(`[${'{"a":1},'.repeat(MiB / 8 - 1)}{"a":1}]`) as unknown[]).length, MiB / 8);
});

test('objects of a megabyte are checked for repeated keys in linear time', { timeout: 120_000 }, () => {
  const n = MiB / 16;
  const members = Array.from({ length: n }, (_, i) => `"k${i}":${i}`);
  assert.equal(Object.keys(json(`{${members.join(',')}}`) as object).length, n);
  // The repeat comes last, after every other key.
  assert.equal(refusal(() => json(`{${members.join(',')},"k0":1}`)).details[0]!.path, 'k0');
  // Escaped keys make the reader decode each one.
  const escaped = Array.from({ length: n / 2 }, (_, i) => `"\\u006b${i}":0`);
  assert.equal(Object.keys(json(`{${escaped.join(',')}}`) as object).length, n / 2);
  // Many nested objects, each with a few keys.
  const nested = `{"a":${'{"b":1,"c":'.repeat(60)}0${'}'.repeat(60)}}`;
  const wide = `[${Array.from({ length: MiB / nested.length }, () => nested).join(',')}]`;
  assert.ok((json(wide) as unknown[]).length > 1000);
  assert.equal(duplicateKey(wide, false), undefined);
  // A long string holding structure.
  const inString = `{"s":"${'{\\"a\\":1,'.repeat(MiB / 10)}"}`;
  assert.equal(duplicateKey(inString, false), undefined);
});

test('relaxed bodies just under 64 KiB are read in linear time', { timeout: 120_000 }, () => {
  const n = MAX_RELAXED_BYTES - 64;
  assert.deepEqual(json(`{a:${' '.repeat(n)}1}`), { a: 1 });
  assert.match(refusal(() => json(`{a:${' '.repeat(n)}`)).message, /not valid JSON/);
  assert.match(refusal(() => textBody(`{a:'${'x'.repeat(n)}`)).message, /not valid JSON/);
  assert.equal(Object.keys(json(`{${Array.from({ length: n / 12 }, (_, i) => `k${i}:1,`).join('')}}`) as object).length, n / 12);
  assert.ok(duplicateKey(`{${'/* */ '.repeat(n / 6)}a:1,a:2}`, true));
});
