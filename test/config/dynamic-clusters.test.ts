// Dynamic clusters over HTTP on a manual clock: a cluster with a server template and a size has
// that many servers, computed (names from the prefix and an index, listen ports from the template,
// machines in turn), shown in serverConfig and domainConfig (marked dynamically created, never in
// edit), in dynamicServerNames and among the lifecycle runtimes; one starts like any server and its
// cluster runtime lists it; growing adds servers, shrinking shuts the highest-numbered running one
// down by a visible task before it goes; all of it survives a restart; bad sizes, prefixes and
// ports are refused with the property named.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppserverClient } from 'appserver-admin/client';
import { typedClient } from '../support/client.js';
import { ASYNC, type Client, type RuntimeServer, assertAccepted, completed, errorDetails, names, startRuntimeServer } from '../support/runtime-server.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const DS = 'clusters/dyn/dynamicServers';

let srv: RuntimeServer;
let admin: Client;
let typed: AppserverClient;

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  typed = typedClient(srv.origin);
  // A second machine, a cluster and its template, then the dynamic servers, in one activation
  // (the typed client checks the property names and value types at compile time).
  await typed.inEditSession(async (c) => {
    await c.create('edit/machines', { name: 'machine2' });
    await c.create('edit/clusters', { name: 'dyn' });
    await c.create('edit/serverTemplates', { name: 'dyn-template', listenPort: 9100, cluster: ['clusters', 'dyn'], listenAddress: 'host-${id}.example' });
    await c.bean('appserver.management.configuration.DynamicServersMBean', `edit/${DS}`).update({
      serverTemplate: ['serverTemplates', 'dyn-template'],
      dynamicClusterSize: 3,
      serverNamePrefix: 'dyn-',
      calculatedMachineNames: true,
    });
  });
});

after(async () => {
  await srv.stop(true);
});

async function ok(reply: Promise<{ status: number; text: string }>): Promise<void> {
  const r = await reply;
  assert.ok(r.status === 200 || r.status === 201, `status ${r.status}: ${r.text}`);
}

async function get(path: string): Promise<any> {
  const r = await admin.get(path);
  assert.equal(r.status, 200, `GET ${path}: ${r.text}`);
  return r.json;
}

async function lcState(server: string): Promise<string> {
  return (await get(`${LC}/${server}?links=none&fields=state`)).state;
}

const dynamicNames = async (tree = 'serverConfig') => (await get(`${tree}/${DS}?links=none&fields=dynamicServerNames`)).dynamicServerNames;
const dynamicServers = async (tree: string) => (await names(admin, `${tree}/servers`)).filter((n) => n.startsWith('dyn-'));

test('a dynamic cluster of size 3 materializes: names, ports, machines in turn, marked dynamically created', async () => {
  assert.deepEqual(await dynamicNames(), ['dyn-1', 'dyn-2', 'dyn-3']);
  for (const tree of ['serverConfig', 'domainConfig']) {
    assert.deepEqual(await dynamicServers(tree), ['dyn-1', 'dyn-2', 'dyn-3'], tree);
    const items = (await get(`${tree}/servers?links=none&fields=name,listenPort,listenAddress,machine,cluster,serverTemplate,dynamicallyCreated`)).items;
    const dyn = items.filter((s: any) => s.name.startsWith('dyn-'));
    assert.deepEqual(
      dyn.map((s: any) => [s.name, s.listenPort, s.listenAddress, s.machine, s.dynamicallyCreated]),
      [
        ['dyn-1', 9101, 'host-1.example', ['machines', 'machine1'], true],
        ['dyn-2', 9102, 'host-2.example', ['machines', 'machine2'], true],
        ['dyn-3', 9103, 'host-3.example', ['machines', 'machine1'], true],
      ],
      tree,
    );
    for (const s of dyn) {
      assert.deepEqual(s.cluster, ['clusters', 'dyn']);
      assert.deepEqual(s.serverTemplate, ['serverTemplates', 'dyn-template']);
    }
    // Configured servers stay as they are.
    assert.equal(items.find((s: any) => s.name === 'ms1').dynamicallyCreated, false);
  }
  // Below a dynamic server, its template's beans: the SSL port is calculated too (no SSL port set: 8100 + n).
  assert.equal((await get('serverConfig/servers/dyn-2/SSL?links=none&fields=listenPort')).listenPort, 8102);
  const self = (await get('serverConfig/servers/dyn-2')).links.find((l: any) => l.rel === 'self').href;
  assert.equal(self, `${srv.latest}/serverConfig/servers/dyn-2`);
});

