// plan and apply against running servers, through the built CLI as a pipeline would run them:
// a demo domain A (with a data source made over REST) is discovered, applied to an empty domain B,
// and B discovered again gives the same model; plan afterwards finds nothing; a bad value changes
// nothing and is named; --prune deletes exactly what the model does not name; variables and
// secrets are substituted; a change made over REST, as the console makes it, is drift (exit 2).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { startServer, type RunningServer } from '../../src/cli/server.js';
import { cliOutcome, killRunning, runCli, serverEnv } from '../support/cli.js';
import { AUTHN, type Client, type RuntimeServer, basic, client, createUser, startRuntimeServer, testServerOptions } from '../support/runtime-server.js';
import { inSession } from './support.js';

let a: RuntimeServer;
let b: RunningServer;
let bOrigin: string;
let bAdmin: Client;
let dir: string;

before(async () => {
  a = await startRuntimeServer();
  dir = mkdtempSync(join(tmpdir(), 'appserver-dac-plan-'));
  const bDir = join(dir, 'b');
  b = await startServer({ ...(await testServerOptions(bDir)), template: { servers: 0, clusters: 0, partitions: 0, applications: 0 } });
  bOrigin = `http://127.0.0.1:${b.port}`;
  bAdmin = client(() => `${bOrigin}/management/appserver/latest`);
  // The smallest generated domain still has a cluster, a machine and a virtual target: B starts without them.
  await inSession(bAdmin, async (c) => {
    for (const kind of ['virtualTargets', 'partitions', 'resourceGroupTemplates', 'appDeployments', 'servers', 'clusters', 'machines']) {
      for (const name of await names(c, `edit/${kind}`)) if (name !== 'AdminServer') await c.del(`edit/${kind}/${encodeURIComponent(name)}`);
    }
  });
  await inSession(a.admin, async (c) => {
    await c.post('edit/JDBCSystemResources', { name: 'ordersDS', targets: [{ identity: ['clusters', 'cluster1'] }] });
    await c.post('edit/JDBCSystemResources/ordersDS/JDBCResource/JDBCDriverParams', { url: 'jdbc:postgresql://db.example:5432/orders', driverName: 'org.postgresql.Driver', password: 'x' });
  });
  // The secrets the discovered model asks for, as files <name>/<key>.
  for (const name of ['jdbcsystemresource-ordersds', 'partition-partition1-partition1-rg-partition1-ds', 'partition-partition2-partition2-rg-partition2-ds']) {
    mkdirSync(join(dir, 'secrets', name), { recursive: true });
    writeFileSync(join(dir, 'secrets', name, 'password'), 'from-the-secret-file\n');
  }
});

