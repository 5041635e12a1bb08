// The server's log: at the default level, start-up, activations, lifecycle changes and the audit,
// never a line per request; `--log-level debug` adds them; `--log-format pretty` prints lines for
// people; unknown levels and formats stop the start with a clear message.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirs, runCli } from '../support/cli.js';

const tempDir = dataDirs('appserver-log-');
/** A data directory `serve` has to make itself. */
const dataDir = () => join(tempDir(), 'data');

const ADMIN = { APPSERVER_ADMIN_USER: 'admin', APPSERVER_ADMIN_PASSWORD: 'welcome1' };
const auth = `Basic ${Buffer.from('admin:welcome1').toString('base64')}`;

async function exercise(url: string): Promise<void> {
  for (let i = 0; i < 5; i++) assert.equal((await fetch(`${url}/serverConfig/servers/ms1`, { headers: { authorization: auth } })).status, 200);
  const update = await fetch(`${url}/edit/servers/ms1`, {
    method: 'POST',
    headers: { authorization: auth, 'x-requested-by': 'test', 'content-type': 'application/json' },
    body: JSON.stringify({ notes: 'logged' }),
  });
  assert.equal(update.status, 200);
}

test('the default level logs activations and the audit, not requests', { timeout: 60_000 }, async () => {
  const run = runCli(['serve', '--port', '0', '--data-dir', dataDir()], ADMIN);
  const url = await run.listening;
  await exercise(url);
  await run.stop();
  const lines = run.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; level: number });
  assert.ok(lines.some((l) => /^activated configuration version \d+$/.test(l.msg)), run.stdout());
  assert.ok(lines.some((l) => l.msg === 'audit'), run.stdout());
  assert.ok(!lines.some((l) => l.msg === 'request' || l.msg === 'incoming request' || l.msg === 'request completed'), run.stdout());
  assert.match(run.stdout(), /data directory .*store SQLite/);
});

test('--log-level debug adds one line per request, naming method, path, status and user', { timeout: 60_000 }, async () => {
  const run = runCli(['serve', '--port', '0', '--data-dir', dataDir(), '--log-level', 'debug'], ADMIN);
  const url = await run.listening;
  await exercise(url);
  await run.stop();
  const requests = run
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; method?: string; url?: string; status?: number; user?: string })
    .filter((l) => l.msg === 'request');
  assert.ok(requests.length >= 6, run.stdout());
  assert.ok(requests.some((r) => r.method === 'GET' && r.url === '/management/appserver/latest/serverConfig/servers/ms1' && r.status === 200 && r.user === 'admin'));
});

test('--log-format pretty prints readable lines', { timeout: 60_000 }, async () => {
  const run = runCli(['serve', '--port', '0', '--data-dir', dataDir(), '--log-format', 'pretty'], ADMIN);
  const url = await run.listening;
  await exercise(url);
  await run.stop();
  assert.match(run.stdout(), /INFO: activated configuration version \d+/);
  assert.doesNotMatch(run.stdout(), /^\{"level"/m);
});

test('an unknown level or format stops the start and says what is accepted', { timeout: 60_000 }, async () => {
  for (const [flag, value, accepted] of [
    ['--log-level', 'loud', /fatal, error, warn, info, debug/],
    ['--log-format', 'xml', /json or pretty/],
  ] as const) {
    const dir = dataDir();
    const run = runCli(['serve', '--port', '0', '--data-dir', dir, flag, value], ADMIN);
    assert.equal(await run.exited, 1);
    assert.match(run.stderr(), accepted);
  }
});
