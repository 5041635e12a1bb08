// Binding an invocation, without a server: the overload is chosen by the body's keys, arguments are
// converted to their declared types (all problems reported together, each naming its argument),
// results become `{}` or `{"return": ...}`, and `Prefer` becomes a wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OverlayOverload, OverlayParam } from '../../src/catalog/overlay-format.js';
import { Problem } from '../../src/core/problems.js';
import { bindArguments, convertArgument, resultBody, signature } from '../../src/operations/bind.js';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, waitSeconds } from '../../src/operations/prefer.js';

const param = (name: string, type: string, array = false): OverlayParam => (array ? { name, type, array } : { name, type });
const SERVER = 'appserver.management.configuration.ServerMBean';

const shutdown = {
  name: 'shutdown',
  overloads: [
    { params: [], returns: 'void' },
    { params: [param('timeout', 'int'), param('ignoreSessions', 'boolean')], returns: 'void' },
    { params: [param('timeout', 'int'), param('ignoreSessions', 'boolean'), param('waitForAllSessions', 'boolean')], returns: 'void' },
  ] satisfies OverlayOverload[],
};

/** The details of the problem `fn` throws, as `path: detail` lines. */
function problemOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof Problem, `not a Problem: ${String(err)}`);
    assert.equal(err.kind, 'invalid');
    return err.details.map((d) => (d.path ? `${d.path}: ${d.detail}` : d.detail));
  }
  assert.fail('no problem was raised');
}

test('the overload is the one whose parameter names are exactly the body keys, in any order', () => {
  assert.equal(bindArguments(shutdown, {}).overload, shutdown.overloads[0]);
  const two = bindArguments(shutdown, { ignoreSessions: true, timeout: 30 });
  assert.equal(two.overload, shutdown.overloads[1]);
  assert.deepEqual(two.args, { timeout: 30, ignoreSessions: true });
  assert.equal(bindArguments(shutdown, { waitForAllSessions: false, timeout: 1, ignoreSessions: false }).overload, shutdown.overloads[2]);
});

test('a body matching no overload is refused, naming what was sent and every valid signature', () => {
  const expected = 'shutdown(), shutdown(timeout: int, ignoreSessions: boolean), shutdown(timeout: int, ignoreSessions: boolean, waitForAllSessions: boolean)';
  assert.deepEqual(problemOf(() => bindArguments(shutdown, { timeout: 1 })), [`The action 'shutdown' was called with the arguments timeout; valid signatures are: ${expected}.`]);
  assert.deepEqual(problemOf(() => bindArguments(shutdown, { timeout: 1, ignoreSessions: true, extra: 1 })), [
    `The action 'shutdown' was called with the arguments extra, ignoreSessions, timeout; valid signatures are: ${expected}.`,
  ]);
  const start = { name: 'start', overloads: [{ params: [param('partitionName', 'java.lang.String')], returns: 'void' }] };
  assert.deepEqual(problemOf(() => bindArguments(start, {})), ["The action 'start' was called with no arguments; valid signatures are: start(partitionName: string)."]);
});

test('every argument of the chosen overload is converted, and all problems are reported together', () => {
  const op = {
    name: 'probe',
    overloads: [{ params: [param('name', 'java.lang.String'), param('count', 'int'), param('flag', 'boolean'), param('target', SERVER)], returns: 'void' }],
  };
  assert.deepEqual(problemOf(() => bindArguments(op, { name: 5, count: 1.5, flag: 'yes', target: 'ms1' })), [
    "name: The argument 'name' of 'probe' must be a string, not 5.",
    "count: The argument 'count' of 'probe' must be an integer, not 1.5.",
    "flag: The argument 'flag' of 'probe' must be true or false.",
    `target: The argument 'target' of 'probe' must be a reference (an identity array such as ["servers", "ms1"]).`,
  ]);
  const ok = bindArguments(op, { name: 'x', count: '7', flag: 'false', target: { identity: ['servers', 'ms1'] } });
  assert.deepEqual(ok.args, { name: 'x', count: 7, flag: false, target: ['servers', 'ms1'] });
});

