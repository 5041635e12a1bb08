// The control interface from the client CLI's generic commands: `invoke` adds a fault (a POST to the
// faults collection) and moves the clock, `get` reads faults and the journal (tables or --json).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { type ControlServer, startControlServer } from '../support/control.js';

let srv: ControlServer;
const home = mkdtempSync(join(tmpdir(), 'appserver-control-cli-'));

before(async () => {
  srv = await startControlServer({ manual: false });
});

after(async () => {
  await srv.stop();
  rmSync(home, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<string> {
  const run = runCli(args, { APPSERVER_URL: srv.origin, APPSERVER_USER: 'admin', APPSERVER_PASSWORD: 'welcome1', APPSERVER_CONFIG: undefined, XDG_CONFIG_HOME: home });
  const code = await run.exited;
  assert.equal(code, 0, `${args.join(' ')}: exit ${code}\n${run.stdout()}${run.stderr()}`);
  return run.stdout();
}

test('invoke and get drive the control interface', async () => {
  await cli('invoke', '/management/appserver-control', 'faults', 'kind=status', 'urlPattern=/management/appserver/*/domainConfig', 'status=500');
  const faults = JSON.parse(await cli('get', '/management/appserver-control/faults', '--json'));
  assert.equal(faults.items.length, 1);
  assert.equal(faults.items[0].status, 500);
  assert.equal((await srv.admin.get('domainConfig')).status, 500);

  await cli('invoke', '/management/appserver-control/clock', 'freeze');
  const before = (await srv.ctl.get('clock')).json.now;
  await cli('invoke', '/management/appserver-control/clock', 'advance', 'ms=5000');
  assert.equal((await srv.ctl.get('clock')).json.now, before + 5000);

  const journal = JSON.parse(await cli('get', '/management/appserver-control/journal', '--json'));
  assert.ok(journal.items.some((e: { path: string; status: number }) => e.path.endsWith('/domainConfig') && e.status === 500), JSON.stringify(journal.items));
  assert.match(await cli('get', '/management/appserver-control/faults'), /fault-1/);
});