after(async () => {
  await killRunning();
  await a.stop(true);
  await b.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (origin: string) => serverEnv(origin, dir);
const cli = (origin: string, args: string[]) => cliOutcome(args, env(origin));

/** The model of a domain, as parsed YAML, without what differs between two domains by nature. */
async function modelOf(origin: string, file: string): Promise<any> {
  const r = await cli(origin, ['discover', '--out', file]);
  assert.equal(r.code, 0, r.err);
  const m = parse(readFileSync(file, 'utf8'));
  // The domain's own name shows in a few derived values (log file, SNMP engine), and the admin server's port differs.
  delete m.topology.Server.AdminServer.ListenPort;
  return m;
}

const names = async (c: Client, path: string) => ((await c.get(`${path}?links=none&fields=name`)).json.items as { name: string }[]).map((i) => i.name).sort();

test('discover A, apply to an empty B, discover B: the same model; plan afterwards finds nothing', async () => {
  const modelA = join(dir, 'a.yaml');
  const discovered = await modelOf(a.origin, modelA);
  const applied = await cli(bOrigin, ['apply', modelA, '--yes', '--secrets-from', join(dir, 'secrets')]);
  assert.equal(applied.code, 0, applied.err);
  assert.match(applied.out, /Applied: \d+ created, \d+ changed, 0 deleted; one activation/);
  assert.match(applied.err, /\+ create servers\/ms1/);
  const again = await modelOf(bOrigin, join(dir, 'b.yaml'));
  assert.deepEqual(again, discovered);
  const after = await cli(bOrigin, ['plan', modelA, '--secrets-from', join(dir, 'secrets')]);
  assert.equal(after.code, 0, after.out + after.err);
  assert.match(after.out, /No changes/);
  assert.equal((await bAdmin.get('edit/changeManager?links=none')).json.locked, false, 'the edit lock was left held');
});

test('drift: a change made over REST shows in plan with exit code 2, old -> new, and apply undoes it', async () => {
  const file = join(dir, 'drift.yaml');
  await cli(a.origin, ['discover', '--out', file]);
  await inSession(a.admin, async (c) => {
    await c.post('edit/servers/ms1', { listenPort: 7099 });
  });
  const r = await cli(a.origin, ['plan', file, '--secrets-from', join(dir, 'secrets')]);
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.out, /~ update servers\/ms1/);
  assert.match(r.out, /ListenPort: 7099 -> 7003/);
  const js = await cli(a.origin, ['plan', file, '--json', '--secrets-from', join(dir, 'secrets')]);
  assert.equal(js.code, 2);
  const plan = JSON.parse(js.out);
  assert.deepEqual(plan.changes.map((c: any) => [c.op, c.path]), [['update', 'servers/ms1']]);
  assert.deepEqual(plan.changes[0].properties.map((p: any) => [p.name, p.old, p.new]), [['listenPort', 7099, 7003]]);
  // Applying the model undoes the drift.
  const fixed = await cli(a.origin, ['apply', file, '--yes', '--secrets-from', join(dir, 'secrets')]);
  assert.equal(fixed.code, 0, fixed.err);
  assert.equal((await a.admin.get('edit/servers/ms1?links=none&fields=listenPort')).json.listenPort, 7003);
});

test('a model with one bad value changes nothing and names the value and its place', async () => {
  const base = parse(readFileSync(join(dir, 'a.yaml'), 'utf8'));
  base.topology.Server.ms2.Notes = 'half of a change';
  base.topology.Server.ms1.ListenPort = 'seventy';
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, stringify(base));
  const before = await bAdmin.get('edit/servers/ms2?links=none&fields=notes');
  const r = await cli(bOrigin, ['apply', bad, '--yes', '--secrets-from', join(dir, 'secrets')]);
  assert.notEqual(r.code, 0);
  assert.match(r.err, /topology\.Server\.ms1\.ListenPort \(.*bad\.yaml:\d+:\d+\): 'listenPort' takes a whole number, not "seventy"/);
  assert.deepEqual((await bAdmin.get('edit/servers/ms2?links=none&fields=notes')).json, before.json);
  // A value the server refuses (out of range): every change is cancelled, the place is named.
  base.topology.Server.ms1.ListenPort = 99999999;
  writeFileSync(bad, stringify(base));
  const refused = await cli(bOrigin, ['apply', bad, '--yes', '--secrets-from', join(dir, 'secrets')]);
  assert.equal(refused.code, 5, refused.err);
  assert.match(refused.err, /topology\.Server\.ms1 \(.*bad\.yaml:\d+:\d+\): changing servers\/ms1: listenPort: .*99999999/);
  assert.match(refused.err, /nothing was changed/);
  assert.deepEqual((await bAdmin.get('edit/servers/ms2?links=none&fields=notes')).json, before.json);
  assert.equal((await bAdmin.get('edit/changeManager?links=none')).json.locked, false, 'the edit lock was left held');
  // Typos: an unknown key with the nearest valid one; invalid YAML with line and column.
  writeFileSync(bad, 'topology:\n  Server:\n    ms1:\n      ListenPrt: 7003\n');
  const typo = await cli(bOrigin, ['plan', bad]);
  assert.equal(typo.code, 1);
  assert.match(typo.err, /topology\.Server\.ms1\.ListenPrt \(.*bad\.yaml:4:7\): Server has no attribute or folder 'ListenPrt' \(did you mean 'ListenPort'\?\)/);
  writeFileSync(bad, 'topology:\n  Server: [\n');
  const yaml = await cli(bOrigin, ['plan', bad]);
  assert.equal(yaml.code, 1);
  assert.match(yaml.err, /bad\.yaml:\d+:\d+\): not valid YAML/);
});

