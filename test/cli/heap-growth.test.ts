// `serve --heap-growth P`: how far the memory heap may grow past what the last full collection
// kept. A bad value is refused before anything starts; a server starts with the default and with
// 0 (the engine's own choice); and the setting does what it says in a process of its own: a
// program holding a large live heap and making garbage fast grows its heap far less at the
// default of 50 % than at the engine's worst case (300 %, four times what survived).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { dataDirs, ROOT, runCli } from '../support/cli.js';

const ADMIN = { APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' };
const dataDir = dataDirs('appserver-heap-');

test('serve --heap-growth refuses what is not a whole percentage from 0 to 300', async () => {
  // Wrong shapes, out of range, path-like, and a value far too long to repeat whole.
  for (const bad of ['abc', '-5', '301', '1.5', '', '9999', '50%', '0x10', '../50', '5'.repeat(10_000)]) {
    const run = runCli(['serve', '--port', '0', '--data-dir', dataDir(), '--heap-growth', bad], ADMIN);
    assert.equal(await run.exited, 1, `--heap-growth '${bad.slice(0, 40)}': ${run.stdout()}`);
    const shown = bad.slice(0, 40).replace(/[.%]/g, '\\$&');
    assert.match(run.stderr(), new RegExp(`--heap-growth takes a whole percentage from 0 to 300, not '${shown}'\\n`), run.stderr());
    assert.ok(run.stderr().length < 300, 'the message does not repeat a long value whole');
    assert.doesNotMatch(run.stdout(), /listening/);
  }
});

test('serve starts with the default growth and with 0 (the engine chooses)', { timeout: 120_000 }, async () => {
  for (const extra of [[], ['--heap-growth', '0'], ['--heap-growth', '300']]) {
    const run = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir(), '--no-listeners', ...extra], ADMIN);
    await run.listening;
    assert.equal(await run.stop(), 0);
  }
});

// Holds about 80 MiB of live objects, then makes garbage in batches that live a little while (so
// they reach the old generation), and prints the largest heap it saw.
const PROGRAM = `
const { limitHeapGrowth } = await import(process.argv[1]);
limitHeapGrowth(Number(process.argv[2]));
const live = [];
for (let i = 0; i < 800_000; i++) live.push({ a: 'x' + i, b: [i] });
let max = 0;
const recent = [];
for (let r = 0; r < 300; r++) {
  const batch = [];
  for (let i = 0; i < 20_000; i++) batch.push({ s: 'y' + i + r, n: [i, r] });
  recent.push(batch);
  if (recent.length > 20) recent.shift();
  max = Math.max(max, process.memoryUsage().heapTotal);
}
console.log(JSON.stringify({ maxMiB: max / 1048576, live: live.length }));
`;

async function largestHeap(percent: number): Promise<number> {
  const module = pathToFileURL(join(ROOT, 'dist', 'src', 'cli', 'heap.js')).href;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROGRAM, module, String(percent)], { timeout: 120_000 });
  return (JSON.parse(stdout) as { maxMiB: number }).maxMiB;
}

test('the heap grows half again past what survived, not up to four times', { timeout: 240_000 }, async () => {
  const ours = await largestHeap(50);
  const worst = await largestHeap(300);
  assert.ok(ours < worst * 0.75, `at 50 % the heap reached ${ours.toFixed(0)} MiB, at 300 % ${worst.toFixed(0)} MiB`);
});
