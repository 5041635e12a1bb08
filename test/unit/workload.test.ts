// The workload model: counters never go down, gauges stay within their bounds, highs never go down
// and never fall below the gauge, the same inputs always give the same figures, and real work is
// counted in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  GAUGE_STEP_MS,
  HOGGING_WARNING,
  channel,
  counter,
  dataSource,
  destination,
  gauge,
  gaugeHigh,
  jvm,
  persistentStore,
  sessions,
  threadPool,
  transactions,
  unit,
} from '../../src/runtime/workload.js';
import { PauseHistory, heapFromArguments } from '../../src/runtime/figures.js';

const HOUR = 3_600_000;
const seed = fc.string({ maxLength: 12 });
const time = fc.integer({ min: 0, max: 48 * HOUR });

test('unit numbers lie in [0, 1) and depend on every part', () => {
  fc.assert(fc.property(seed, seed, (a, b) => unit(a, b) >= 0 && unit(a, b) < 1));
  assert.notEqual(unit('ms1', 'heap'), unit('ms2', 'heap'));
  assert.notEqual(unit('ab', 'c'), unit('a', 'bc'));
});

test('a counter never goes down and averages its rate over long times', () => {
  fc.assert(
    fc.property(seed, fc.double({ min: 0.01, max: 100, noNaN: true }), time, time, (s, rate, a, b) => {
      const [t1, t2] = a <= b ? [a, b] : [b, a];
      return counter(s, 'x', rate, t1) <= counter(s, 'x', rate, t2);
    }),
  );
  const day = counter('ms1', 'requests', 10, 24 * HOUR);
  assert.ok(Math.abs(day - 10 * 24 * 3600) / (10 * 24 * 3600) < 0.01, `${day} over a day at 10/s`);
  assert.equal(counter('ms1', 'requests', 10, 0), 0);
});

test('a gauge stays within its bounds and moves in steps', () => {
  fc.assert(fc.property(seed, time, (s, t) => {
    const g = gauge(s, 'g', 3, 17, t);
    return g >= 3 && g <= 17;
  }));
  assert.equal(gauge('ms1', 'g', 0, 1, GAUGE_STEP_MS + 1), gauge('ms1', 'g', 0, 1, 2 * GAUGE_STEP_MS - 1));
  const values = new Set(Array.from({ length: 200 }, (_, i) => gauge('ms1', 'g', 0, 100, i * GAUGE_STEP_MS)));
  assert.ok(values.size > 50, 'the gauge hardly moves');
});

test('a high never goes down and is never below its gauge', () => {
  fc.assert(
    fc.property(seed, time, time, (s, a, b) => {
      const [t1, t2] = a <= b ? [a, b] : [b, a];
      const h1 = gaugeHigh(s, 'g', 0, 50, t1);
      return h1 <= gaugeHigh(s, 'g', 0, 50, t2) && h1 >= gauge(s, 'g', 0, 50, t1);
    }),
  );
});

test('the same inputs give the same figures; another server gives others', () => {
  assert.deepEqual(threadPool('ms1', HOUR), threadPool('ms1', HOUR));
  assert.notDeepEqual(threadPool('ms1', HOUR), threadPool('ms2', HOUR));
});

test('a JVM heap is consistent: free within current within max, uptime is the time running', () => {
  fc.assert(fc.property(seed, time, (s, t) => {
    const j = jvm(s, t);
    return j.heapFreeCurrent >= 0 && j.heapFreeCurrent <= j.heapSizeCurrent && j.heapSizeCurrent <= j.heapSizeMax && j.uptime === t && j.heapFreePercent >= 0 && j.heapFreePercent <= 100;
  }));
});

test('a thread pool counts real requests in, and warns exactly while threads hog', () => {
  const quiet = threadPool('ms1', HOUR);
  const busy = threadPool('ms1', HOUR, { requests: 25, bytesReceived: 0, bytesSent: 0 });
  assert.equal(busy.completedRequestCount, quiet.completedRequestCount + 25);
  let warnings = 0;
  for (let t = 0; t < 24 * HOUR; t += GAUGE_STEP_MS * 7) {
    const p = threadPool('ms1', t);
    assert.ok(p.executeThreadIdleCount >= 0 && p.executeThreadIdleCount <= p.executeThreadTotalCount);
    assert.equal(p.healthState, p.hoggingThreadCount >= HOGGING_WARNING ? 'warn' : 'ok');
    if (p.healthState === 'warn') warnings++;
  }
  assert.ok(warnings > 0, 'a day without a single hogging burst');
  assert.ok(warnings < 24 * HOUR / (GAUGE_STEP_MS * 7) / 4, 'the pool warns most of the time');
});

