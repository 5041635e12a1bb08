// Client values to stored values (src/config/coerce.ts), on properties of the real catalog: each
// value kind, ranges, legal values, strings that cannot be stored, and references.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadCatalog } from '../../../src/catalog/load.js';
import type { PropDef } from '../../../src/catalog/model.js';
import {
  type Coerced,
  MAX_STRING_BYTES,
  coerce,
  decimalValue,
  integerValue,
  propertiesValue,
  stringProblem,
  stringValue,
} from '../../../src/config/coerce.js';
import { text } from '../../support/arbitraries.js';

const catalog = loadCatalog();
const CFG = 'appserver.management.configuration.';
const prop = (type: string, name: string): PropDef => {
  const p = catalog.type(type.includes('.') ? type : `${CFG}${type}MBean`).prop.get(name);
  assert.ok(p, `${type}.${name}`);
  return p;
};

const acceptBacklog = prop('Server', 'acceptBacklog'); // int, no range
const listenPort = prop('Server', 'listenPort'); // int, 1..65535
const administrationPort = prop('Server', 'administrationPort'); // int, 0..65535
const samplePeriod = prop('appserver.diagnostics.descriptor.WLDFHarvesterBean', 'samplePeriod'); // long
const multiplier = prop('SAFAgent', 'defaultRetryDelayMultiplier'); // double
const autoRestart = prop('Server', 'autoRestart'); // boolean
const listenAddress = prop('Server', 'listenAddress'); // string
const defaultProtocol = prop('Server', 'defaultProtocol'); // string, legal values
const stagingMode = prop('Server', 'stagingMode'); // string, legal values with null
const trapVersion = prop('SNMPAgent', 'SNMPTrapVersion'); // int, legal values 1..3
const tags = prop('Server', 'tags'); // string[]
const properties = prop('AuthModule', 'properties'); // properties
const startTime = prop('appserver.management.runtime.ServerLifeCycleTaskRuntimeMBean', 'startTime'); // date
const health = prop('appserver.management.runtime.ApplicationRuntimeMBean', 'healthState'); // health
const cluster = prop('Server', 'cluster'); // reference
const candidateMachines = prop('Server', 'candidateMachines'); // reference[]

function accepted(p: PropDef | Coerced, value?: unknown): unknown {
  const r = 'ok' in p ? p : coerce(p, value);
  assert.ok(r.ok, `refused ${JSON.stringify(value)}: ${r.ok ? '' : r.problem}`);
  return r.value;
}

function refused(p: PropDef | Coerced, value?: unknown): string {
  const r = 'ok' in p ? p : coerce(p, value);
  assert.ok(!r.ok, `accepted ${JSON.stringify(value)} as ${JSON.stringify(r.ok && r.value)}`);
  return r.problem;
}

test('the properties used here have the kinds they are chosen for', () => {
  assert.deepEqual(
    [acceptBacklog, samplePeriod, multiplier, autoRestart, listenAddress, tags, properties, startTime, health, cluster].map((p) => p.valueKind),
    ['int', 'long', 'double', 'boolean', 'string', 'string', 'properties', 'date', 'health', 'bean'],
  );
  assert.deepEqual([listenPort.min, listenPort.max], [1, 65535]);
  assert.equal(candidateMachines.array, true);
});

test('an int takes integers and integer text within a Java int', () => {
  assert.equal(accepted(acceptBacklog, 5), 5);
  assert.equal(accepted(acceptBacklog, '5'), 5);
  assert.equal(accepted(acceptBacklog, '-12'), -12);
  assert.equal(accepted(acceptBacklog, -2147483648), -2147483648);
  assert.equal(accepted(acceptBacklog, 2147483647), 2147483647);
  assert.equal(accepted(acceptBacklog, 5.0), 5);
});

test('an int refuses fractions, text that is not plain decimal, other types and overflow', () => {
  for (const value of [5.5, '5.0', '1e3', ' 5', '5 ', '0x10', '', '+5', true, null, [5], { v: 5 }, Number.NaN]) {
    assert.match(refused(acceptBacklog, value), /must be an integer/, JSON.stringify(value));
  }
  assert.match(refused(acceptBacklog, 2147483648), /must be between -2147483648 and 2147483647, not 2147483648/);
  assert.match(refused(acceptBacklog, '-2147483649'), /must be between -2147483648 and 2147483647/);
});

test('any int value and its decimal text are accepted as that number', () => {
  fc.assert(
    fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), (n) => {
      assert.equal(accepted(acceptBacklog, n), n);
      assert.equal(accepted(acceptBacklog, String(n)), n);
    }),
  );
});

test('a property\'s range is enforced, both ends included', () => {
  assert.equal(accepted(listenPort, 1), 1);
  assert.equal(accepted(listenPort, 65535), 65535);
  assert.match(refused(listenPort, 0), /must be between 1 and 65535, not 0/);
  assert.match(refused(listenPort, 65536), /must be between 1 and 65535, not 65536/);
  assert.match(refused(listenPort, '70000'), /not 70000/);
  assert.equal(accepted(administrationPort, 0), 0, '0 means "not set" where the default is 0');
  assert.match(refused(administrationPort, -1), /between 0 and 65535/);
});

