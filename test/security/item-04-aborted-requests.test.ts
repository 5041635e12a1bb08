// Item 4: clients that go away do not lock anybody out. The count of requests in progress went up
// for every request and down only when an answer was sent, so each request whose client vanished
// stayed counted for ever: about a thousand of them and every request got 503 until a restart. Now a
// request is counted off exactly once when its response closes, sent or not; the count shows as
// `pendingUserRequestCount` of the administration server's thread pool.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { adminAuth, call, startTestServer, type TestServer } from '../support/server.js';
import { begin, head } from '../support/raw-http.js';

let srv: TestServer;

before(async () => {
  srv = await startTestServer();
});

after(async () => {
  await srv.stop(true);
});

const POOL = 'serverRuntime/threadPoolRuntime?links=none&fields=pendingUserRequestCount,completedRequestCount';

/** Starts a request the server takes in (it says `100 Continue`), sends part of its body, and goes away. */
async function abandon(path: string, headers: Record<string, string>): Promise<void> {
  const { socket } = await begin(
    srv.server.port,
    head('POST', path, { 'content-type': 'application/json', 'content-length': 4096, expect: '100-continue', ...headers }),
    Buffer.from('{"notes": "never fin'),
  );
  socket.destroy();
}

test('item 04: after 1,200 abandoned requests an administrator still gets 200 and the in-flight count comes back down', async () => {
  const admin = { authorization: adminAuth, 'x-requested-by': 'item04' };
  const jobs: (() => Promise<void>)[] = [];
  for (let i = 0; i < 1200; i++) {
    // Anonymous ones to an application's context root, and an administrator's writes cut short.
    if (i % 3 === 0) jobs.push(() => abandon('/inventory/', {}));
    else if (i % 3 === 1) jobs.push(() => abandon('/management/appserver/latest/edit/servers/ms1', admin));
    else jobs.push(() => abandon('/management/appserver/latest/domainRuntime/serverRuntimes/AdminServer/threadPoolRuntime', admin));
  }
  // 20 at a time.
  const running = new Set<Promise<void>>();
  for (const job of jobs) {
    const p = job().finally(() => running.delete(p));
    running.add(p);
    if (running.size >= 20) await Promise.race(running);
  }
  await Promise.all(running);

  const me = await call(`${srv.latest}/currentUser`);
  assert.equal(me.status, 200, `an administrator after 1,200 abandoned requests: ${me.status} ${me.text}`);
  // The server hears of the last disconnections a moment after they happen: read until it has.
  let pending = Number.NaN;
  for (let i = 0; i < 200; i++) {
    const r = await call(`${srv.latest}/${POOL}`);
    assert.equal(r.status, 200, r.text);
    pending = r.json.pendingUserRequestCount;
    // This very request is the one in progress.
    if (pending === 1) break;
  }
  assert.equal(pending, 1, 'requests whose clients went away are still counted as in progress');
});

test('item 04: the count never goes below what is really in progress after refusals', async () => {
  // Refused early (no credentials, wrong Accept, bodies at a context root): each counted once, off once.
  for (let i = 0; i < 50; i++) {
    await call(`${srv.latest}/edit/servers`, { auth: null });
    await call(`${srv.latest}/edit/servers`, { headers: { accept: 'text/html' } });
    await call(`${srv.origin}/inventory/`, { method: 'POST', body: '{}', auth: null });
  }
  const r = await call(`${srv.latest}/${POOL}`);
  assert.equal(r.json.pendingUserRequestCount, 1, r.text);
});
