// `?describe` on any management URL: the bean's type, properties, children, actions and the roles
// that may read, change, create and invoke, checked against what the server then does.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, client, createUser } from '../support/edit.js';
import { startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
let operator: Client;
let monitor: Client;
let deployer: Client;

before(async () => {
  srv = await startTestServer();
  admin = client(() => srv.latest);
  operator = admin.as(await createUser(admin, 'olga', 'operator1', 'Operators'));
  monitor = admin.as(await createUser(admin, 'mona', 'monitor1', 'Monitors'));
  deployer = admin.as(await createUser(admin, 'dirk', 'deployer1', 'Deployers'));
});

after(async () => {
  await srv.stop(true);
});

async function describe(path: string, c: Client = admin): Promise<any> {
  const r = await c.get(`${path}${path.includes('?') ? '&' : '?'}describe`);
  assert.equal(r.status, 200, `GET ${path}?describe: ${r.text.slice(0, 400)}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  return r.json;
}

const byName = (list: any[], name: string): any => {
  const found = list.find((x) => x.name === name);
  assert.ok(found, `no '${name}' among ${list.map((x) => x.name).join(', ')}`);
  return found;
};

test('a server in the edit tree: type, properties with type, default, range, unit, restart, and who may change it', async () => {
  const d = await describe('edit/servers/ms1');
  assert.equal(d.type, 'Server');
  assert.equal(d.typeName, 'appserver.management.configuration.ServerMBean');
  assert.equal(d.tree, 'edit');
  assert.ok(d.baseTypes.includes('ServerTemplate'), d.baseTypes);
  assert.match(d.description, /server of the domain/);
  const listenPort = byName(d.properties, 'listenPort');
  assert.deepEqual(
    { type: listenPort.type, default: listenPort.default, min: listenPort.min, max: listenPort.max, writable: listenPort.writable },
    { type: 'int', default: 7001, min: 1, max: 65535, writable: true },
  );
  assert.equal(byName(d.properties, 'adminReconnectIntervalSeconds').unit, 'seconds');
  const cluster = byName(d.properties, 'cluster');
  assert.equal(cluster.type, 'reference');
  assert.equal(cluster.references, 'Cluster');
  assert.equal(typeof byName(d.properties, 'listenAddress').restartNeeded, 'boolean');
  const legal = d.properties.find((p: any) => Array.isArray(p.legalValues) && p.legalValues.length > 1);
  assert.ok(legal, 'some property of a server has legal values');
  assert.deepEqual(d.access.read, ['Admin', 'Deployer', 'Operator', 'Monitor']);
  assert.deepEqual(d.access.update, ['Admin']);
  assert.deepEqual(d.access.delete, ['Admin']);
  const ssl = byName(d.children, 'SSL');
  assert.equal(ssl.kind, 'singleton');
  assert.equal(ssl.type, 'SSL');
});

test('the same server read from serverConfig is read-only: nothing writable, nobody may change or delete it', async () => {
  const d = await describe('serverConfig/servers/ms1');
  assert.equal(d.tree, 'serverConfig');
  assert.equal(byName(d.properties, 'listenPort').writable, false);
  assert.deepEqual(d.access.update, []);
  assert.deepEqual(d.access.delete, []);
});

test('what the description says of writing is what the server does: a Monitor is refused, an administrator is not', async () => {
  const d = await describe('edit/servers/ms1', monitor);
  assert.ok(!d.access.update.includes('Monitor'));
  const refused = await monitor.post('edit/servers/ms1', { notes: 'by a monitor' });
  assert.equal(refused.status, 403, refused.text);
  const done = await admin.post('edit/servers/ms1', { notes: 'by the admin' });
  assert.equal(done.status, 200, done.text);
  await admin.post('edit/changeManager/cancelEdit');
});

test('a server lifecycle runtime: its actions with overloads, parameters, task results and invoke roles that hold', async () => {
  const d = await describe('domainRuntime/serverLifeCycleRuntimes/ms1');
  assert.equal(d.type, 'ServerLifeCycleRuntime');
  const start = byName(d.actions, 'start');
  assert.equal(start.returnsTask, true);
  assert.equal(start.impact, 'action');
  assert.match(start.description, /Starts/);
  assert.ok(start.overloads.some((o: any) => o.parameters.length === 0 && o.returns === 'ServerLifeCycleTaskRuntime'));
  const shutdown = byName(d.actions, 'shutdown');
  const withTimeout = shutdown.overloads.find((o: any) => o.parameters.some((p: any) => p.name === 'timeout'));
  assert.ok(withTimeout, JSON.stringify(shutdown.overloads));
  assert.equal(withTimeout.parameters.find((p: any) => p.name === 'timeout').type, 'int');
  assert.ok(start.access.invoke.includes('Operator'), JSON.stringify(start.access));
  assert.ok(!start.access.invoke.includes('Monitor'), JSON.stringify(start.access));
  // The claim, checked: a Monitor's start is refused before anything happens.
  const refused = await monitor.post('domainRuntime/serverLifeCycleRuntimes/ms1/start');
  assert.equal(refused.status, 403, refused.text);
  // An action's own URL describes that action.
  const only = await describe('domainRuntime/serverLifeCycleRuntimes/ms1/start', operator);
  assert.equal(only.name, 'start');
  assert.equal(only.on, 'ServerLifeCycleRuntime');
  assert.deepEqual(only.overloads, start.overloads);
});

test('a collection describes what it holds and who may create there; a create form describes its type', async () => {
  const d = await describe('edit/servers');
  assert.equal(d.child, 'servers');
  assert.equal(d.kind, 'collection');
  assert.equal(d.of, 'Domain');
  assert.deepEqual(d.types.map((t: any) => t.type), ['Server']);
  const machines = await describe('edit/machines');
  assert.deepEqual(machines.types.map((t: any) => t.type).sort(), ['Machine', 'UnixMachine']);
  const form = await describe('edit/serverCreateForm');
  assert.deepEqual(form.types.map((t: any) => t.type), ['Server']);
  const domain = await describe('edit');
  const servers = byName(domain.children, 'servers');
  assert.deepEqual(servers.creatableTypes, ['Server']);
  assert.equal(servers.createForm, 'serverCreateForm');
  assert.deepEqual(servers.access.create, ['Admin']);
  // Deployers deploy: the description says so, and the server lets them create a deployment's data source... or not.
  const apps = byName(domain.children, 'appDeployments');
  const deployerMay = apps.access.create.includes('Deployer');
  const r = await deployer.post('edit/appDeployments', { name: 'described', sourcePath: '/nonexistent/described.war', targets: [] });
  assert.equal(r.status === 403, !deployerMay, `description says Deployer ${deployerMay ? 'may' : 'may not'} create; the server answered ${r.status} ${r.text.slice(0, 200)}`);
  await admin.post('edit/changeManager/cancelEdit');
});

test('children that exist only in the edit tree are not described elsewhere', async () => {
  const edit = await describe('edit');
  assert.ok(edit.children.some((c: any) => c.name === 'changeManager'));
  const config = await describe('domainConfig');
  assert.ok(!config.children.some((c: any) => c.name === 'changeManager'));
});

test('administrator-only children say so', async () => {
  const d = await describe('domainRuntime');
  const audit = byName(d.children, 'auditRecords');
  assert.deepEqual(audit.access.read, ['Admin']);
  assert.deepEqual(byName(d.children, 'serverRuntimes').access.read, ['Admin', 'Deployer', 'Operator', 'Monitor']);
});

test('security provider actions: an authenticator lists its user management with parameters', async () => {
  const d = await describe('serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator');
  assert.equal(d.type, 'DefaultAuthenticator');
  const createUserAction = byName(d.actions, 'createUser');
  assert.deepEqual(
    createUserAction.overloads[0].parameters.map((p: any) => [p.name, p.type]),
    [
      ['userName', 'string'],
      ['password', 'string'],
      ['description', 'string'],
    ],
  );
  assert.deepEqual(createUserAction.access.invoke, ['Admin']);
});

test('the Lifecycle Manager and the version resources describe themselves too', async () => {
  const r = await admin.get('edit'); // keeps the client warm; the Lifecycle Manager is another base URL
  assert.equal(r.status, 200);
  const lcm = client(() => srv.origin + '/management/lifecycle/latest');
  const root = await describe('', lcm);
  assert.equal(root.tree, 'lifecycle');
  const runtimes = byName(root.children, 'runtimes');
  assert.deepEqual(runtimes.access.create, ['Admin']);
  const envs = await describe('environments', lcm);
  const env = envs.types[0];
  assert.deepEqual(env.actions.map((a: any) => a.name).sort(), ['associatePartitions', 'deprovision', 'dissociatePartitions']);
  const version = await describe('');
  assert.ok(version.children.some((c: any) => c.name === 'currentUser'));
});

test('describing needs a login like everything else, and what does not exist is a 404', async () => {
  const anonymous = await fetch(`${srv.latest}/edit/servers/ms1?describe`);
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic /);
  const missing = await admin.get('edit/servers/nosuch?describe');
  assert.equal(missing.status, 404);
  const unknown = await admin.get('edit/noSuchChild?describe');
  assert.equal(unknown.status, 404);
});