test('the range helper checks any range it is given', () => {
  fc.assert(
    fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -2000, max: 2000 }), (a, b, n) => {
      const [min, max] = a <= b ? [a, b] : [b, a];
      const r = integerValue(n, 'long', { min, max });
      assert.equal(r.ok, n >= min && n <= max);
    }),
  );
});

test('a long takes any safe integer, and refuses what a double cannot hold exactly', () => {
  assert.equal(accepted(samplePeriod, 2 ** 40), 2 ** 40);
  assert.equal(accepted(samplePeriod, String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  assert.equal(accepted(samplePeriod, -(2 ** 53) + 1), -(2 ** 53) + 1);
  assert.match(refused(samplePeriod, 2 ** 53), /out of range/);
  assert.match(refused(samplePeriod, '9007199254740993'), /out of range/);
  assert.match(refused(samplePeriod, 1.5), /must be an integer/);
});

test('a double takes finite numbers and decimal text', () => {
  assert.equal(accepted(multiplier, 1.5), 1.5);
  assert.equal(accepted(multiplier, 2), 2);
  assert.equal(accepted(multiplier, '2.5'), 2.5);
  assert.equal(accepted(multiplier, '-1e3'), -1000);
  assert.equal(accepted(multiplier, '1.5E-2'), 0.015);
  for (const value of ['abc', '1.', '.5', '1e400', ' 1', 'Infinity', 'NaN', true, null, Number.POSITIVE_INFINITY, Number.NaN]) {
    assert.match(refused(multiplier, value), /must be a number/, JSON.stringify(value));
  }
  assert.equal(decimalValue(0).ok, true);
});

test('a boolean takes true and false, as JSON or text', () => {
  assert.equal(accepted(autoRestart, true), true);
  assert.equal(accepted(autoRestart, false), false);
  assert.equal(accepted(autoRestart, 'true'), true);
  assert.equal(accepted(autoRestart, 'false'), false);
  for (const value of ['TRUE', 'yes', 1, 0, '', null, []]) {
    assert.match(refused(autoRestart, value), /must be true or false/, JSON.stringify(value));
  }
});

test('a string takes text, and nothing else', () => {
  assert.equal(accepted(listenAddress, 'host.example'), 'host.example');
  assert.equal(accepted(listenAddress, ''), '');
  assert.equal(accepted(listenAddress, 'ünïcødé 日本 😀'), 'ünïcødé 日本 😀');
  for (const value of [5, true, ['a'], { a: 'b' }]) {
    assert.match(refused(listenAddress, value), /must be a string, not/, JSON.stringify(value));
  }
});

test('a string may not hold a NUL', () => {
  assert.match(refused(listenAddress, 'a\u0000b'), /NUL character/);
});

test('a string may not hold a lone surrogate, and the problem says where', () => {
  assert.match(refused(listenAddress, 'ab\uD800c'), /lone surrogate \(\\ud800\) at position 2/);
  assert.match(refused(listenAddress, '\uDC00'), /lone surrogate \(\\udc00\) at position 0/);
  assert.match(refused(listenAddress, 'x\uD83D'), /lone surrogate/, 'a high half at the end');
  assert.equal(accepted(listenAddress, '\uD83D\uDE00'), '😀', 'a whole pair is a character');
});

test('every valid string up to the limit is stored unchanged; one with a lone surrogate never', () => {
  const valid = text({ maxLength: 40 });
  fc.assert(
    fc.property(valid, (s) => {
      fc.pre(!s.includes('\u0000'));
      assert.equal(accepted(stringValue(s)), s);
    }),
  );
  fc.assert(
    fc.property(valid, valid, fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF'), (a, b, half) => {
      // A letter beside the half keeps it from pairing with a neighbour.
      refused(stringValue(`${a}x${half}x${b}`));
    }),
  );
});

test('a string is limited to 64 KiB of UTF-8, counted in bytes, not characters', () => {
  assert.equal(MAX_STRING_BYTES, 65536);
  assert.equal((accepted(listenAddress, 'a'.repeat(MAX_STRING_BYTES)) as string).length, MAX_STRING_BYTES);
  assert.match(refused(listenAddress, 'a'.repeat(MAX_STRING_BYTES + 1)), /is 65537 bytes long; a string may be at most 65536 bytes/);
  // 32,769 two-byte characters: fewer characters than the limit, more bytes.
  assert.match(refused(listenAddress, 'é'.repeat(32769)), /is 65538 bytes long/);
  assert.equal(stringProblem('😀'.repeat(16384)), undefined, 'four bytes each: exactly 64 KiB');
  assert.ok(stringProblem('😀'.repeat(16384) + 'a'));
});

test('legal values are enforced after coercion, and the problem lists them', () => {
  assert.equal(accepted(defaultProtocol, 'https'), 'https');
  const problem = refused(defaultProtocol, 'gopher');
  assert.match(problem, /has the value "gopher", which is not one of the legal values/);
  assert.match(problem, /"t3", "t3s", "http", "https", "iiop", "iiops"/);
  assert.equal(accepted(trapVersion, 2), 2);
  assert.equal(accepted(trapVersion, '3'), 3, 'text is coerced before the check');
  assert.match(refused(trapVersion, 4), /not one of the legal values 1, 2, 3/);
  assert.equal(accepted(stagingMode, 'stage'), 'stage');
  assert.match(refused(stagingMode, 'STAGE'), /legal values null, "stage"/);
});

test('an array takes a JSON array of its element kind', () => {
  assert.deepEqual(accepted(tags, ['a', 'b']), ['a', 'b']);
  assert.deepEqual(accepted(tags, []), []);
  assert.match(refused(tags, 'a'), /must be a JSON array, not "a"/);
  assert.match(refused(tags, ['a', 5]), /has an element \(at index 1\) that must be a string, not 5/);
  assert.match(refused(tags, ['a', 'b\u0000']), /at index 1\) that holds a NUL/);
});