test('prune deletes exactly the beans of the kinds the model covers that it does not name', async () => {
  await inSession(bAdmin, async (c) => {
    await c.post('edit/servers', { name: 'extra1' });
    await c.post('edit/clusters', { name: 'extraCluster' });
    await c.post('edit/mailSessions', { name: 'extraMail' });
  });
  const file = join(dir, 'prune.yaml');
  const m = parse(readFileSync(join(dir, 'a.yaml'), 'utf8'));
  delete m.resources; // resources are not covered by this model: nothing of theirs is pruned
  writeFileSync(file, stringify(m));
  const noPrune = await cli(bOrigin, ['plan', file]);
  assert.doesNotMatch(noPrune.out, /- delete/);
  const planned = await cli(bOrigin, ['plan', file, '--prune']);
  assert.equal(planned.code, 2);
  assert.deepEqual(planned.out.split('\n').filter((l) => l.startsWith('- delete')).sort(), ['- delete clusters/extraCluster', '- delete servers/extra1']);
  const r = await cli(bOrigin, ['apply', file, '--prune', '--yes']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await names(bAdmin, 'edit/servers'), ['AdminServer', 'ms1', 'ms2']);
  assert.deepEqual(await names(bAdmin, 'edit/clusters'), ['cluster1']);
  assert.deepEqual(await names(bAdmin, 'edit/mailSessions'), ['extraMail']);
});

test('variables and secrets are substituted; a missing one is named', async () => {
  const file = join(dir, 'vars.yaml');
  const vars = join(dir, 'vars.properties');
  writeFileSync(file, [
    'topology:',
    '  Server:',
    '    web1:',
    '      ListenAddress: "@@PROP:web1.host@@"',
    '      ListenPort: "@@PROP:web1.port@@"',
    'resources:',
    '  JDBCSystemResource:',
    '    paymentsDS:',
    '      JDBCResource:',
    '        JDBCDriverParams:',
    '          Url: "jdbc:postgresql://@@PROP:db.host@@:5432/payments"',
    '          PasswordEncrypted: "@@SECRET:payments:password@@"',
    '',
  ].join('\n'));
  writeFileSync(vars, 'web1.host=web1.example\nweb1.port=8101\ndb.host=db.example\n');
  const missing = await cli(bOrigin, ['plan', file, '--variables', vars]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /PasswordEncrypted \(.*vars\.yaml:12:\d+\): the secret 'payments:password' needs --secrets-from/);
  const run = runCli(['apply', file, '--yes', '--variables', vars, '--secrets-from', 'env'], { ...env(bOrigin), PAYMENTS_PASSWORD: 'from-env' });
  assert.equal(await run.exited, 0, run.stderr());
  const s = (await bAdmin.get('edit/servers/web1?links=none&fields=listenAddress,listenPort')).json;
  assert.deepEqual(s, { listenAddress: 'web1.example', listenPort: 8101 });
  const url = (await bAdmin.get('edit/JDBCSystemResources/paymentsDS/JDBCResource/JDBCDriverParams?links=none&fields=url')).json.url;
  assert.equal(url, 'jdbc:postgresql://db.example:5432/payments');
  writeFileSync(vars, 'web1.host=web1.example\n');
  const gone = await cli(bOrigin, ['plan', file, '--variables', vars, '--secrets-from', 'env']);
  assert.equal(gone.code, 1);
  assert.match(gone.err, /the variable 'web1\.port' is not in the variables file/);
});

test('a lock held by someone else is named and left alone; a monitor may not apply', async () => {
  await createUser(a.admin, 'dacdeployer', 'deployer-pw1', 'Administrators');
  await createUser(a.admin, 'dacmonitor', 'monitor-pw1', 'Monitors');
  const other = a.admin.as(basic('dacdeployer', 'deployer-pw1'));
  const file = join(dir, 'lock.yaml');
  const m = parse(readFileSync(join(dir, 'a.yaml'), 'utf8'));
  m.topology.Server.ms2.Notes = 'wanted by the model';
  writeFileSync(file, stringify(m));
  assert.equal((await other.post('edit/changeManager/startEdit', {})).status, 200);
  try {
    const r = await cli(a.origin, ['apply', file, '--yes', '--secrets-from', join(dir, 'secrets')]);
    assert.equal(r.code, 5, r.err);
    assert.match(r.err, /the edit lock is held by dacdeployer: nothing was changed/);
    const cm = (await a.admin.get('edit/changeManager?links=none')).json;
    assert.equal(cm.locked, true);
    assert.equal(cm.lockOwner, 'dacdeployer', 'the lock was broken');
  } finally {
    await other.post('edit/changeManager/cancelEdit', {});
  }
  const run = runCli(['apply', file, '--yes', '--secrets-from', join(dir, 'secrets')], { ...env(a.origin), APPSERVER_USER: 'dacmonitor', APPSERVER_PASSWORD: 'monitor-pw1' });
  assert.equal(await run.exited, 3, run.stderr());
  assert.match(run.stderr(), /dacmonitor may not/);
  assert.notEqual((await a.admin.get('edit/servers/ms2?links=none&fields=notes')).json.notes, 'wanted by the model');
});

