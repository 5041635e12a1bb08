// The progress bar of start, stop and deploy: drawn on a terminal only, filling with finished
// sub-tasks when a task has them, full when the task completed; nothing at all on a pipe or file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressBar } from '../../src/cli/client/output.js';

function stream(isTTY: boolean) {
  let text = '';
  return { s: { isTTY, columns: 100, write: (t: string) => ((text += t), true) } as unknown as NodeJS.WriteStream, text: () => text };
}

test('on a terminal: a bar redrawn in place, filled by finished sub-tasks, full at the end', () => {
  const out = stream(true);
  const bar = new ProgressBar(out.s, 'start ms1');
  bar.update({ completed: false, progress: 'processing', taskStatus: 'TASK IN PROGRESS', subTasks: [{ completed: true }, { completed: false }] }, 1500);
  assert.match(out.text(), /^\r\[={12} {12}\] start ms1  TASK IN PROGRESS  1\.5s\u001b\[K$/);
  bar.update({ completed: true, progress: 'success' }, 2000);
  bar.end();
  assert.match(out.text(), /\r\[={24}\] start ms1  done  2\.0s\u001b\[K\n$/);
});

test('without sub-tasks the bar sweeps, so a running task is seen to be alive', () => {
  const out = stream(true);
  const bar = new ProgressBar(out.s, 'deploy app');
  bar.update({ completed: false, progress: 'processing', state: 'STATE_RUNNING' }, 100);
  bar.update({ completed: false, progress: 'processing', state: 'STATE_RUNNING' }, 200);
  const frames = out.text().split('\r').filter(Boolean);
  assert.equal(frames.length, 2);
  assert.notEqual(frames[0], frames[1]);
  for (const f of frames) assert.match(f, /^\[ *<=> *\] deploy app  STATE_RUNNING/);
});

test('not on a terminal: nothing is drawn', () => {
  const out = stream(false);
  const bar = new ProgressBar(out.s, 'stop ms1');
  bar.update({ completed: false, progress: 'processing' }, 100);
  bar.update({ completed: true, progress: 'success' }, 200);
  bar.end();
  assert.equal(out.text(), '');
});
