// Shared libraries in domain as code, through the built CLI against a running server: a model's
// `appDeployments: Library:` entries are planned as creates, applied (one by a path on the server,
// one uploaded from the model's archive folder) in one edit session and deployed by its activation;
// discover writes them back and plan then finds nothing; a library the model no longer names is a
// delete with --prune, and apply --prune undeploys it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { cliOutcome, killRunning, serverEnv } from '../support/cli.js';
import { type RuntimeServer, names, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
let dir: string;
const JAR = Buffer.from('PK\u0003\u0004 the shared library of the domain-as-code test\n', 'latin1');
const JSF = 'jsf#2.0@1.0.0.0';

before(async () => {
  srv = await startRuntimeServer();
  dir = mkdtempSync(join(tmpdir(), 'appserver-dac-lib-'));
  mkdirSync(join(dir, 'wlsdeploy', 'sharedLibraries'), { recursive: true });
  writeFileSync(join(dir, 'wlsdeploy', 'sharedLibraries', 'util.jar'), JAR);
  // The secrets a discovered model of the demo domain asks for, as files <name>/<key>.
  for (const name of ['partition-partition1-partition1-rg-partition1-ds', 'partition-partition2-partition2-rg-partition2-ds']) {
    mkdirSync(join(dir, 'secrets', name), { recursive: true });
    writeFileSync(join(dir, 'secrets', name, 'password'), 'from-the-secret-file\n');
  }
});

after(async () => {
  await killRunning();
  await srv.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => cliOutcome(args, serverEnv(srv.origin, dir));

test('apply deploys the libraries of a model (by path and by upload), discover writes them back, plan then finds nothing', async () => {
  const file = join(dir, 'libraries.yaml');
  writeFileSync(
    file,
    [
      'appDeployments:',
      '  Library:',
      `    '${JSF}':`,
      '      SourcePath: /srv/libs/jsf-2.0.jar',
      '      Target: AdminServer',
      '    util:',
      '      SourcePath: wlsdeploy/sharedLibraries/util.jar',
      '      Target: cluster1',
      '',
    ].join('\n'),
  );
  const planned = await cli(['plan', file]);
  assert.equal(planned.code, 2, planned.out + planned.err);
  const shown = planned.out + planned.err;
  assert.match(shown, new RegExp(`\\+ create libraries/${JSF.replace(/[.#@]/g, '\\$&')}`));
  assert.match(shown, /\+ create libraries\/util/);

  const applied = await cli(['apply', file, '--yes']);
  assert.equal(applied.code, 0, applied.out + applied.err);
  const jsf = (await srv.admin.get(`edit/libraries/${encodeURIComponent(JSF)}?links=none&fields=sourcePath,targets`)).json;
  assert.equal(jsf.sourcePath, '/srv/libs/jsf-2.0.jar');
  assert.deepEqual(jsf.targets, [{ identity: ['servers', 'AdminServer'] }]);
  const util = (await srv.admin.get('edit/libraries/util?links=none&fields=sourcePath,targets')).json;
  assert.deepEqual(util.targets, [{ identity: ['clusters', 'cluster1'] }]);
  assert.ok(util.sourcePath.startsWith(srv.dataDir) && util.sourcePath.endsWith('util.jar'), util.sourcePath);
  assert.deepEqual(readFileSync(util.sourcePath), JAR);
  // Deployed by the activation: the deployment manager and the administration server show them.
  assert.deepEqual((await names(srv.admin, 'domainRuntime/deploymentManager/libDeploymentRuntimes')).sort(), [JSF, 'util'].sort());
  assert.ok((await names(srv.admin, 'serverRuntime/libraryRuntimes')).includes(JSF));

  const out = join(dir, 'discovered.yaml');
  const discovered = await cli(['discover', '--out', out]);
  assert.equal(discovered.code, 0, discovered.err);
  const model = parse(readFileSync(out, 'utf8'));
  assert.deepEqual(Object.keys(model.appDeployments.Library).sort(), [JSF, 'util'].sort());
  assert.equal(model.appDeployments.Library[JSF].SourcePath, '/srv/libs/jsf-2.0.jar');
  assert.equal(model.appDeployments.Library[JSF].Target, 'AdminServer');
  assert.ok(model.appDeployments.Application.benefits, 'the applications are still written');

  const again = await cli(['plan', file]);
  assert.equal(again.code, 0, again.out + again.err);
  assert.match(again.out, /No changes/);
  const whole = await cli(['plan', out, '--secrets-from', join(dir, 'secrets')]);
  assert.equal(whole.code, 0, whole.out + whole.err);
});

test('a library the model no longer names is deleted with --prune only, and undeployed', async () => {
  const file = join(dir, 'pruned.yaml');
  const discovered = join(dir, 'all.yaml');
  assert.equal((await cli(['discover', '--out', discovered])).code, 0);
  // The whole domain but the library util.
  const model = parse(readFileSync(discovered, 'utf8'));
  delete model.appDeployments.Library.util;
  writeFileSync(file, stringify(model));
  const secrets = ['--secrets-from', join(dir, 'secrets')];
  const without = await cli(['plan', file, ...secrets]);
  assert.equal(without.code, 0, `without --prune nothing is deleted: ${without.out}${without.err}`);
  const pruning = await cli(['plan', file, '--prune', ...secrets]);
  assert.equal(pruning.code, 2, pruning.out + pruning.err);
  assert.match(pruning.out + pruning.err, /- delete libraries\/util/);
  assert.doesNotMatch(pruning.out + pruning.err, /delete libraries\/jsf/);
  const applied = await cli(['apply', file, '--prune', '--yes', ...secrets]);
  assert.equal(applied.code, 0, applied.out + applied.err);
  assert.deepEqual(await names(srv.admin, 'edit/libraries'), [JSF]);
  assert.deepEqual(await names(srv.admin, 'domainRuntime/deploymentManager/libDeploymentRuntimes'), [JSF]);
});
