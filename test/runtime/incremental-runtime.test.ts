// An activation rebuilds only the runtimes of the servers where what it touched showed before and
// shows now, and server runtimes are made when first read. What a user reads must be what a
// runtime rebuilt from scratch shows: each step here moves something between the running servers
// (a server changing cluster, an application, a JMS server and a file store retargeted, an
// application removed) and checks every running server, then a restart (a whole rebuild) must show
// exactly the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, type RuntimeServer, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
const RUNNING = ['AdminServer', 'ms1', 'ms2'];

async function start(server: string): Promise<void> {
  const r = await srv.admin.post(`domainRuntime/serverLifeCycleRuntimes/${server}/start`, {}, ASYNC);
  assert.ok(r.status === 202 || r.status === 200, r.text);
  srv.advance(10_000);
  await pollUntil(() => srv.admin.get(`domainRuntime/serverLifeCycleRuntimes/${server}?links=none&fields=state`), (x) => x.json?.state === 'RUNNING', `${server} RUNNING`);
}

async function names(path: string): Promise<string[]> {
  const r = await srv.admin.get(`${path}?links=none&fields=name`);
  if (r.status === 404) return [];
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return (r.json.items as { name: string }[]).map((i) => i.name).sort();
}

/** What each running server's runtime shows of the configuration. */
async function shown(): Promise<Record<string, Record<string, string[]>>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const s of RUNNING) {
    const base = `domainRuntime/serverRuntimes/${s}`;
    out[s] = {
      applications: await names(`${base}/applicationRuntimes`),
      jmsServers: await names(`${base}/JMSRuntime/JMSServers`),
      stores: await names(`${base}/persistentStoreRuntimes`),
      partitions: await names(`${base}/partitionRuntimes`),
      dataSources: await names(`${base}/JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans`),
    };
  }
  return out;
}

async function activate(changes: [string, Record<string, unknown>, ('post' | 'delete')?][]): Promise<void> {
  assert.equal((await srv.admin.post('edit/changeManager/startEdit', {})).status, 200);
  for (const [path, body, method] of changes) {
    const r = method === 'delete' ? await srv.admin.del(path) : await srv.admin.post(path, body);
    assert.ok(r.status === 200 || r.status === 201 || r.status === 204, `${path}: ${r.status} ${r.text}`);
  }
  const r = await srv.admin.post('edit/changeManager/activate', {});
  assert.equal(r.status, 200, r.text);
}

const target = (...identity: string[]) => ({ identity });

before(async () => {
  srv = await startRuntimeServer();
  await start('ms1');
  await start('ms2');
});

after(async () => {
  await srv.stop(true);
});

test('each activation moves what it touched between the running servers, and only that', async () => {
  const first = await shown();
  assert.deepEqual(first.ms1!.applications, ['benefits']);
  assert.deepEqual(first.ms2!.applications, ['benefits']);
  assert.ok(first.AdminServer!.applications.includes('inventory'));
  assert.deepEqual(first.ms1!.jmsServers, ['JMSServer1']);
  assert.ok(first.ms1!.stores.includes('FileStore1'));

  // ms2 leaves cluster1 for a new cluster: it loses what cluster1 runs, ms1 keeps it.
  await activate([
    ['edit/clusters', { name: 'cluster2' }],
    ['edit/servers/ms2', { cluster: target('clusters', 'cluster2') }],
  ]);
  let now = await shown();
  assert.deepEqual(now.ms2!.applications, []);
  assert.deepEqual(now.ms1!.applications, ['benefits']);

  // inventory moves from the administration server to cluster2 (ms2): the server it leaves is
  // rebuilt too, though the configuration no longer places it there.
  await activate([['edit/appDeployments/inventory', { targets: [target('clusters', 'cluster2')] }]]);
  now = await shown();
  assert.deepEqual(now.ms2!.applications, ['inventory']);
  assert.ok(!now.AdminServer!.applications.includes('inventory'));
  assert.deepEqual(now.ms1!.applications, ['benefits']);

  // The JMS server and its file store move from ms1 to ms2.
  await activate([
    ['edit/fileStores/FileStore1', { targets: [target('servers', 'ms2')] }],
    ['edit/JMSServers/JMSServer1', { targets: [target('servers', 'ms2')] }],
  ]);
  now = await shown();
  assert.deepEqual(now.ms1!.jmsServers, []);
  assert.deepEqual(now.ms2!.jmsServers, ['JMSServer1']);
  assert.ok(!now.ms1!.stores.includes('FileStore1'));
  assert.ok(now.ms2!.stores.includes('FileStore1'));

  // A change of the cluster itself moves nothing.
  const unchanged = now;
  await activate([['edit/clusters/cluster2', { notes: 'only a note' }]]);
  assert.deepEqual(await shown(), unchanged);

  // A removed application leaves its servers and the domain's deployments.
  await activate([['edit/appDeployments/inventory', {}, 'delete']]);
  now = await shown();
  assert.deepEqual(now.ms2!.applications, []);
  assert.ok(!(await names('domainRuntime/deploymentManager/appDeploymentRuntimes')).includes('inventory'));

  // A runtime rebuilt whole from the configuration (a restart) shows exactly the same.
  srv = await srv.restart();
  assert.deepEqual(await shown(), now);
});
