// Round 3, item 8: an upload announcing a body it never sends used to reserve its whole declared
// length in the staging area at once, so one request with `Content-Length: 1 GiB` and no bytes kept
// every other upload out (503) for two minutes. Now room is taken as bytes arrive, a declared length
// larger than the area is refused at once (413), and an upload that stops arriving is cut (408) and
// leaves nothing staged. Small limits here: files of 64 KiB, 200 KiB staged at once, and a body is
// cut after 1.5 s without a byte.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BOUNDARY, type Part, begin, exchange, head, multipartBody } from '../support/raw-http.js';
import { pollUntil } from '../support/runtime-server.js';
import { adminAuth, startTestServer, type TestServer } from '../support/server.js';

const KiB = 1024;
const LIMITS = { fileBytes: 64 * KiB, stagingBytes: 200 * KiB };
const MODEL = (name: string) => `{ name: '${name}', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }`;

let srv: TestServer;

before(async () => {
  srv = await startTestServer(undefined, { uploads: LIMITS, requests: { bodyProgress: { idleMs: 1500, minBytesPerSecond: 0 } } });
});

after(async () => {
  await srv.stop(true);
});

const incoming = () => join(srv.dataDir, 'applications', '.incoming');
const staged = () => (existsSync(incoming()) ? readdirSync(incoming(), { recursive: true }) : []);

function uploadHead(length: number, extra: Record<string, string> = {}): string {
  return head('POST', '/management/appserver/latest/edit/appDeployments', {
    authorization: adminAuth,
    'x-requested-by': 'round3-08',
    accept: 'application/json',
    prefer: 'respond-async',
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    'content-length': length,
    ...extra,
  });
}

const parts = (name: string, bytes: number): Part[] => [{ name: 'model', data: MODEL(name) }, { name: 'sourcePath', filename: `${name}.war`, data: Buffer.alloc(bytes, 0x41) }];

test('item 8: a declared length holds no staging room until its bytes arrive; the stalled upload is cut with 408', { timeout: 60_000 }, async () => {
  // Announces the whole staging area, sends its model and the start of the archive, then nothing.
  const body = multipartBody(parts('claims-all', 60 * KiB));
  const claim = await begin(srv.server.port, uploadHead(LIMITS.stagingBytes, { expect: '100-continue' }), body.subarray(0, 4 * KiB));
  await pollUntil(async () => staged(), (f) => f.length > 0, 'the announced upload being staged');
  // Another upload of 60 KiB goes through while the first one still claims 200 KiB.
  const other = multipartBody(parts('arrives-whole', 60 * KiB));
  const r = await exchange(srv.server.port, uploadHead(other.length), other);
  assert.equal(r.status, 202, r.text);
  // The first one stops arriving: 408, its connection closed, its staging removed.
  const cut = await new Promise<ReturnType<typeof claim.answer>>((resolve) => {
    const check = () => claim.answer() && resolve(claim.answer());
    claim.socket.on('data', check);
    claim.socket.on('close', () => resolve(claim.answer()));
    check();
  });
  claim.socket.destroy();
  assert.equal(cut?.status, 408, cut?.text);
  assert.match(cut!.json.detail, /request body stopped arriving \(no byte of the request body arrived for 1\.5 s\)/);
  await pollUntil(async () => staged(), (f) => f.length === 0, 'the staging folder');
  assert.equal((await exchange(srv.server.port, head('GET', '/management/appserver/latest/edit/appDeployments/claims-all', { authorization: adminAuth }))).status, 404);
});

test('item 8: a declared length larger than the staging area is refused at once with 413', async () => {
  const huge = await exchange(srv.server.port, uploadHead(1024 * 1024 * 1024));
  assert.equal(huge.status, 413, huge.text);
  assert.match(huge.json.detail, /larger than the server can stage \(0\.2 MiB in all\)/);
  assert.deepEqual(staged(), []);
});
