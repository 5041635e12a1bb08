// The clock (src/core/clock.ts): a manual scheduler that runs what falls due in time order when it
// is moved, and bounded waits that move with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ManualScheduler, RealScheduler, settlesWithin } from '../../../src/core/clock.js';

/** A promise and the functions that settle it. */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise reaction run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

test('the manual clock starts where it is told and moves only when advanced', () => {
  const clock = new ManualScheduler(1_000);
  assert.equal(clock.now(), 1_000);
  clock.advance(250);
  assert.equal(clock.now(), 1_250);
  assert.equal(new ManualScheduler().now(), Date.UTC(2026, 0, 1));
});

test('a callback runs when its time comes, not before', () => {
  const clock = new ManualScheduler(0);
  const ran: number[] = [];
  clock.after(100, () => ran.push(clock.now()));
  clock.advance(99);
  assert.deepEqual(ran, []);
  assert.equal(clock.waiting, 1);
  clock.advance(1);
  assert.deepEqual(ran, [100]);
  assert.equal(clock.waiting, 0);
});

test('callbacks run in time order, and in scheduling order at the same time', () => {
  const clock = new ManualScheduler(0);
  const ran: string[] = [];
  clock.after(30, () => ran.push('c'));
  clock.after(10, () => ran.push('a'));
  clock.after(20, () => ran.push('b1'));
  clock.after(20, () => ran.push('b2'));
  clock.advance(1_000);
  assert.deepEqual(ran, ['a', 'b1', 'b2', 'c']);
});

test('any set of delays runs sorted by delay, ties in scheduling order', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 30 }), fc.integer({ min: 0, max: 60 }), (delays, step) => {
      const clock = new ManualScheduler(0);
      const ran: number[] = [];
      delays.forEach((d, i) => clock.after(d, () => ran.push(i)));
      clock.advance(step);
      const due = delays.map((d, i) => [d, i] as const).filter(([d]) => d <= step);
      due.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      assert.deepEqual(ran, due.map(([, i]) => i));
      assert.equal(clock.waiting, delays.length - due.length);
    }),
  );
});

test('each callback sees the clock at its own due time', () => {
  const clock = new ManualScheduler(0);
  const seen: number[] = [];
  for (const d of [5, 15, 40]) clock.after(d, () => seen.push(clock.now()));
  clock.advance(100);
  assert.deepEqual(seen, [5, 15, 40]);
  assert.equal(clock.now(), 100);
});

test('a callback may schedule another: it runs in the same advance if it falls due', () => {
  const clock = new ManualScheduler(0);
  const ran: [string, number][] = [];
  clock.after(10, () => {
    ran.push(['first', clock.now()]);
    clock.after(10, () => ran.push(['second', clock.now()]));
    clock.after(500, () => ran.push(['later', clock.now()]));
  });
  clock.after(15, () => ran.push(['between', clock.now()]));
  clock.advance(100);
  assert.deepEqual(ran, [['first', 10], ['between', 15], ['second', 20]]);
  assert.equal(clock.waiting, 1);
  clock.advance(410);
  assert.deepEqual(ran.at(-1), ['later', 510]);
});

test('a chain of callbacks each scheduling the next runs as far as the clock goes', () => {
  const clock = new ManualScheduler(0);
  let ticks = 0;
  const tick = () => {
    ticks++;
    clock.after(100, tick);
  };
  clock.after(100, tick);
  clock.advance(1_050);
  assert.equal(ticks, 10);
  assert.equal(clock.waiting, 1);
});

test('a cancelled callback never runs; cancelling twice or after it ran is harmless', () => {
  const clock = new ManualScheduler(0);
  const ran: string[] = [];
  const a = clock.after(10, () => ran.push('a'));
  const b = clock.after(10, () => ran.push('b'));
  a.cancel();
  a.cancel();
  assert.equal(clock.waiting, 1);
  clock.advance(10);
  assert.deepEqual(ran, ['b']);
  b.cancel();
  clock.advance(10);
  assert.deepEqual(ran, ['b']);
});

