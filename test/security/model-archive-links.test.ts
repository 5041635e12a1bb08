// A model names archive files as `wlsdeploy/...` next to it, and apply uploads them to the domain. A
// model checked out from elsewhere may carry symbolic links (git keeps them): neither a link named
// wlsdeploy nor a link inside it may make plan or apply read, and apply upload, a file of this
// machine outside the model's folder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cliOutcome, killRunning, serverEnv } from '../support/cli.js';
import { type TestServer, call, startTestServer } from '../support/server.js';

let srv: TestServer | undefined;
const dir = mkdtempSync(join(tmpdir(), 'appserver-model-links-'));
after(async () => {
  await killRunning();
  await srv?.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => cliOutcome(args, serverEnv(srv!.origin, dir));

test("a model's wlsdeploy folder or archive that is a link out of the model's folder is refused before anything is read or sent", { timeout: 120_000 }, async () => {
  srv = await startTestServer();
  // What an attacker would like uploaded: a private file of the user running apply.
  const secrets = join(dir, 'home', '.ssh');
  mkdirSync(secrets, { recursive: true });
  writeFileSync(join(secrets, 'id_rsa.war'), 'PRIVATE KEY');
  const model = 'appDeployments:\n  Application:\n    stolen:\n      SourcePath: wlsdeploy/id_rsa.war\n      Target: AdminServer\n';

  // wlsdeploy itself a link to that folder.
  const linked = join(dir, 'linked-folder');
  mkdirSync(linked);
  symlinkSync(secrets, join(linked, 'wlsdeploy'));
  writeFileSync(join(linked, 'domain.yaml'), model);
  // plan ends 1 (an error), apply 2 (a model it refuses before changing anything).
  for (const [command, status] of [[['plan'], 1], [['apply', '--yes'], 2]] as const) {
    const r = await cli([...command, join(linked, 'domain.yaml')]);
    assert.equal(r.code, status, `${command[0]}: ${r.err}`);
    assert.match(r.err, /the archive path 'wlsdeploy\/id_rsa\.war' leads out of .*wlsdeploy/, command[0]);
  }

  // A real wlsdeploy folder holding a link to the file.
  const inner = join(dir, 'linked-file');
  mkdirSync(join(inner, 'wlsdeploy'), { recursive: true });
  symlinkSync(join(secrets, 'id_rsa.war'), join(inner, 'wlsdeploy', 'id_rsa.war'));
  writeFileSync(join(inner, 'domain.yaml'), model);
  const r = await cli(['apply', '--yes', join(inner, 'domain.yaml')]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /leads out of/);

  const deployed = await call(`${srv.latest}/edit/appDeployments/stolen?links=none`, { headers: { 'x-requested-by': 'sec' } });
  assert.equal(deployed.status, 404, 'nothing was deployed');
});
