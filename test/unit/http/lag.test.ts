// The event-loop lag measure: a blocked loop shows its block at once, a loop on time shows almost
// none, and a server that has only just started is not taken for an overloaded one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LoopLag } from '../../../src/http/lag.js';

const block = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: the loop is blocked
  }
};
const tick = () => new Promise((resolve) => setTimeout(resolve, 120));

test('a block of the loop shows as lag, and lag fades once the loop is on time again', async () => {
  const lag = new LoopLag(20);
  lag.start();
  try {
    assert.ok(lag.lagMs < 400, `a loop just started is late by ${lag.lagMs} ms`);
    block(600);
    assert.ok(lag.lagMs >= 500, `a block still going on shows: ${lag.lagMs}`);
    await tick();
    for (let i = 0; i < 30 && lag.lagMs >= 100; i++) await tick();
    assert.ok(lag.lagMs < 100, `the lag does not fade: ${lag.lagMs}`);
  } finally {
    lag.stop();
  }
});

test('a measure that is not running reports no lag', () => {
  const lag = new LoopLag();
  assert.equal(lag.lagMs, 0);
});