test('a callback may cancel one due at the same time', () => {
  const clock = new ManualScheduler(0);
  const ran: string[] = [];
  let second: { cancel(): void } | undefined;
  clock.after(10, () => {
    ran.push('first');
    second?.cancel();
  });
  second = clock.after(10, () => ran.push('second'));
  clock.advance(10);
  assert.deepEqual(ran, ['first']);
});

test('a negative or zero delay runs on the next advance, even of zero', () => {
  const clock = new ManualScheduler(0);
  const ran: string[] = [];
  clock.after(-5, () => ran.push('negative'));
  clock.after(0, () => ran.push('zero'));
  assert.deepEqual(ran, [], 'nothing runs while scheduling');
  clock.advance(0);
  assert.deepEqual(ran, ['negative', 'zero']);
  assert.equal(clock.now(), 0);
});

test('settlesWithin is true when the work settles before the time is up', async () => {
  const clock = new ManualScheduler(0);
  const work = deferred();
  const wait = settlesWithin(clock, 1_000, work.promise);
  clock.advance(999);
  work.resolve();
  assert.equal(await wait, true);
  assert.equal(clock.waiting, 0, 'the time-out is cancelled');
});

test('settlesWithin counts a failure as settling', async () => {
  const clock = new ManualScheduler(0);
  const work = deferred();
  const wait = settlesWithin(clock, 1_000, work.promise);
  work.reject(new Error('failed'));
  assert.equal(await wait, true);
});

test('settlesWithin is false once the manual clock passes the limit', async () => {
  const clock = new ManualScheduler(0);
  const work = deferred();
  let result: boolean | undefined;
  void settlesWithin(clock, 1_000, work.promise).then((r) => (result = r));
  clock.advance(999);
  await flush();
  assert.equal(result, undefined, 'still waiting at 999 ms');
  clock.advance(1);
  await flush();
  assert.equal(result, false);
  // Settling afterwards changes nothing.
  work.resolve();
  await flush();
  assert.equal(result, false);
});

test('settlesWithin gives up at once for no time at all or an aborted signal', async () => {
  const clock = new ManualScheduler(0);
  const never = new Promise<void>(() => {});
  assert.equal(await settlesWithin(clock, 0, never), false);
  assert.equal(await settlesWithin(clock, -1, never), false);
  assert.equal(await settlesWithin(clock, 1_000, never, AbortSignal.abort()), false);
  assert.equal(clock.waiting, 0, 'nothing was scheduled');
});

test('settlesWithin is false when the signal aborts while waiting, and lets the clock go', async () => {
  const clock = new ManualScheduler(0);
  const controller = new AbortController();
  const work = deferred();
  const wait = settlesWithin(clock, 60_000, work.promise, controller.signal);
  assert.equal(clock.waiting, 1);
  controller.abort();
  assert.equal(await wait, false);
  assert.equal(clock.waiting, 0, 'the time-out is cancelled');
  work.resolve();
});

test('settlesWithin ignores a signal aborted after the work settled', async () => {
  const clock = new ManualScheduler(0);
  const controller = new AbortController();
  const wait = settlesWithin(clock, 1_000, Promise.resolve(), controller.signal);
  assert.equal(await wait, true);
  controller.abort();
  assert.equal(await wait, true);
});

test('the real scheduler runs a callback after its delay, and never once cancelled', async () => {
  const real = new RealScheduler();
  assert.equal(typeof real.now(), 'number');
  // Its timers do not keep a process alive: this one does, while the test waits.
  const alive = setInterval(() => {}, 1_000);
  try {
    const ran: string[] = [];
    real.after(0, () => ran.push('cancelled')).cancel();
    await new Promise<void>((resolve) => real.after(0, () => resolve()));
    await new Promise<void>((resolve) => real.after(1, () => resolve()));
    assert.deepEqual(ran, []);
  } finally {
    clearInterval(alive);
  }
});