test('the edit tree never shows dynamic servers, and they cannot be edited', async () => {
  assert.deepEqual(await dynamicServers('edit'), []);
  assert.equal((await admin.get('edit/servers/dyn-1')).status, 404);
  assert.equal((await admin.post('edit/servers/dyn-1', { listenPort: 1234 })).status, 404);
  assert.equal((await admin.del('edit/servers/dyn-1')).status, 404);
  // Its dynamic server names are those its own settings make.
  assert.deepEqual(await dynamicNames('edit'), ['dyn-1', 'dyn-2', 'dyn-3']);
});

test('dynamic servers have lifecycle runtimes; one starts and runs, and its cluster runtime lists it', async () => {
  const lc = await names(admin, LC);
  for (const n of ['dyn-1', 'dyn-2', 'dyn-3']) {
    assert.ok(lc.includes(n), `${n} among ${lc.join(', ')}`);
    assert.equal(await lcState(n), 'SHUTDOWN');
  }
  const r = await admin.post(`${LC}/dyn-2/start`, {}, ASYNC);
  const task = assertAccepted(r, 'start dyn-2');
  srv.advance(2000);
  assert.equal((await completed(admin, task)).taskStatus, 'TASK COMPLETED');
  assert.equal(await lcState('dyn-2'), 'RUNNING');
  assert.ok((await names(admin, 'domainRuntime/serverRuntimes')).includes('dyn-2'));
  const rt = await get('domainRuntime/serverRuntimes/dyn-2?links=none&fields=name,state,currentMachine');
  assert.deepEqual(rt, { name: 'dyn-2', state: 'RUNNING', currentMachine: 'machine2' });
  const cluster = await get('domainRuntime/serverRuntimes/dyn-2/clusterRuntime?links=none&fields=name,serverNames,aliveServerCount');
  assert.deepEqual(cluster, { name: 'dyn', serverNames: ['dyn-2'], aliveServerCount: 1 });
  // The cluster's members, alive or not.
  const members = (await get('serverConfig/clusters/dyn?links=none&fields=servers')).servers;
  assert.deepEqual(members, ['dyn-1', 'dyn-2', 'dyn-3'].map((n) => ({ identity: ['servers', n] })));
});

test('growing the size to 4 adds a server, SHUTDOWN; the running one keeps running', async () => {
  await ok(admin.post(`edit/${DS}`, { dynamicClusterSize: 4 }));
  assert.deepEqual(await dynamicNames(), ['dyn-1', 'dyn-2', 'dyn-3', 'dyn-4']);
  assert.deepEqual(await dynamicServers('serverConfig'), ['dyn-1', 'dyn-2', 'dyn-3', 'dyn-4']);
  assert.equal((await get('serverConfig/servers/dyn-4?links=none&fields=listenPort')).listenPort, 9104);
  assert.equal(await lcState('dyn-4'), 'SHUTDOWN');
  assert.equal(await lcState('dyn-2'), 'RUNNING');
});

test('shrinking to 2 shuts the running highest-numbered server down by a visible task, then it goes', async () => {
  const startTask = await typed.startTask(`${LC}/dyn-4`, 'start');
  srv.advance(2000);
  assert.equal((await typed.waitForTask(startTask, { timeoutMs: 10_000 })).taskStatus, 'TASK COMPLETED');
  assert.equal(await lcState('dyn-4'), 'RUNNING');

  await ok(admin.post(`edit/${DS}`, { dynamicClusterSize: 2 }));
  assert.deepEqual(await dynamicNames(), ['dyn-1', 'dyn-2']);
  assert.deepEqual(await dynamicServers('serverConfig'), ['dyn-1', 'dyn-2']);
  // dyn-3 never ran: it is gone at once.
  assert.equal((await admin.get(`${LC}/dyn-3`)).status, 404);
  // dyn-4 is shutting down, its task in its lifecycle runtime.
  assert.equal(await lcState('dyn-4'), 'SHUTTING_DOWN');
  const tasks = (await get(`${LC}/dyn-4/tasks?links=none&fields=name,operation,taskStatus,description`)).items;
  const shutdown = tasks.find((t: any) => t.operation === 'shutdown');
  assert.ok(shutdown, JSON.stringify(tasks));
  assert.equal(shutdown.taskStatus, 'TASK IN PROGRESS');
  assert.match(shutdown.description, /Shutting down dyn-4/);

  srv.advance(1000);
  assert.equal((await admin.get(`${LC}/dyn-4`)).status, 404);
  assert.ok(!(await names(admin, 'domainRuntime/serverRuntimes')).includes('dyn-4'));
  assert.ok(!(await names(admin, LC)).includes('dyn-4'));
  assert.equal(await lcState('dyn-2'), 'RUNNING');
  const cluster = await get('domainRuntime/serverRuntimes/dyn-2/clusterRuntime?links=none&fields=serverNames,aliveServerCount');
  assert.deepEqual(cluster, { serverNames: ['dyn-2'], aliveServerCount: 1 });
  // Growing again brings dyn-3 and dyn-4 back, stopped.
  await ok(admin.post(`edit/${DS}`, { dynamicClusterSize: 4 }));
  assert.equal(await lcState('dyn-4'), 'SHUTDOWN');
  await ok(admin.post(`edit/${DS}`, { dynamicClusterSize: 2 }));
});