test("apply uploads an application from the model's archive path; plan then finds nothing; a missing archive changes nothing", async () => {
  const home = join(dir, 'with-archive');
  mkdirSync(join(home, 'wlsdeploy', 'applications'), { recursive: true });
  const bytes = Buffer.from('PK\u0003\u0004 the archive of the domain-as-code test\n', 'latin1');
  writeFileSync(join(home, 'wlsdeploy', 'applications', 'shop.war'), bytes);
  const file = join(home, 'domain.yaml');
  writeFileSync(file, 'appDeployments:\n  Application:\n    shop:\n      SourcePath: wlsdeploy/applications/shop.war\n      Target: AdminServer\n');
  const r = await cli(bOrigin, ['apply', file, '--yes']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /\+ create appDeployments\/shop/);
  const cfg = (await bAdmin.get('edit/appDeployments/shop?links=none&fields=sourcePath,targets')).json;
  assert.deepEqual(cfg.targets, [{ identity: ['servers', 'AdminServer'] }]);
  // The server keeps the upload under a path of its own, with the file's name and bytes.
  assert.notEqual(cfg.sourcePath, 'wlsdeploy/applications/shop.war');
  assert.match(cfg.sourcePath, /shop\.war$/);
  assert.deepEqual(readFileSync(cfg.sourcePath), bytes);
  const runtime = await bAdmin.get('domainRuntime/deploymentManager/appDeploymentRuntimes/shop?links=none&fields=applicationName');
  assert.equal(runtime.status, 200, runtime.text);
  const again = await cli(bOrigin, ['plan', file]);
  assert.equal(again.code, 0, again.out + again.err);
  assert.match(again.out, /No changes/);
  // A missing archive file is named with its place in the model; nothing else of the model is applied.
  writeFileSync(file, 'topology:\n  Server:\n    ms2:\n      Notes: not applied\nappDeployments:\n  Application:\n    gone:\n      SourcePath: wlsdeploy/applications/gone.war\n      Target: AdminServer\n');
  const missing = await cli(bOrigin, ['apply', file, '--yes']);
  assert.equal(missing.code, 2, missing.err);
  assert.match(missing.err, /appDeployments\.Application\.gone\.SourcePath \(.*domain\.yaml:8:7\): 'sourcePath': the archive file .*gone\.war is not there/);
  assert.notEqual((await bAdmin.get('edit/servers/ms2?links=none&fields=notes')).json.notes, 'not applied');
  assert.equal((await bAdmin.get('edit/appDeployments/gone?links=none')).status, 404);
  // An archive path may not lead out of the model's folder.
  writeFileSync(file, 'appDeployments:\n  Application:\n    out:\n      SourcePath: wlsdeploy/../domain.yaml\n');
  const out = await cli(bOrigin, ['plan', file]);
  assert.equal(out.code, 1);
  assert.match(out.err, /the archive path 'wlsdeploy\/\.\.\/domain\.yaml' must name a file below wlsdeploy\//);
});

test('users and groups: discover writes them with passwords as tokens; apply creates the missing ones, their memberships and descriptions; drift and prune; a refused user takes back the rest', async () => {
  const ok = async (c: Client, action: string, args: Record<string, unknown>) => {
    const r = await c.post(`${AUTHN}/${action}`, args);
    assert.equal(r.status, 200, `${action}: ${r.text}`);
    return r.json.return;
  };
  await ok(a.admin, 'createGroup', { groupName: 'dacOps', description: 'operators of the shop' });
  await ok(a.admin, 'addMemberToGroup', { groupName: 'Operators', memberUserOrGroupName: 'dacOps' });
  await ok(a.admin, 'createUser', { userName: 'dacalice', password: 'alice-pw-1', description: 'Alice' });
  await ok(a.admin, 'addMemberToGroup', { groupName: 'dacOps', memberUserOrGroupName: 'dacalice' });
  await ok(a.admin, 'addMemberToGroup', { groupName: 'Monitors', memberUserOrGroupName: 'dacalice' });
  const file = join(dir, 'realm.yaml');
  const r = await cli(a.origin, ['discover', '--out', file]);
  assert.equal(r.code, 0, r.err);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('alice-pw-1'), 'a password was written');
  const security = parse(text).topology.Security;
  assert.deepEqual(security.User.dacalice, { Description: 'Alice', GroupMemberOf: ['Monitors', 'dacOps'], Password: '@@SECRET:dacalice:password@@' });
  assert.deepEqual(security.Group.dacOps, { Description: 'operators of the shop', GroupMemberOf: ['Operators'] });
  const model = join(dir, 'realm-only.yaml');
  writeFileSync(model, stringify({ topology: { Security: security } }));
  // B lacks the users: their passwords are needed, and named where they are missing.
  const secrets = join(dir, 'realm-secrets');
  const noSecret = await cli(bOrigin, ['plan', model]);
  assert.equal(noSecret.code, 1);
  assert.match(noSecret.err, /topology\.Security\.User\.dacalice\.Password \(.*realm-only\.yaml:\d+:\d+\): the secret 'dacalice:password' needs --secrets-from/);
  for (const [user, password] of [['dacalice', 'alice-pw-1'], ['dacdeployer', 'deployer-pw1'], ['dacmonitor', 'monitor-pw1']] as const) {
    mkdirSync(join(secrets, user), { recursive: true });
    writeFileSync(join(secrets, user, 'password'), `${password}\n`);
  }
  const applied = await cli(bOrigin, ['apply', model, '--yes', '--secrets-from', secrets]);
  assert.equal(applied.code, 0, applied.err);
  assert.match(applied.err, /\+ create realm\/users\/dacalice/);
  const alice = bAdmin.as(basic('dacalice', 'alice-pw-1'));
  assert.equal((await alice.get('currentUser?links=none')).json.user, 'dacalice');
  const again = parse(readFileSync((await cli(bOrigin, ['discover', '--out', join(dir, 'realm-b.yaml')])).code === 0 ? join(dir, 'realm-b.yaml') : '', 'utf8')).topology.Security;
  assert.deepEqual(again, security);
  const none = await cli(bOrigin, ['plan', model]);
  assert.equal(none.code, 0, none.out + none.err);
  // Drift: a membership removed by hand is shown and put back.
  await ok(bAdmin, 'removeMemberFromGroup', { groupName: 'Monitors', memberUserOrGroupName: 'dacalice' });
  await ok(bAdmin, 'createUser', { userName: 'dacextra', password: 'extra-pw-1', description: '' });
  const drift = await cli(bOrigin, ['plan', model, '--prune']);
  assert.equal(drift.code, 2, drift.out + drift.err);
  assert.match(drift.out, /~ update realm\/users\/dacalice[^\n]*\n\s+GroupMemberOf: \[dacOps\] -> \[Monitors, dacOps\]/);
  assert.deepEqual(drift.out.split('\n').filter((l) => l.startsWith('- delete')), ['- delete realm/users/dacextra']);
  const fixed = await cli(bOrigin, ['apply', model, '--prune', '--yes']);
  assert.equal(fixed.code, 0, fixed.err);
  assert.equal(await ok(bAdmin, 'isMember', { parentGroupName: 'Monitors', memberUserOrGroupName: 'dacalice', recursive: false }), true);
  assert.equal(await ok(bAdmin, 'userExists', { userName: 'dacextra' }), false);
  // A user the server refuses (a password too short): the group made before it is taken back, the session cancelled.
  const bad = parse(readFileSync(model, 'utf8'));
  bad.topology.Security.Group.dacRollback = { Description: 'taken back' };
  bad.topology.Security.User.dacbob = { Password: 'short', GroupMemberOf: ['dacRollback'] };
  bad.topology.Server = { AdminServer: { Notes: 'not applied' } };
  writeFileSync(model, stringify(bad));
  const refused = await cli(bOrigin, ['apply', model, '--yes', '--secrets-from', secrets]);
  assert.equal(refused.code, 5, refused.err);
  assert.match(refused.err, /topology\.Security\.User\.dacbob \(.*\): creating the user dacbob: .*password/i);
  assert.match(refused.err, /nothing was changed/);
  assert.equal(await ok(bAdmin, 'groupExists', { groupName: 'dacRollback' }), false);
  assert.notEqual((await bAdmin.get('edit/servers/AdminServer?links=none&fields=notes')).json.notes, 'not applied');
  assert.equal((await bAdmin.get('edit/changeManager?links=none')).json.locked, false);
});
