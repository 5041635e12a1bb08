// Item 7: uploads leave nothing behind. A refused file size, a refused part count or a client that
// went away used to leave its staged files in `<uploadDir>/.incoming` for ever. Now the `model`
// part must come first and is judged before any archive byte is read; the request's staging folder
// is removed whatever happened; what an earlier process left is swept at start-up; and the bytes
// all uploads in progress may stage together are capped (503 while others hold the room, 413 for an
// upload that alone is larger).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { adminAuth, pollUntil } from '../support/runtime-server.js';
import { storeFor } from '../support/store.js';
import { BOUNDARY, type Part, type RawAnswer, begin, exchange, head, multipartBody } from '../support/raw-http.js';

const KiB = 1024;
/** Small limits, so that the test sends kilobytes: files up to 64 KiB, 100 KiB staged at once. */
const LIMITS = { fileBytes: 64 * KiB, stagingBytes: 100 * KiB };
const MODEL = (name: string) => `{ name: '${name}', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }`;

let dataDir: string;
let server: RunningServer;

async function start(): Promise<void> {
  const store = await storeFor(dataDir);
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    listeners: false,
    dataDir,
    ...(store ? { store } : {}),
    logLevel: 'silent',
    quiet: true,
    adminUser: 'admin',
    adminPassword: 'welcome1',
    scheduler: new ManualScheduler(),
    uploads: LIMITS,
  });
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'appserver-item07-'));
  await start();
});

after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const incoming = () => join(dataDir, 'applications', '.incoming');
const staged = () => (existsSync(incoming()) ? readdirSync(incoming(), { recursive: true }) : []);

function uploadHead(length: number | null, extra: Record<string, string> = {}): string {
  return head('POST', '/management/appserver/latest/edit/appDeployments', {
    authorization: adminAuth,
    'x-requested-by': 'item07',
    accept: 'application/json',
    prefer: 'respond-async',
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    ...(length === null ? { 'transfer-encoding': 'chunked' } : { 'content-length': length }),
    ...extra,
  });
}

function upload(parts: Part[]): Promise<RawAnswer> {
  const body = multipartBody(parts);
  return exchange(server.port, uploadHead(body.length), body);
}

/** Starts an upload of `parts` announcing its whole length, sends all but its last `held` bytes, and keeps the connection open. */
async function startUpload(parts: Part[], held: number) {
  const body = multipartBody(parts);
  const { socket, answer } = await begin(server.port, uploadHead(body.length, { expect: '100-continue' }), body.subarray(0, body.length - held));
  return { socket, answer, body };
}

/** Reads until the server's answer to a started request has arrived. */
function answerOf(s: { socket: import('node:net').Socket; answer: () => RawAnswer | undefined }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const a = s.answer();
      if (a) resolve(a);
    };
    check();
    s.socket.on('data', check);
    s.socket.on('close', () => (s.answer() ? check() : reject(new Error('closed without an answer'))));
  });
}

const archive = (bytes: number) => Buffer.alloc(bytes, 0x41);
const stagingEmpty = () => pollUntil(async () => staged(), (s) => s.length === 0, 'the staging folder');

test('item 07: the model part must come first, and says so', async () => {
  const r = await upload([
    { name: 'sourcePath', filename: 'first.war', data: archive(1000) },
    { name: 'model', data: MODEL('first') },
  ]);
  assert.equal(r.status, 400, r.text);
  assert.match(JSON.stringify(r.json), /'model' must come first/);
  const none = await upload([{ name: 'sourcePath', filename: 'nomodel.war', data: archive(1000) }]);
  assert.equal(none.status, 400, none.text);
  assert.match(JSON.stringify(none.json), /'model'/);
  assert.deepEqual(staged(), []);
});

test('item 07: the model is judged before any archive byte is read', { timeout: 30_000 }, async () => {
  // An application already deployed, and 60 KiB of archive of which only part is sent.
  const s = await startUpload([{ name: 'model', data: MODEL('inventory') }, { name: 'sourcePath', filename: 'inventory.war', data: archive(60 * KiB) }], 50 * KiB);
  const r = await answerOf(s);
  s.socket.destroy();
  assert.equal(r.status, 400, r.text);
  assert.match(r.text, /'inventory' is already deployed/);
  assert.deepEqual(staged(), []);
});