test('the edit tree shows a session its own dynamic server names', async () => {
  await ok(admin.post('edit/changeManager/startEdit'));
  await ok(admin.post(`edit/${DS}`, { dynamicClusterSize: 5 }));
  assert.deepEqual(await dynamicNames('edit'), ['dyn-1', 'dyn-2', 'dyn-3', 'dyn-4', 'dyn-5']);
  assert.deepEqual(await dynamicNames('serverConfig'), ['dyn-1', 'dyn-2']);
  await ok(admin.post('edit/changeManager/cancelEdit'));
});

test('sizes, prefixes and ports that cannot make servers are refused, naming the property', async () => {
  const tooBig = errorDetails(await admin.post(`edit/${DS}`, { dynamicClusterSize: 801 }), 400, 'size 801');
  assert.ok(tooBig.some((d) => /dynamicClusterSize/.test(d) && /800/.test(d)), tooBig.join(' | '));
  const huge = errorDetails(await admin.post(`edit/${DS}`, { dynamicClusterSize: 2147483647 }), 400, 'size 2^31-1');
  assert.ok(huge.some((d) => /dynamicClusterSize/.test(d)), huge.join(' | '));
  const prefix = errorDetails(await admin.post(`edit/${DS}`, { serverNamePrefix: 'a/b-' }), 400, 'prefix with /');
  assert.ok(prefix.some((d) => /serverNamePrefix/.test(d) && /"\/"/.test(d)), prefix.join(' | '));
  // A template port that pushes the calculated ports of the cluster's two servers past 65535.
  const ports = errorDetails(await admin.post('edit/serverTemplates/dyn-template', { listenPort: 65534 }), 400, 'template port');
  assert.ok(ports.some((d) => /listenPort/.test(d) && /65535/.test(d)), ports.join(' | '));
  const sslPorts = errorDetails(await admin.post('edit/serverTemplates/dyn-template/SSL', { listenPort: 65534 }), 400, 'template SSL port');
  assert.ok(sslPorts.some((d) => /listenPort/.test(d) && /65535/.test(d)), sslPorts.join(' | '));
  // A configured server already holds the name the third server would get.
  await ok(admin.post('edit/servers', { name: 'dyn-3', listenPort: 7777 }));
  const clash = errorDetails(await admin.post(`edit/${DS}`, { dynamicClusterSize: '3' }), 400, 'name clash');
  assert.ok(clash.some((d) => /dynamicClusterSize/.test(d) && /'dyn-3'/.test(d)), clash.join(' | '));
  assert.equal((await admin.del('edit/servers/dyn-3')).status, 200);
  // Nothing of it was applied.
  assert.deepEqual(await dynamicNames(), ['dyn-1', 'dyn-2']);
  assert.equal((await get('serverConfig/serverTemplates/dyn-template?links=none&fields=listenPort')).listenPort, 9100);
});

test('dynamic servers and their states survive a restart', async () => {
  srv = await srv.restart();
  admin = srv.admin;
  assert.deepEqual(await dynamicNames(), ['dyn-1', 'dyn-2']);
  assert.deepEqual(await dynamicServers('serverConfig'), ['dyn-1', 'dyn-2']);
  assert.equal(await lcState('dyn-2'), 'RUNNING');
  assert.equal(await lcState('dyn-1'), 'SHUTDOWN');
  assert.equal((await admin.get(`${LC}/dyn-4`)).status, 404);
  assert.deepEqual((await get('domainRuntime/serverRuntimes/dyn-2/clusterRuntime?links=none&fields=serverNames')).serverNames, ['dyn-2']);
});
