// A watcher catching up on a long journal is fed at its own pace: while it reads, however slowly,
// it is waited for; one that takes nothing while holding more than it may leave unread is dropped.
// (A catch-up that waited one heartbeat and then counted the backlog dropped a client that was
// reading behind a busy machine.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SILENT_LOG } from '../../src/core/log.js';
import type { Store, StoredWatchEvent } from '../../src/store/store.js';
import { type WatchSink, WatchHub } from '../../src/watch/hub.js';

const EVENTS = 2000;
const EVENT_BYTES = 300;
const LIMITS = { heartbeatMs: 5, maxBacklogBytes: 4096 };

/** A journal of EVENTS events kept in memory, as the store pages it. */
function journal(): Store {
  const events: StoredWatchEvent[] = Array.from({ length: EVENTS }, (_, i) => ({ id: i + 1, time: 0, kind: 'runtime', data: { n: i + 1 } }));
  return {
    shared: false,
    latestWatchEvent: async () => EVENTS,
    watchEventsAfter: async (after: number, limit: number) => ({ events: events.filter((e) => e.id > after).slice(0, limit), trimmedThrough: 0 }),
  } as unknown as Store;
}

/** A client that takes `perWait` bytes each time the hub waits for it (0: it never reads). */
function reader(perWait: number) {
  const got: number[] = [];
  let backlog = 0;
  let closed: string | undefined;
  const sink: WatchSink = {
    event: (e) => {
      got.push(e.id);
      backlog += EVENT_BYTES;
    },
    reset: () => assert.fail('no reset expected'),
    heartbeat: () => undefined,
    backlog: () => backlog,
    drained: async (ms) => {
      await new Promise((r) => setTimeout(r, ms));
      backlog = Math.max(0, backlog - perWait);
    },
    close: (why) => {
      closed = why;
    },
  };
  return { sink, got, closed: () => closed };
}

const everything = (e: StoredWatchEvent) => ({ id: e.id, kind: 'runtime' as const, time: e.time });

test('a client that reads slowly gets the whole journal, in order, and stays', async () => {
  const hub = new WatchHub(journal(), SILENT_LOG, LIMITS);
  // A page of events is 150 kB; this client takes 10 kB per wait: fifteen waits a page.
  const slow = reader(10_000);
  const watch = await hub.watch({ user: 'u', view: everything, sink: slow.sink, lastEventId: 0 });
  assert.equal(slow.closed(), undefined, 'not dropped');
  assert.deepEqual(slow.got, Array.from({ length: EVENTS }, (_, i) => i + 1));
  assert.equal(hub.size, 1);
  watch.close();
  hub.close();
});

test('a client that takes nothing is dropped once it holds more than it may leave unread', async () => {
  const hub = new WatchHub(journal(), SILENT_LOG, LIMITS);
  const stuck = reader(0);
  await hub.watch({ user: 'u', view: everything, sink: stuck.sink, lastEventId: 0 });
  assert.equal(stuck.closed(), 'slow');
  assert.ok(stuck.got.length <= 500, `it was handed one page at most (${stuck.got.length} events)`);
  assert.equal(hub.size, 0, 'its place is free');
  hub.close();
});
