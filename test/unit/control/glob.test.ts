// Path patterns of faults and journal filters: `*` any run, `?` one character, the rest literal
// (regular-expression characters included), and a hostile pattern answered without backtracking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globMatch } from '../../../src/control/glob.js';

test('globMatch: stars, question marks and literal characters', () => {
  const P = '/management/appserver/*/domainRuntime/serverLifeCycleRuntimes*';
  assert.equal(globMatch(P, '/management/appserver/latest/domainRuntime/serverLifeCycleRuntimes'), true);
  assert.equal(globMatch(P, '/management/appserver/12.2.1.3.0/domainRuntime/serverLifeCycleRuntimes/ms1/start'), true);
  assert.equal(globMatch(P, '/management/appserver/latest/domainRuntime/serverRuntimes'), false);
  assert.equal(globMatch('/a?c', '/abc'), true);
  assert.equal(globMatch('/a?c', '/ac'), false);
  assert.equal(globMatch('/x.y(z)', '/x.y(z)'), true);
  assert.equal(globMatch('/x.y', '/xzy'), false, 'a dot is a dot');
  assert.equal(globMatch('*', ''), true);
  assert.equal(globMatch('', ''), true);
  assert.equal(globMatch('/a', '/a/b'), false, 'the whole path must match');
});

test('globMatch: a pattern built to backtrack is answered at once', () => {
  const hostile = `/${'*a'.repeat(200)}b`;
  const path = `/${'a'.repeat(16_000)}`;
  assert.equal(globMatch(hostile, path), false);
});
