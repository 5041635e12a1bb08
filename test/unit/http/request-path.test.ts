// Request paths (src/http/request-path.ts): partition prefix, interface, version and the remaining
// segments, each decoded exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type Problem, isProblem } from '../../../src/core/problems.js';
import { parseRequestPath } from '../../../src/http/request-path.js';
import { text } from '../../support/arbitraries.js';

function refusal(url: string): Problem {
  try {
    parseRequestPath(url);
  } catch (err) {
    assert.ok(isProblem(err), String(err));
    return err;
  }
  assert.fail(`${url} was accepted`);
}

test('a management path splits into interface, version and segments', () => {
  assert.deepEqual(parseRequestPath('/management/appserver/latest/edit/servers/ms1'), {
    prefix: [],
    api: 'appserver',
    version: 'latest',
    rest: ['edit', 'servers', 'ms1'],
  });
  assert.deepEqual(parseRequestPath('/management/lifecycle/12.2.1.0/runtimes'), { prefix: [], api: 'lifecycle', version: '12.2.1.0', rest: ['runtimes'] });
});

test('the version list has no version; the version root no segments', () => {
  assert.deepEqual(parseRequestPath('/management/appserver'), { prefix: [], api: 'appserver', rest: [] });
  assert.deepEqual(parseRequestPath('/management/appserver/latest'), { prefix: [], api: 'appserver', version: 'latest', rest: [] });
});

test('the query string and a trailing slash are not segments', () => {
  assert.deepEqual(parseRequestPath('/management/appserver/latest/edit/servers/?fields=name&x=/a/b').rest, ['edit', 'servers']);
  assert.deepEqual(parseRequestPath('/management/appserver/latest/edit?links=none').rest, ['edit']);
});

test('an encoded "/" stays inside its segment', () => {
  assert.deepEqual(parseRequestPath('/management/appserver/latest/edit/servers/a%2Fb').rest, ['edit', 'servers', 'a/b']);
});

test('segments are decoded once: an encoded escape stays an escape', () => {
  assert.deepEqual(parseRequestPath('/management/appserver/latest/edit/servers/a%252Fb').rest, ['edit', 'servers', 'a%2Fb']);
});

test('unicode and prototype names come through as sent', () => {
  assert.deepEqual(parseRequestPath('/management/appserver/latest/edit/servers/%C3%BCn%C3%AF%20%F0%9F%98%80').rest, ['edit', 'servers', 'ünï 😀']);
  assert.deepEqual(parseRequestPath('/management/appserver/latest/__proto__/constructor').rest, ['__proto__', 'constructor']);
});

test('any segments, encoded, come back decoded', () => {
  const segment = text({ minLength: 1, maxLength: 10 });
  fc.assert(
    fc.property(fc.array(segment, { maxLength: 5 }), (segments) => {
      const url = `/management/appserver/latest/${segments.map(encodeURIComponent).join('/')}`;
      assert.deepEqual(parseRequestPath(url).rest, segments);
    }),
  );
});

test('bad percent-encoding is a 400 naming the path', () => {
  for (const url of ['/management/appserver/latest/edit/servers/%E0%A4%A', '/management/appserver/latest/a%zz', '/management/appserver/latest/%ED%A0%80', '/management/appserver/latest/%']) {
    const p = refusal(url);
    assert.equal(p.kind, 'invalid', url);
    assert.match(p.message, /is not valid percent-encoding/, url);
    assert.ok(p.message.includes(url.split('?')[0]!), url);
  }
});

test('a partition name before management scopes the request', () => {
  assert.deepEqual(parseRequestPath('/partition1/management/appserver/latest/domainRuntime'), {
    prefix: ['partition1'],
    partition: 'partition1',
    api: 'appserver',
    version: 'latest',
    rest: ['domainRuntime'],
  });
  const long = parseRequestPath('/partitions/p%2F1/management/appserver/latest/edit');
  assert.equal(long.partition, 'p/1');
  assert.deepEqual(long.prefix, ['partitions', 'p%2F1'], 'the prefix is kept as sent');
});

test('any other prefix is not found, naming its first segment', () => {
  const p = refusal('/a/b/management/appserver/latest/edit');
  assert.equal(p.kind, 'not-found');
  assert.match(p.message, /'a'/);
  assert.equal(refusal('/partitions/p1/x/management/appserver/latest').kind, 'not-found');
});

test('paths outside the two interfaces are not found', () => {
  for (const [url, named] of [['/management/other/latest', 'other'], ['/management', '/management'], ['/nothing/here', 'nothing'], ['/', '/'], ['/management//appserver', '']] as const) {
    const p = refusal(url);
    assert.equal(p.kind, 'not-found', url);
    assert.ok(p.message.includes(`'${named}'`), `${url}: ${p.message}`);
  }
});

test('the first "management" segment decides; later ones are names', () => {
  const r = parseRequestPath('/management/appserver/latest/edit/servers/management');
  assert.deepEqual(r.rest, ['edit', 'servers', 'management']);
  assert.equal(r.partition, undefined);
});
