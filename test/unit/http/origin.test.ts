// The origin hrefs are built on (src/http/origin.ts): which Host values are taken, how a trusted
// proxy's forwarded values and the socket's own address are used, and the trusted-proxy list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { originOf, parseTrustedProxies, validHost } from '../../../src/http/origin.js';

test('host names, IPv4 and bracketed IPv6 addresses, with or without a port, are valid hosts', () => {
  for (const host of ['localhost', 'admin.example.com', 'admin.example.com.', 'my_host', 'ADMIN-1.Example', 'localhost:7001', '127.0.0.1', '10.0.0.1:65535', '[::1]', '[::1]:7001', '[fd00::1:2]:1', '[::ffff:127.0.0.1]', 'a'.repeat(63)]) {
    assert.equal(validHost(host), host, host);
  }
});

test('anything that could not be part of a URL is not a host', () => {
  for (const host of [
    undefined,
    '',
    'a b',
    'evil.com/path',
    'evil.com?x',
    'evil.com#x',
    'user@evil.com',
    'host:0',
    'host:65536',
    'host:99999',
    'host:',
    'host:7001:1',
    '999.1.1.1',
    '1.2.3',
    '[not-ipv6]',
    '[1.2.3.4]',
    '::1',
    '-host',
    'host-',
    '.host',
    'a..b',
    'a'.repeat(64),
    `${'a.'.repeat(130)}a`,
    'héllo',
    'host\r\nx: y',
  ]) {
    assert.equal(validHost(host), undefined, JSON.stringify(host));
  }
});

interface FakeRequest {
  protocol?: string;
  host?: string;
  headers?: Record<string, string>;
  socket?: { localAddress?: string; localPort?: number; encrypted?: boolean };
}

/** A request as Fastify presents it, reduced to what originOf reads. */
function request({ protocol, host, headers = {}, socket = { localAddress: '127.0.0.1', localPort: 7001 } }: FakeRequest): FastifyRequest {
  return { protocol, host, headers, raw: { socket } } as unknown as FastifyRequest;
}

test('the origin is the protocol and the host the client used', () => {
  assert.equal(originOf(request({ protocol: 'http', host: 'admin.example:7001' })), 'http://admin.example:7001');
  assert.equal(originOf(request({ protocol: 'HTTPS', host: 'admin.example' })), 'https://admin.example');
});

test('a protocol other than http or https falls back to the socket\'s', () => {
  assert.equal(originOf(request({ protocol: 'gopher', host: 'h' })), 'http://h');
  assert.equal(originOf(request({ protocol: 'javascript', host: 'h', socket: { encrypted: true, localAddress: '127.0.0.1', localPort: 1 } })), 'https://h');
  assert.equal(originOf(request({ host: 'h', socket: { encrypted: true } })), 'https://h');
});

test('an invalid host falls back to the Host header, then to the socket\'s address', () => {
  assert.equal(originOf(request({ protocol: 'http', host: 'evil/x', headers: { host: 'admin:7001' } })), 'http://admin:7001');
  assert.equal(originOf(request({ protocol: 'http', host: 'evil/x', headers: { host: 'also bad' } })), 'http://127.0.0.1:7001');
  assert.equal(originOf(request({ protocol: 'http' })), 'http://127.0.0.1:7001');
});

test('the socket\'s address is written as a URL needs it', () => {
  assert.equal(originOf(request({ protocol: 'http', socket: { localAddress: '::1', localPort: 7001 } })), 'http://[::1]:7001');
  assert.equal(originOf(request({ protocol: 'http', socket: { localAddress: '::ffff:10.0.0.5', localPort: 80 } })), 'http://10.0.0.5:80');
  assert.equal(originOf(request({ protocol: 'http', socket: {} })), 'http://127.0.0.1');
});

test('trusted proxies are IP addresses and CIDR ranges, listed or comma-separated', () => {
  assert.deepEqual(parseTrustedProxies('10.0.0.5'), ['10.0.0.5']);
  assert.deepEqual(parseTrustedProxies('10.0.0.0/8, fd00::/8 ,,127.0.0.1'), ['10.0.0.0/8', 'fd00::/8', '127.0.0.1']);
  assert.deepEqual(parseTrustedProxies(['10.0.0.1', '::1/128,192.168.0.0/16']), ['10.0.0.1', '::1/128', '192.168.0.0/16']);
  assert.deepEqual(parseTrustedProxies(['0.0.0.0/0', '::/0']), ['0.0.0.0/0', '::/0']);
  assert.deepEqual(parseTrustedProxies(''), []);
});

test('anything else is refused, naming the entry', () => {
  for (const entry of ['proxy.example', '10.0.0.0/33', 'fd00::/129', '/8', '10.0.0.0/', '10.0.0.0/8/1', '10.0.0.0/-1', '10.0.0.0/08a', '300.0.0.1', '10.0.0']) {
    assert.throws(() => parseTrustedProxies(['127.0.0.1', entry]), (err: Error) => err.message.includes(`'${entry}'`), entry);
  }
});