test('item 07: a file over the size limit is refused with 413 and leaves nothing staged', async () => {
  const r = await upload([{ name: 'model', data: MODEL('big1') }, { name: 'sourcePath', filename: 'big1.war', data: archive(LIMITS.fileBytes + 1) }]);
  assert.equal(r.status, 413, r.text);
  assert.match(r.json.detail, /'sourcePath' is larger than the server accepts/);
  await stagingEmpty();
  assert.equal((await exchange(server.port, head('GET', '/management/appserver/latest/edit/appDeployments/big1', { authorization: adminAuth }))).status, 404);
});

test('item 07: too many parts are refused and leave nothing staged', async () => {
  const parts: Part[] = [
    { name: 'model', data: MODEL('many1') },
    { name: 'sourcePath', filename: 'many1.war', data: archive(1000) },
    { name: 'deploymentPlan', filename: 'plan.xml', data: '<plan/>' },
    ...Array.from({ length: 6 }, (_, i) => ({ name: `extra${i}`, filename: `x${i}.war`, data: archive(1000) })),
  ];
  const r = await upload(parts);
  assert.ok(r.status === 400 || r.status === 413, r.text);
  assert.match(r.text, /extra0|more parts/);
  const twice = await upload([{ name: 'model', data: MODEL('many2') }, { name: 'sourcePath', filename: 'a.war', data: archive(1000) }, { name: 'sourcePath', filename: 'b.war', data: archive(1000) }]);
  assert.equal(twice.status, 400, twice.text);
  assert.match(twice.text, /'sourcePath' was sent twice/);
  await stagingEmpty();
});

test('item 07: a body that ends inside a part is refused and leaves nothing staged', async () => {
  for (const cutAt of [40, 200]) {
    const full = multipartBody([
      { name: 'model', data: MODEL(`cut${cutAt}`) },
      { name: 'sourcePath', filename: 'cut.war', data: archive(100) },
      { name: 'deploymentPlan', filename: 'plan.xml', data: archive(2000) },
    ]);
    // The length announced is the length sent: only the multipart body is cut short.
    const body = full.subarray(0, full.length - cutAt);
    const r = await exchange(server.port, uploadHead(body.length), body);
    assert.equal(r.status, 400, r.text);
    await stagingEmpty();
  }
});

test('item 07: an upload whose client goes away leaves nothing staged', async () => {
  const s = await startUpload([{ name: 'model', data: MODEL('gone1') }, { name: 'sourcePath', filename: 'gone1.war', data: archive(60 * KiB) }], 20 * KiB);
  await pollUntil(async () => staged(), (f) => f.length > 0, 'the upload being staged');
  s.socket.destroy();
  await stagingEmpty();
});

test('item 07: the bytes staged at once are capped: 503 while others hold the room, 413 for an upload larger than it', async () => {
  const parts = (name: string): Part[] => [{ name: 'model', data: MODEL(name) }, { name: 'sourcePath', filename: `${name}.war`, data: archive(60 * KiB) }];
  const first = await startUpload(parts('cap1'), 10 * KiB);
  await pollUntil(async () => staged(), (f) => f.length > 0, 'the first upload being staged');
  const second = await upload(parts('cap2'));
  assert.equal(second.status, 503, second.text);
  assert.match(second.json.detail, /staging area is full/);
  assert.ok(second.headers['retry-after'], 'no Retry-After');
  // Chunked (no length announced): counted as it arrives.
  const body = multipartBody(parts('cap3'));
  const chunked = await exchange(server.port, uploadHead(null), Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]));
  assert.equal(chunked.status, 503, chunked.text);
  // The first one finishes: the room is free again.
  first.socket.write(first.body.subarray(first.body.length - 10 * KiB));
  const done = await answerOf(first);
  first.socket.destroy();
  assert.equal(done.status, 202, done.text);
  await stagingEmpty();
  const again = await upload(parts('cap2'));
  assert.equal(again.status, 202, again.text);
  // One upload announcing more than the whole area.
  const huge = await begin(server.port, uploadHead(LIMITS.stagingBytes + 1, { expect: '100-continue' }));
  const r = await answerOf(huge);
  huge.socket.destroy();
  assert.equal(r.status, 413, r.text);
  assert.match(r.json.detail, /larger than the server can stage/);
  await stagingEmpty();
});

test('item 07: staging left by an earlier process is swept at start-up', async () => {
  await server.close();
  const stale = join(incoming(), 'left-by-a-crash');
  mkdirSync(stale, { recursive: true });
  writeFileSync(join(stale, 'part-1'), archive(1000));
  await start();
  assert.deepEqual(staged(), []);
  // The uploaded applications are still there.
  assert.ok(existsSync(join(dataDir, 'applications', 'cap1')));
});
