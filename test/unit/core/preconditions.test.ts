// The conditional headers as RFC 9110 judges them: If-Match compares strongly, If-None-Match weakly;
// a read whose If-None-Match matches is "not modified", a change is refused; malformed lists are 400s.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestTag, evaluate, parseTagList } from '../../../src/core/preconditions.js';
import { Problem } from '../../../src/core/problems.js';

const TAG = digestTag('state one');
const OTHER = digestTag('state two');

function failsWith(fn: () => unknown, kind: string, pattern: RegExp): Problem {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof Problem, String(err));
    assert.equal(err.kind, kind);
    assert.match(err.message, pattern);
    return err;
  }
  assert.fail('no problem raised');
}

test('a digest tag is strong, quoted, stable and differs with the state', () => {
  assert.match(TAG, /^"[A-Za-z0-9_-]{22}"$/);
  assert.equal(digestTag('state one'), TAG);
  assert.notEqual(OTHER, TAG);
});

test('tag lists: *, one tag, several, weak ones, spaces', () => {
  assert.equal(parseTagList(' * ', 'If-Match'), '*');
  assert.deepEqual(parseTagList('"a"', 'If-Match'), [{ weak: false, opaque: 'a' }]);
  assert.deepEqual(parseTagList('W/"a" ,"b",  W/""', 'If-None-Match'), [
    { weak: true, opaque: 'a' },
    { weak: false, opaque: 'b' },
    { weak: true, opaque: '' },
  ]);
  for (const bad of ['a', '"a', 'a"', '"a" "b"', 'W/a', '', ',', '"a",,', '"a\\"b"', `"${'x'.repeat(5000)}"`]) {
    failsWith(() => parseTagList(bad, 'If-Match'), 'invalid', /If-Match/);
  }
});

test('no condition: proceed', () => {
  assert.equal(evaluate(undefined, TAG, true, 'x'), 'proceed');
  assert.equal(evaluate({}, undefined, false, 'x'), 'proceed');
});

test('If-Match: strong comparison; * needs a current representation; a failure says the current tag', () => {
  assert.equal(evaluate({ ifMatch: TAG }, TAG, false, 'x'), 'proceed');
  assert.equal(evaluate({ ifMatch: `${OTHER}, ${TAG}` }, TAG, false, 'x'), 'proceed');
  assert.equal(evaluate({ ifMatch: '*' }, TAG, false, 'x'), 'proceed');
  const stale = failsWith(() => evaluate({ ifMatch: OTHER }, TAG, false, "'servers/ms1'"), 'precondition-failed', /'servers\/ms1' changed since/);
  assert.equal(stale.hints.etag, TAG);
  failsWith(() => evaluate({ ifMatch: `W/${TAG}` }, TAG, false, 'x'), 'precondition-failed', /changed since/);
  failsWith(() => evaluate({ ifMatch: '*' }, undefined, false, "'servers/none'"), 'precondition-failed', /does not exist/);
  // Reads are judged too: a GET with a stale If-Match is refused.
  failsWith(() => evaluate({ ifMatch: OTHER }, TAG, true, 'x'), 'precondition-failed', /changed since/);
});

test('If-None-Match: weak comparison; 304 for reads, 412 for changes; * matches anything that exists', () => {
  assert.equal(evaluate({ ifNoneMatch: TAG }, TAG, true, 'x'), 'not-modified');
  assert.equal(evaluate({ ifNoneMatch: `W/${TAG}` }, TAG, true, 'x'), 'not-modified');
  assert.equal(evaluate({ ifNoneMatch: '*' }, TAG, true, 'x'), 'not-modified');
  assert.equal(evaluate({ ifNoneMatch: OTHER }, TAG, true, 'x'), 'proceed');
  assert.equal(evaluate({ ifNoneMatch: '*' }, undefined, false, 'x'), 'proceed');
  failsWith(() => evaluate({ ifNoneMatch: '*' }, TAG, false, "'a'"), 'precondition-failed', /'a' exists/);
  failsWith(() => evaluate({ ifNoneMatch: TAG }, TAG, false, "'a'"), 'precondition-failed', /still has the entity tag/);
});

test('If-Match is judged before If-None-Match', () => {
  failsWith(() => evaluate({ ifMatch: OTHER, ifNoneMatch: OTHER }, TAG, true, 'x'), 'precondition-failed', /If-Match/);
  assert.equal(evaluate({ ifMatch: TAG, ifNoneMatch: TAG }, TAG, true, 'x'), 'not-modified');
});
