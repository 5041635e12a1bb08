// The README's ten-minute tour, run as written: the server started as its first step says (on
// ports shifted to free ones), then every shell command of the later steps in one bash script,
// with `npx appserver-admin` as this checkout's command. A step that fails fails the test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, ROOT, dataDirs, runCli } from '../support/cli.js';
import { freePortOffset } from '../support/ports.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const tour = /\n## A ten-minute tour\n([\s\S]*?)\n## /.exec(readme)?.[1];
const blocks = [...(tour ?? '').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
const newDataDir = dataDirs('appserver-tour-');

test('every command of the README tour runs', { skip: spawnSync('curl', ['--version']).error ? 'curl is not installed' : false }, async () => {
  assert.ok(tour, 'the README has a ten-minute tour');
  assert.ok(blocks.length >= 4, `the tour has ${blocks.length} shell blocks`);

  // Step 1, as written: the administrator from the environment, npm start with --control.
  const start = /^(APPSERVER_ADMIN_USER=(\S+) APPSERVER_ADMIN_PASSWORD=(\S+)) npm start -- (.*)$/.exec(blocks[0]!);
  assert.ok(start, `the first block starts the server: ${blocks[0]}`);
  const offset = await freePortOffset([7001, 7003, 7005]);
  const port = (p: number) => String(p + offset);
  const server = runCli(
    ['serve', '--host', '127.0.0.1', '--port', port(7001), '--data-dir', newDataDir(), '--port-offset', String(offset), ...start[4]!.split(' ')],
    { APPSERVER_ADMIN_USER: start[2], APPSERVER_ADMIN_PASSWORD: start[3] },
  );
  await server.listening;

  // The pages the tour opens in a browser answer.
  const auth = `Basic ${Buffer.from(`${start[2]}:${start[3]}`).toString('base64')}`;
  const pages = [...tour!.matchAll(/<(http:\/\/127\.0\.0\.1:7001\/[^>]*)>/g)].map((m) => m[1]!);
  assert.ok(pages.length >= 2, pages.join(' '));
  for (const page of pages) {
    const res = await fetch(page.replace(':7001', `:${port(7001)}`), { headers: { authorization: auth, accept: 'text/html' } });
    assert.equal(res.status, 200, page);
  }

  // Steps 3 to 6 in one script, ports shifted, failing at the first command that fails.
  const script = blocks
    .slice(1)
    .join('\n')
    .replaceAll('npx appserver-admin', `node ${BIN}`)
    .replace(/:(700[135])\b/g, (_, p: string) => `:${port(Number(p))}`);
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  const said = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.status, 0, `the tour's commands failed:\n${script}\n---\n${said}`);
  // What the README says each step shows.
  assert.match(said, /Starting ms1 server: completed/);
  assert.match(said, /"state": "RUNNING"/);
  assert.match(said, /appserver_server_state_val\{location="ms1"\} 2/);
  assert.match(said, /start refused: exit 5/);
  assert.match(said, /\/ms2\/start/);
  await server.stop();
});
