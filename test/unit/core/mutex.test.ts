// The mutex (src/core/mutex.ts): steps run one at a time, in the order they arrive, whatever
// becomes of the steps before them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Mutex } from '../../../src/core/mutex.js';

test('steps run one at a time, in arrival order', async () => {
  const mutex = new Mutex();
  const log: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const first = mutex.run(async () => {
    log.push('first starts');
    await gate;
    log.push('first ends');
    return 1;
  });
  const second = mutex.run(() => {
    log.push('second');
    return 2;
  });
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['first starts'], 'the second step waits for the first');
  release();
  assert.deepEqual(await Promise.all([first, second]), [1, 2]);
  assert.deepEqual(log, ['first starts', 'first ends', 'second']);
});

test('a failed step reports its error to its caller and does not stop the next', async () => {
  const mutex = new Mutex();
  const failed = mutex.run(() => {
    throw new Error('step failed');
  });
  const rejected = mutex.run(() => Promise.reject(new Error('async step failed')));
  const next = mutex.run(() => 'ran');
  await assert.rejects(failed, /step failed/);
  await assert.rejects(rejected, /async step failed/);
  assert.equal(await next, 'ran');
});