test('an array is limited to 64 KiB of strings in all', () => {
  const half = 'a'.repeat(MAX_STRING_BYTES / 2);
  assert.equal((accepted(tags, [half, half]) as string[]).length, 2);
  assert.match(refused(tags, [half, half, 'a']), /holds more than 65536 bytes \(64 KiB\) of strings in all/);
});

test('properties take an object of names to strings, any name an own key', () => {
  assert.deepEqual({ ...(accepted(properties, { a: '1', 'b.c': '' }) as object) }, { a: '1', 'b.c': '' });
  const value = accepted(properties, JSON.parse('{"__proto__": "x", "constructor": "y"}')) as Record<string, string>;
  assert.equal(Object.hasOwn(value, '__proto__'), true);
  assert.equal(value.__proto__, 'x');
  assert.equal(value.constructor, 'y');
  assert.equal(({} as Record<string, unknown>).x, undefined, 'nothing leaks onto Object.prototype');
});

test('properties refuse other shapes, non-text values and bad names, naming the entry', () => {
  for (const value of [null, [], 'a=1', 5]) {
    assert.match(refused(properties, value), /must be an object of names to string values/, JSON.stringify(value));
  }
  assert.match(refused(properties, { a: 1 }), /has an entry "a" that must be a string, not 1/);
  assert.match(refused(properties, { a: '\uD800' }), /has an entry "a" that is not valid Unicode/);
  assert.match(refused(properties, { 'a\u0000': 'x' }), /has an entry name that holds a NUL/);
  const half = 'a'.repeat(MAX_STRING_BYTES / 2);
  assert.match(refused(properties, { [half]: half, b: 'c' }), /more than 65536 bytes \(64 KiB\) of names and values in all/);
  assert.equal(propertiesValue({}).ok, true);
});

test('a date takes ISO-8601 text or epoch milliseconds', () => {
  assert.equal(accepted(startTime, '2026-01-01T00:00:00Z'), Date.UTC(2026, 0, 1));
  assert.equal(accepted(startTime, '2026-01-01T01:00:00.500+01:00'), Date.UTC(2026, 0, 1, 0, 0, 0, 500));
  assert.equal(accepted(startTime, 0), 0);
  for (const value of ['yesterday', '', true, null, Number.NaN]) {
    assert.match(refused(startTime, value), /must be an ISO-8601 date or epoch milliseconds/, JSON.stringify(value));
  }
});

test('kinds a client cannot write are refused', () => {
  assert.match(refused(health, { state: 'ok' }), /cannot be set/);
});

test('a reference takes an identity or an object holding one', () => {
  assert.deepEqual(accepted(cluster, ['clusters', 'c1']), ['clusters', 'c1']);
  assert.deepEqual(accepted(cluster, { identity: ['clusters', 'c1'] }), ['clusters', 'c1']);
  for (const value of ['c1', [], [1], {}, { identity: 'c1' }, null]) {
    assert.match(refused(cluster, value), /must be a reference \(an identity array/, JSON.stringify(value));
  }
});

test('a list of references takes identities or objects, and names a bad element', () => {
  assert.deepEqual(accepted(candidateMachines, [['machines', 'm1'], { identity: ['machines', 'm2'] }]), [['machines', 'm1'], ['machines', 'm2']]);
  assert.deepEqual(accepted(candidateMachines, []), []);
  assert.match(refused(candidateMachines, ['machines', 'm1']), /holds "machines", which is not a reference/);
  assert.match(refused(candidateMachines, { identity: ['machines', 'm1'] }), /must be a list of references/);
});

test('a long value is shortened in the problem', () => {
  const problem = refused(acceptBacklog, 'x'.repeat(500));
  assert.ok(problem.length < 120, problem);
  assert.match(problem, /\.\.\./);
});
