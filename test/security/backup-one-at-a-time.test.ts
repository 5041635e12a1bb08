// GET /appserver/backup holds a copy of every row of the store until its client has read the
// answer. A client that asks for backups and does not read them must not make the server hold one
// copy per request: while one backup is being sent, another is refused (429, Retry-After), and once
// that client goes away the next one is served.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type TestServer, adminAuth, call, startTestServer } from '../support/server.js';

let srv: TestServer | undefined;
after(async () => {
  await srv?.stop().catch(() => undefined);
});

test('a second backup while one is being sent is refused with 429; once its client leaves, the next is served', { timeout: 120_000 }, async () => {
  srv = await startTestServer();
  // An archive in the data directory larger than the connection's buffers, so that a client that
  // does not read keeps its backup under way.
  mkdirSync(join(srv.dataDir, 'applications', 'big'), { recursive: true });
  writeFileSync(join(srv.dataDir, 'applications', 'big', 'big.ear'), randomBytes(40 * 1024 * 1024));

  const url = new URL(`${srv.origin}/appserver/backup`);
  const slow = connect({ host: url.hostname, port: Number(url.port) });
  let head = '';
  await new Promise<void>((resolve, reject) => {
    slow.once('error', reject);
    slow.once('connect', () => {
      slow.write(`GET /appserver/backup HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${adminAuth}\r\nX-Requested-By: sec\r\n\r\n`);
      // Read the status line, then stop reading.
      slow.on('data', (d: Buffer) => {
        head += d.toString('latin1', 0, Math.min(d.length, 200));
        if (head.includes('\r\n')) {
          slow.pause();
          slow.removeAllListeners('data');
          resolve();
        }
      });
    });
  });
  assert.match(head, /^HTTP\/1\.1 200/, 'the first backup is being sent');

  const second = await call(url.href, { headers: { 'x-requested-by': 'sec' } });
  assert.equal(second.status, 429, second.text.slice(0, 300));
  assert.ok(Number(second.headers.get('retry-after')) > 0, 'Retry-After says when to ask again');
  assert.match(second.json.detail, /one at a time/);

  slow.destroy();
  let third = second;
  for (let i = 0; i < 100 && third.status === 429; i++) {
    await new Promise((r) => setTimeout(r, 100));
    third = await call(url.href, { headers: { 'x-requested-by': 'sec', accept: 'application/x-ndjson' } });
  }
  assert.equal(third.status, 200, `after the first client left: ${third.text.slice(0, 300)}`);
  assert.match(third.text.trimEnd().split('\n').at(-1)!, /^\{"end":true/, 'the backup is whole');
});
