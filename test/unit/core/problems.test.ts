// Problems (src/core/problems.ts) and the one place they become HTTP (src/http/errors.ts): every
// kind's status, the headers some kinds carry, and the JSON envelope every error leaves in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Problem,
  type ProblemKind,
  badGateway,
  badRequest,
  conflict,
  forbidden,
  gatewayTimeout,
  insufficientStorage,
  internal,
  invalid,
  isProblem,
  isStoreFailure,
  methodNotAllowed,
  notAcceptable,
  notFound,
  storeUnavailable,
  tooLarge,
  tooMany,
  unauthenticated,
  unavailable,
  unsupportedMediaType,
} from '../../../src/core/problems.js';
import { ERROR_TYPE, errorBody, problemBody, problemHeaders, statusOf } from '../../../src/http/errors.js';

// Every kind, with its status: a kind added without a status here fails to compile.
const STATUS: Record<ProblemKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'not-acceptable': 406,
  timeout: 408,
  'precondition-failed': 412,
  'too-large': 413,
  'unsupported-media-type': 415,
  'too-many': 429,
  internal: 500,
  'bad-gateway': 502,
  unavailable: 503,
  'store-unavailable': 503,
  'gateway-timeout': 504,
  'insufficient-storage': 507,
};

test('every kind of problem has its HTTP status', () => {
  for (const [kind, status] of Object.entries(STATUS) as [ProblemKind, number][]) {
    assert.equal(statusOf(new Problem(kind, [{ detail: 'x' }])), status, kind);
  }
});

test('each factory makes the kind its name says', () => {
  const cases: [Problem, ProblemKind][] = [
    [badRequest('x'), 'invalid'],
    [invalid([{ detail: 'x' }]), 'invalid'],
    [conflict('x'), 'invalid'],
    [notFound('x'), 'not-found'],
    [forbidden('x'), 'forbidden'],
    [unauthenticated('x'), 'unauthenticated'],
    [methodNotAllowed('PUT', ['GET']), 'method-not-allowed'],
    [notAcceptable('x'), 'not-acceptable'],
    [unsupportedMediaType('x'), 'unsupported-media-type'],
    [tooLarge('x'), 'too-large'],
    [tooMany('x', 5), 'too-many'],
    [unavailable('x', 1), 'unavailable'],
    [badGateway('x'), 'bad-gateway'],
    [gatewayTimeout('x'), 'gateway-timeout'],
    [internal('x'), 'internal'],
    [storeUnavailable('x'), 'store-unavailable'],
    [insufficientStorage('x'), 'insufficient-storage'],
  ];
  for (const [problem, kind] of cases) {
    assert.equal(problem.kind, kind, problem.message);
    assert.ok(problem instanceof Error);
    assert.equal(problem.name, 'Problem');
  }
});

test('a store that cannot be reached answers 503 with Retry-After; a full one 507; both are store failures', () => {
  const down = storeUnavailable('The store cannot be reached.');
  assert.equal(statusOf(down), 503);
  assert.equal(problemHeaders(down)['retry-after'], '5');
  assert.equal(statusOf(insufficientStorage('The disk is full.')), 507);
  assert.ok(isStoreFailure(down) && isStoreFailure(insufficientStorage('x')));
  assert.ok(!isStoreFailure(unavailable('busy', 1)) && !isStoreFailure(new Error('x')));
});

test('a conflict answers 400, as the product does', () => {
  assert.equal(statusOf(conflict('The lock is held by someone else.')), 400);
});

test('the message names the path of each detail', () => {
  assert.equal(badRequest('must be a number', 'listenPort').message, 'listenPort: must be a number');
  assert.equal(badRequest('The body is empty.').message, 'The body is empty.');
  const several = invalid([{ path: 'a', detail: 'bad a' }, { detail: 'bad body' }, { path: 'b', detail: 'bad b' }]);
  assert.equal(several.message, 'a: bad a; bad body; b: bad b');
});

test('not found names the segment, method not allowed the method and the ones allowed', () => {
  assert.match(notFound('ms9').message, /'ms9'/);
  const p = methodNotAllowed('DELETE', ['GET', 'POST']);
  assert.match(p.message, /DELETE/);
  assert.match(p.message, /GET or POST/);
});

test('isProblem tells problems from other errors, and checks the kind when asked', () => {
  assert.equal(isProblem(notFound('x')), true);
  assert.equal(isProblem(notFound('x'), 'not-found'), true);
  assert.equal(isProblem(notFound('x'), 'invalid'), false);
  assert.equal(isProblem(new Error('x')), false);
  assert.equal(isProblem({ kind: 'invalid', details: [] }), false);
  assert.equal(isProblem(undefined), false);
});

test('an unauthenticated problem carries the Basic challenge', () => {
  assert.deepEqual(problemHeaders(unauthenticated('Who are you?')), { 'www-authenticate': 'Basic realm="appserver"' });
});

test('a method not allowed carries the methods allowed', () => {
  assert.deepEqual(problemHeaders(methodNotAllowed('PUT', ['GET', 'POST', 'DELETE'])), { allow: 'GET, POST, DELETE' });
});

test('an unavailable problem says when to retry', () => {
  assert.deepEqual(problemHeaders(unavailable('Busy.', 5)), { 'retry-after': '5' });
  assert.deepEqual(problemHeaders(unavailable('Busy.', 0)), { 'retry-after': '0' });
});

test('other problems carry no headers', () => {
  for (const kind of Object.keys(STATUS) as ProblemKind[]) {
    if (kind === 'unauthenticated') continue;
    assert.deepEqual(problemHeaders(new Problem(kind, [{ detail: 'x' }])), {}, kind);
  }
});

test('one problem without a path leaves as a flat body', () => {
  assert.deepEqual(problemBody(notFound('ms9')), {
    status: 404,
    type: ERROR_TYPE,
    title: 'FAILURE',
    detail: "'ms9' was not found.",
  });
});

test('one problem with a path leaves as an ERRORS list naming the path', () => {
  assert.deepEqual(problemBody(badRequest('must be a number', 'listenPort')), {
    status: 400,
    type: ERROR_TYPE,
    title: 'ERRORS',
    'appserver:errorsDetails': [{ 'o:errorPath': 'listenPort', type: ERROR_TYPE, title: 'FAILURE', detail: 'must be a number' }],
  });
});

test('several problems leave as one ERRORS list, in order, paths where given', () => {
  const body = problemBody(invalid([{ path: 'a', detail: 'bad a' }, { detail: 'bad body' }]));
  assert.equal(body.status, 400);
  assert.equal(body.title, 'ERRORS');
  assert.equal('detail' in body, false);
  assert.deepEqual(body['appserver:errorsDetails'], [
    { 'o:errorPath': 'a', type: ERROR_TYPE, title: 'FAILURE', detail: 'bad a' },
    { type: ERROR_TYPE, title: 'FAILURE', detail: 'bad body' },
  ]);
});

test('the body carries the status of its kind, and the same type URL whatever the status', () => {
  for (const [kind, status] of Object.entries(STATUS) as [ProblemKind, number][]) {
    const body = problemBody(new Problem(kind, [{ detail: 'x' }]));
    assert.equal(body.status, status, kind);
    assert.equal(body.type, ERROR_TYPE, kind);
  }
});

test('errorBody builds the same envelope for errors that are not problems', () => {
  assert.deepEqual(errorBody(413, [{ detail: 'Too big.' }]), { status: 413, type: ERROR_TYPE, title: 'FAILURE', detail: 'Too big.' });
  assert.equal(errorBody(400, [{ detail: 'a' }, { detail: 'b' }]).title, 'ERRORS');
});
