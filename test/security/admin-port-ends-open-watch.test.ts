// A watch stream opened on the plain port before the domain's administration port is enabled must
// not go on carrying the domain's changes once management is served on the administration port
// alone: the plain port refuses a new watch (403), so the one already open ends too, at its next
// event, without sending it. Closing the administration port again ends only its own streams: the
// watch goes on being served on the plain port.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type RuntimeServer, adminAuth, pollUntil, startRuntimeServer } from '../support/runtime-server.js';
import { freePortOffset, refused } from '../support/ports.js';

const started: RuntimeServer[] = [];
after(async () => {
  for (const s of started) await s.stop(true).catch(() => undefined);
});

/** A POST over HTTPS trusting only `ca`; the status back. */
function securePost(url: string, ca: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpsRequest(url, { method: 'POST', ca, timeout: 10_000, headers: { accept: 'application/json', 'content-type': 'application/json', 'x-requested-by': 'sec', authorization: adminAuth } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(text);
  });
}

test('a watch opened on the plain port ends when the administration port takes management, and carries no change made after; once that port closes, the watch is served again', { timeout: 120_000 }, async () => {
  const offset = await freePortOffset([9002]);
  const srv = await startRuntimeServer(undefined, undefined, { portOffset: offset });
  started.push(srv);

  const res = await fetch(`${srv.latest}/watch`, { headers: { accept: 'text/event-stream', authorization: adminAuth } });
  assert.equal(res.status, 200);
  let text = '';
  let closed = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(piece, { stream: true });
    closed = true;
  })().catch(() => {
    closed = true;
  });
  await pollUntil(async () => text, (t) => t.includes(': watching'), 'the watch is open');

  assert.equal((await srv.admin.post('edit/changeManager/startEdit')).status, 200);
  assert.equal((await srv.admin.post('edit', { administrationPortEnabled: true })).status, 200);
  assert.equal((await srv.admin.post('edit/changeManager/activate')).status, 200);
  await pollUntil(() => refused(9002 + offset), (r) => !r, 'the administration port opens', 20_000);
  assert.equal((await srv.admin.get('domainConfig?links=none')).status, 403, 'the plain port refuses management now');

  // A change made through the administration port.
  const ca = readFileSync(join(srv.dataDir, 'certificates', 'listener-cert.pem'), 'utf8');
  const secure = `https://127.0.0.1:${9002 + offset}/management/appserver/latest`;
  assert.equal(await securePost(`${secure}/edit/changeManager/startEdit`, ca, {}), 200);
  assert.equal(await securePost(`${secure}/edit/servers`, ca, { name: 'afterTheSwitch' }), 201);
  assert.equal(await securePost(`${secure}/edit/changeManager/activate`, ca, {}), 200);

  await pollUntil(async () => closed, (c) => c, 'the plain port ends the open watch', 20_000);
  await reading;
  assert.doesNotMatch(text, /afterTheSwitch/, 'no change made after the switch reaches the plain port');
  assert.match(text, new RegExp(`administration port \\(https://127\\.0\\.0\\.1:${9002 + offset}\\)`), 'the stream says where management went');

  // Turned off again: the administration port closes, and the plain port serves the watch again
  // (before, closing that port stopped the watch of the whole process: every watch then got 429).
  assert.equal(await securePost(`${secure}/edit/changeManager/startEdit`, ca, {}), 200);
  assert.equal(await securePost(`${secure}/edit`, ca, { administrationPortEnabled: false }), 200);
  assert.equal(await securePost(`${secure}/edit/changeManager/activate`, ca, {}), 200);
  await pollUntil(() => refused(9002 + offset), (r) => r, 'the administration port closes', 20_000);
  const again = new AbortController();
  const reopened = await fetch(`${srv.latest}/watch`, { headers: { accept: 'text/event-stream', authorization: adminAuth }, signal: again.signal });
  assert.equal(reopened.status, 200, `a watch on the plain port after the administration port closed: ${reopened.status}`);
  again.abort();
});
