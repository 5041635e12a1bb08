// Watchers that read slowly or not at all. A generated domain (300 running servers, one partition
// on all of them) makes a journal of about a megabyte: partition starts and stops change the
// partition's state on every server (about half a megabyte of events each). A watcher resuming from the start of it receives all of it,
// at its own pace; a client that never reads is dropped (its place is free again) instead of
// being buffered without end.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { ADMIN, ASYNC, type Client, assertAccepted, client, completed, createUser, testServerOptions } from '../support/runtime-server.js';
import { openStream, watch } from '../support/sse.js';

const PARTITION = 'domainRuntime/domainPartitionRuntimes/partition0/partitionLifeCycleRuntime';
const BACKLOG = 64 * 1024;

let server: RunningServer;
let scheduler: ManualScheduler;
let admin: Client;
let latest: string;
let dataDir: string;

let cycles = 0;
/** Starts or stops the partition (whichever it is not), on the clock. */
async function cycle(): Promise<void> {
  const op = cycles++ % 2 === 0 ? 'start' : 'forceShutdown';
  const r = await admin.post(`${PARTITION}/${op}`, {}, ASYNC);
  const location = assertAccepted(r, op);
  scheduler.advance(600_000);
  await completed(admin, location);
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'appserver-watch-slow-'));
  scheduler = new ManualScheduler();
  server = await startServer({
    ...(await testServerOptions(dataDir)),
    scheduler,
    template: { servers: 300, clusters: 1, partitions: 1, applications: 0, running: true },
    watch: { heartbeatMs: 200, maxBacklogBytes: BACKLOG, maxWatchersPerUser: 1 },
  });
  latest = `http://127.0.0.1:${server.port}/management/appserver/latest`;
  admin = client(() => latest);
  // The journal: the partition started, stopped and started again on 300 servers.
  for (let i = 0; i < 3; i++) await cycle();
});

after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a watcher resuming from the first event gets the whole journal (far more than it may leave unread) at its own pace', async () => {
  // The catch-up is over when the server says it is watching. The journal is written behind the
  // changes (in batches), so the last cycle's events may still be on their way to the store: read
  // again, for a bounded time, until the catch-up holds all three cycles.
  const isPartitionEvent = (e: { event: string; data: { subject?: unknown; server?: unknown } }) => e.event === 'runtime' && e.data.subject === 'partition' && e.data.server !== undefined;
  const deadline = Date.now() + 15_000;
  const pause = () => new Promise((resolve) => setTimeout(resolve, 250));
  let probe: Awaited<ReturnType<typeof watch>>;
  for (;;) {
    try {
      probe = await watch(`${latest}/watch`, admin.auth, { 'last-event-id': '0' });
    } catch (err) {
      // The previous probe's place (one watcher per user here) may not be free yet.
      if (Date.now() > deadline) throw err;
      await pause();
      continue;
    }
    if (probe.events.filter(isPartitionEvent).length >= 3 * 300 || Date.now() > deadline) break;
    probe.close();
    await pause();
  }
  const all = probe.events;
  const last = Number(all[all.length - 1]!.id);
  assert.ok(probe.text().length > 8 * BACKLOG, `the journal is ${probe.text().length} bytes`);
  const partitionEvents = all.filter(isPartitionEvent);
  assert.ok(partitionEvents.length >= 3 * 300, `${partitionEvents.length} partition state events`);
  assert.ok(last >= all.length);
  probe.close();
});

test('a client that does not read is dropped, and its place is free again', async () => {
  const slowAuth = await createUser(admin, 'slowReader', 'slowReader1', 'Monitors');
  // A raw connection that asks for everything since the first event and then never reads.
  const socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  // The first bytes are read (the watch is open), then nothing more.
  const head = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
  socket.write(`GET /management/appserver/latest/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${slowAuth}\r\nAccept: text/event-stream\r\nLast-Event-ID: 0\r\n\r\n`);
  assert.match(await head, /^HTTP\/1\.1 200 /);
  socket.pause();
  try {
    // Only one watch per user: a second one is refused while the first counts, accepted once it
    // was dropped (the raw connection stays open on this side all along). The system's socket
    // buffers take a few megabytes first: more events come until they are full.
    let refusals = 0;
    for (;;) {
      const s = await openStream(`${latest}/watch`, slowAuth);
      if (s.status === 200) {
        s.close();
        break;
      }
      assert.equal(s.status, 429, s.text());
      refusals++;
      s.close();
      assert.ok(cycles < 40, 'the client that does not read is still watching');
      await cycle();
    }
    assert.ok(refusals > 0, 'the slow watch counted while it was open');
    assert.equal(socket.destroyed, false, 'the client itself never closed');
  } finally {
    socket.destroy();
  }
});
