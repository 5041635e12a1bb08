// The read cache's own rules, without a server: bounded by bytes (least recently used first), a
// body too large or showing self-moving figures never kept, an answer rendered across a change never
// kept, and figures of the workload model held only while the clock and served requests stand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadCache } from '../../src/api/read-cache.js';
import { ChangeSignal, announcing } from '../../src/core/changes.js';
import { ManualScheduler } from '../../src/core/clock.js';

const plain = { figures: false, volatile: false };
const body = (n: number, c = 'x') => ({ bytes: Buffer.from(c.repeat(n)), etag: `"${c}${n}"` });

function cache(maxBytes = 1000, maxEntryBytes = 600) {
  const clock = { now: 0, served: 0 };
  const c = new ReadCache({ maxBytes, maxEntryBytes }, { now: () => clock.now, served: () => clock.served });
  return { c, clock };
}

test('bounded by bytes: the least recently used entry goes first', () => {
  const { c } = cache();
  c.put('a', body(400, 'a'), plain, c.ticket());
  c.put('b', body(400, 'b'), plain, c.ticket());
  assert.ok(c.get('a'), 'a read again: now the most recently used');
  c.put('c', body(400, 'c'), plain, c.ticket());
  assert.ok(c.heldBytes <= 1000, `${c.heldBytes} bytes held`);
  assert.equal(c.get('b'), undefined, 'b was the least recently used');
  assert.equal(c.get('a')?.bytes.toString(), 'a'.repeat(400));
  assert.ok(c.get('c'));
});

test('too large, or showing figures that move by themselves: not kept', () => {
  const { c } = cache();
  c.put('big', body(700), plain, c.ticket());
  assert.equal(c.get('big'), undefined);
  c.put('moving', body(10), { figures: false, volatile: true }, c.ticket());
  assert.equal(c.get('moving'), undefined);
  const off = cache(0, 600).c;
  off.put('any', body(10), plain, off.ticket());
  assert.equal(off.get('any'), undefined, 'maxBytes 0 keeps nothing');
  assert.equal(off.heldBytes, 0);
});

test('a change forgets everything; an answer begun before a change is not kept', () => {
  const { c } = cache();
  const changes = new ChangeSignal();
  changes.listen(() => c.clear());
  c.put('a', body(10), plain, c.ticket());
  const begun = c.ticket();
  changes.changed();
  assert.equal(c.get('a'), undefined);
  assert.equal(c.heldBytes, 0);
  c.put('b', body(10), plain, begun);
  assert.equal(c.get('b'), undefined, 'rendered across a change');
});

test('figures of the model: held while the clock and served requests stand', () => {
  const { c, clock } = cache();
  const figures = { figures: true, volatile: false };
  c.put('jvm', body(10), figures, c.ticket());
  assert.ok(c.get('jvm'));
  clock.now++;
  assert.equal(c.get('jvm'), undefined, 'the clock moved');
  c.put('jvm', body(10), figures, c.ticket());
  clock.served++;
  assert.equal(c.get('jvm'), undefined, 'a request was counted into figures');
  const begun = c.ticket();
  clock.now++;
  c.put('jvm', body(10), figures, begun);
  assert.equal(c.get('jvm'), undefined, 'rendered while the clock moved');
});

test('what falls due on the clock tells the change signal once it ran', () => {
  const manual = new ManualScheduler();
  const changes = new ChangeSignal();
  const seen: number[] = [];
  let ran = 0;
  changes.listen(() => seen.push(ran));
  const scheduler = announcing(manual, changes);
  scheduler.after(10, () => ran++);
  assert.equal(scheduler.now(), manual.now());
  manual.advance(5);
  assert.deepEqual(seen, []);
  manual.advance(5);
  assert.deepEqual(seen, [1], 'told after the callback ran');
});