test('conversion by declared type', () => {
  const ok = (p: OverlayParam, v: unknown) => {
    const r = convertArgument(p, v);
    assert.ok('value' in r, `${JSON.stringify(v)} as ${p.type}: ${'problem' in r ? r.problem : ''}`);
    return r.value;
  };
  const problem = (p: OverlayParam, v: unknown) => {
    const r = convertArgument(p, v);
    assert.ok('problem' in r, `${JSON.stringify(v)} as ${p.type} was taken`);
    return r.problem;
  };
  // null and absent stay null: handlers say which arguments they need.
  assert.equal(ok(param('x', 'int'), null), null);
  assert.equal(ok(param('x', 'java.lang.String'), undefined), null);
  // Strings: only JSON strings, no NUL.
  assert.equal(ok(param('x', 'java.lang.String'), 'héllo'), 'héllo');
  assert.match(problem(param('x', 'java.lang.String'), true), /must be a string/);
  assert.match(problem(param('x', 'java.lang.String'), 'a\u0000b'), /NUL/);
  // Integers: int is 32 bits, long is a safe integer; the text of a plain number is taken.
  assert.equal(ok(param('x', 'int'), 2147483647), 2147483647);
  assert.match(problem(param('x', 'int'), 2147483648), /between -2147483648 and 2147483647/);
  assert.equal(ok(param('x', 'long'), 2147483648), 2147483648);
  assert.equal(ok(param('x', 'java.lang.Long'), '12'), 12);
  assert.match(problem(param('x', 'long'), 2 ** 60), /out of range/);
  assert.equal(ok(param('x', 'double'), 0.25), 0.25);
  assert.match(problem(param('x', 'double'), 'many'), /must be a number/);
  // Booleans: JSON booleans or their text.
  assert.equal(ok(param('x', 'java.lang.Boolean'), 'true'), true);
  assert.match(problem(param('x', 'boolean'), 1), /true or false/);
  // Properties: an object of strings.
  assert.deepEqual({ ...(ok(param('x', 'java.util.Properties'), { a: 'b' }) as object) }, { a: 'b' });
  assert.match(problem(param('x', 'java.util.Properties'), { a: 1 }), /entry "a"/);
  // References: an identity array, or an object holding one.
  assert.deepEqual(ok(param('x', SERVER), ['servers', 'ms1']), ['servers', 'ms1']);
  assert.deepEqual(ok(param('x', SERVER), { identity: ['servers', 'ms1'] }), ['servers', 'ms1']);
  assert.match(problem(param('x', SERVER), []), /must be a reference/);
  // Arrays: each element converted; the first bad one is reported.
  assert.deepEqual(ok(param('x', 'java.lang.String', true), ['a', 'b']), ['a', 'b']);
  assert.deepEqual(ok(param('x', SERVER, true), [['servers', 'ms1'], { identity: ['clusters', 'c1'] }]), [['servers', 'ms1'], ['clusters', 'c1']]);
  assert.match(problem(param('x', 'java.lang.String', true), 'a'), /must be a JSON array/);
  assert.match(problem(param('x', 'int', true), [1, 'two']), /must be an integer/);
});

test('signatures name each parameter with its type', () => {
  const o: OverlayOverload = { params: [param('targets', SERVER, true), param('names', 'java.lang.String', true), param('props', 'java.util.Properties'), param('n', 'long')], returns: 'void' };
  assert.equal(signature({ name: 'op' }, o), 'op(targets: [reference], names: [string], props: {key: string}, n: long)');
});

test('results: {} for void, {"return": value} otherwise, bean arrays as identities', () => {
  const isBean = (t: string) => t === SERVER;
  assert.deepEqual(resultBody({ params: [], returns: 'void' }, 'ignored', isBean), {});
  assert.deepEqual(resultBody({ params: [], returns: 'boolean' }, false, isBean), { return: false });
  assert.deepEqual(resultBody({ params: [], returns: 'java.lang.String' }, undefined, isBean), { return: null });
  assert.deepEqual(resultBody({ params: [], returns: SERVER }, ['servers', 'ms1'], isBean), { return: ['servers', 'ms1'] });
  assert.deepEqual(resultBody({ params: [], returns: SERVER, returnsArray: true }, [['servers', 'ms1']], isBean), { return: [{ identity: ['servers', 'ms1'] }] });
  assert.deepEqual(resultBody({ params: [], returns: 'java.lang.String', returnsArray: true }, ['a'], isBean), { return: ['a'] });
});

test('Prefer: respond-async is no wait, wait=N is N seconds capped at 300, anything else the default 30', () => {
  assert.equal(DEFAULT_WAIT_SECONDS, 30);
  assert.equal(MAX_WAIT_SECONDS, 300);
  const cases: [string | undefined, number][] = [
    [undefined, 30],
    ['', 30],
    ['respond-async', 0],
    ['wait=0', 0],
    ['wait=5', 5],
    ['WAIT=1', 1],
    ['wait=0.5', 0.5],
    ['respond-async, wait=7', 7],
    ['respond-async; wait=0', 0],
    ['wait=400', 300],
    ['wait=99999999999999999999', 300],
    ['wait=-1', 30],
    ['wait=abc', 30],
    ['wait=', 30],
    ['handling=lenient', 30],
  ];
  for (const [prefer, seconds] of cases) assert.equal(waitSeconds(prefer), seconds, `Prefer: ${String(prefer)}`);
});