test('a channel counts what the server really served', () => {
  const before = channel('ms1', 'Default[http]', HOUR);
  const after = channel('ms1', 'Default[http]', HOUR, { requests: 3, bytesReceived: 300, bytesSent: 9000 });
  assert.equal(after.messagesReceivedCount - before.messagesReceivedCount, 3);
  assert.equal(after.bytesSentCount - before.bytesSentCount, 9000);
});

test('a destination receives nothing while insertion is paused', () => {
  const paused = destination('ms1', 'JMSServer1/Queue1', 10 * 60_000, 30 * 60_000);
  const later = destination('ms1', 'JMSServer1/Queue1', 10 * 60_000, 50 * 60_000);
  assert.equal(later.messagesReceivedCount, paused.messagesReceivedCount);
  assert.ok(later.messagesHighCount >= later.messagesCurrentCount);
});

test('a data source never uses more connections than it has, nor has more than its maximum', () => {
  fc.assert(fc.property(seed, time, fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 60 }), (s, t, initial, max) => {
    const d = dataSource(s, 'ds', t, initial, max);
    return d.activeConnectionsCurrentCount <= d.currCapacity && d.currCapacity <= Math.max(max, 1) && d.numAvailable + d.numUnavailable === d.currCapacity && d.activeConnectionsHighCount >= d.activeConnectionsCurrentCount;
  }));
});

test('counters of stores, sessions and transactions never go down', () => {
  const sample = (f: (t: number) => Record<string, number | string>) => {
    let prev = f(0);
    for (let t = GAUGE_STEP_MS; t < 6 * HOUR; t += 61_000) {
      const next = f(t);
      for (const [k, v] of Object.entries(next)) {
        if (/(Count|Total|Received|TotalCount)$/.test(k) && !/Current|Pending|active|objectCount/.test(k)) {
          assert.ok((v as number) >= (prev[k] as number), `${k} went down at ${t}: ${prev[k]} -> ${v}`);
        }
      }
      prev = next;
    }
  };
  sample((t) => ({ ...persistentStore('ms1', 'FileStore1', t) }));
  sample((t) => ({ ...sessions('ms1/benefits', t) }));
  sample((t) => ({ ...transactions('ms1', t) }));
  const tx = transactions('ms1', HOUR);
  assert.equal(tx.transactionTotalCount, tx.transactionCommittedTotalCount + tx.transactionRolledBackTotalCount);
});

test('-Xmx of the start arguments gives the heap maximum; anything else does not', () => {
  assert.equal(heapFromArguments('-Xms256m -Xmx1g -Dx=1'), 1024);
  assert.equal(heapFromArguments('-Xmx768m'), 768);
  assert.equal(heapFromArguments('-Xmx2097152k'), 2048);
  assert.equal(heapFromArguments('-Xmx512m -Xmx640m'), 640, 'the last one wins, as for a JVM');
  for (const none of [undefined, 42, '', '-Xms1g', '-Xmx', '-Xmx0m', '-Xmx99999999999g', '-Dp=-Xmx1g']) assert.equal(heapFromArguments(none), undefined, String(none));
});

test('pauses count once where they overlap, and never beyond the window asked about', () => {
  const h = new PauseHistory();
  h.note('server', true, 100);
  h.note('dest', true, 150);
  h.note('server', false, 200);
  h.note('dest', false, 300);
  h.note('dest', true, 400);
  assert.equal(h.pausedMs(['server', 'dest'], 0, 350), 200);
  assert.equal(h.pausedMs(['server', 'dest'], 0, 500), 300, 'an open pause counts up to the end of the window');
  assert.equal(h.pausedMs(['server'], 150, 1000), 50);
  assert.equal(h.pausedMs(['nothing'], 0, 1000), 0);
  // Noting the same state twice changes nothing.
  h.note('dest', true, 450);
  assert.equal(h.pausedMs(['dest'], 0, 500), 250);
  h.forget('de');
  assert.equal(h.known('dest'), false);
});
