// The product's JSON layout: same value as JSON.stringify, four-space indent, '/' escaped, and an
// array holding one object printed as `[{ ... }]`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { printJson } from '../../src/render/json-text.js';

test('the text is JSON for the same value, whatever the value', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      assert.deepEqual(JSON.parse(printJson(v)), JSON.parse(JSON.stringify(v)));
    }),
    { numRuns: 500 },
  );
});

test('an array whose only element is an object opens and closes on the object lines', () => {
  const text = printJson({ links: [{ rel: 'job', href: 'http://h:7001/x' }], identity: ['serverLifeCycleRuntimes', 'ms1'] });
  assert.equal(
    text,
    [
      '{',
      '    "links": [{',
      '        "rel": "job",',
      '        "href": "http:\\/\\/h:7001\\/x"',
      '    }],',
      '    "identity": [',
      '        "serverLifeCycleRuntimes",',
      '        "ms1"',
      '    ]',
      '}',
    ].join('\n'),
  );
});

test('several objects, empty values and nesting keep the usual layout', () => {
  assert.equal(printJson({}), '{}');
  assert.equal(printJson([]), '[]');
  assert.equal(printJson({ items: [], o: {}, one: [{}] }), '{\n    "items": [],\n    "o": {},\n    "one": [{}]\n}');
  assert.equal(printJson([{ a: 1 }, { b: 2 }]), '[\n    {\n        "a": 1\n    },\n    {\n        "b": 2\n    }\n]');
  assert.equal(printJson({ a: [{ b: [{ c: null }] }] }), '{\n    "a": [{\n        "b": [{\n            "c": null\n        }]\n    }]\n}');
  assert.equal(printJson([[1]]), '[\n    [\n        1\n    ]\n]');
});

test('undefined members are left out, like JSON.stringify does', () => {
  assert.equal(printJson({ a: undefined, b: 1 }), '{\n    "b": 1\n}');
  assert.equal(printJson([undefined]), '[\n    null\n]');
});

test('strings and keys are written as JSON.stringify writes them, with every / escaped (escaped where printed, not over the whole text)', () => {
  const escaped = (s: string) => JSON.stringify(s).replaceAll('/', '\\/');
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      for (const s of [a, b, `${a}/${b}`, `"${a}\\${b}\u2028`]) {
        assert.equal(printJson(s), escaped(s));
        assert.equal(printJson({ [s]: s }), `{\n    ${escaped(s)}: ${escaped(s)}\n}`);
      }
    }),
    { numRuns: 1000 },
  );
  assert.equal(printJson(['\ud800', 'a\udfffb', '\u0000\u001f', 'http://h/x']), '[\n    "\\ud800",\n    "a\\udfffb",\n    "\\u0000\\u001f",\n    "http:\\/\\/h\\/x"\n]');
});
