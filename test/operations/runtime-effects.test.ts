// Runtime operations with real effects, on the manual clock: JMS pause and resume (states the
// runtime beans show, kept in the runtime state across a restart of this server, gone when the
// managed server stops), transaction ids that name nothing, log files that are flushed, rotated
// and opened again, connection tests that follow the resource adapter's suspension, the retire
// timeout of a redeploy, SSL channels that take up the configuration, the restart of a system
// resource, and the sub-deployment of a JMS destination.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ASYNC, type Client, type RuntimeServer, errorDetails, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

const MS1 = 'domainRuntime/serverRuntimes/ms1';
const JMS = `${MS1}/JMSRuntime/JMSServers/JMSServer1`;
const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: RuntimeServer;
let admin: Client;

async function lifecycle(server: string, op: string, state: string): Promise<void> {
  const r = await admin.post(`${LC}/${server}/${op}`, {}, ASYNC);
  assert.ok(r.status === 202 || r.status === 200, `${op} ${server}: ${r.text}`);
  srv.advance(10_000);
  await pollUntil(() => admin.get(`${LC}/${server}?links=none&fields=state`), (x) => x.json?.state === state, `${server} ${state}`);
}

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
  await lifecycle('ms1', 'start', 'RUNNING');
});

after(async () => {
  await srv.stop(true);
});

const ok = async (path: string, body: Record<string, unknown> = {}) => {
  const r = await admin.post(path, body);
  assert.equal(r.status, 200, `${path} ${JSON.stringify(body)}: ${r.text}`);
  return r.json;
};
const fields = async (path: string, names: string) => (await admin.get(`${path}?links=none&fields=${names}`)).json;

test('JMS: pause and resume change what the JMS server and its destinations show, survive a restart of this server, and end when ms1 stops', async () => {
  // A module whose queue is placed on JMSServer1 through a sub-deployment.
  assert.equal((await admin.post('edit/JMSSystemResources', { name: 'orders', targets: [{ identity: ['servers', 'ms1'] }] })).status, 201);
  assert.equal((await admin.post('edit/JMSSystemResources/orders/subDeployments', { name: 'sd1', targets: [{ identity: ['JMSServers', 'JMSServer1'] }] })).status, 201);
  assert.equal((await admin.post('edit/JMSSystemResources/orders/JMSResource/queues', { name: 'q1', subDeploymentName: 'sd1', consumptionPausedAtStartup: true })).status, 201);
  const queue = `${JMS}/destinations/orders!q1`;
  assert.deepEqual(await fields(queue, 'destinationType,productionPaused,consumptionPaused,consumptionPausedState'), {
    destinationType: 'Queue',
    productionPaused: false,
    consumptionPaused: true,
    consumptionPausedState: 'Consumption-Paused',
  });
  assert.deepEqual(await ok(`${JMS}/pauseProduction`), {});
  assert.deepEqual(await fields(JMS, 'productionPaused,productionPausedState,insertionPaused'), { productionPaused: true, productionPausedState: 'Production-Paused', insertionPaused: false });
  // The destinations of a paused JMS server are paused with it.
  assert.equal((await fields(queue, 'productionPaused')).productionPaused, true);
  await ok(`${queue}/resumeConsumption`);
  await ok(`${queue}/pauseInsertion`);
  assert.deepEqual(await fields(queue, 'consumptionPausedState,insertionPausedState'), { consumptionPausedState: 'Consumption-Enabled', insertionPausedState: 'Insertion-Paused' });

  // Kept in the runtime state: this server restarts and shows the same.
  srv = await srv.restart();
  admin = srv.admin;
  assert.deepEqual(await fields(JMS, 'productionPausedState'), { productionPausedState: 'Production-Paused' });
  assert.deepEqual(await fields(queue, 'consumptionPausedState,insertionPausedState'), { consumptionPausedState: 'Consumption-Enabled', insertionPausedState: 'Insertion-Paused' });
  await ok(`${JMS}/resumeProduction`);
  assert.equal((await fields(queue, 'productionPaused')).productionPaused, false);

  // ms1 stops: what was paused ends with it; started again, the configuration applies.
  await ok(`${queue}/pauseProduction`);
  await lifecycle('ms1', 'shutdown', 'SHUTDOWN');
  await lifecycle('ms1', 'start', 'RUNNING');
  assert.deepEqual(await fields(queue, 'productionPaused,consumptionPaused,insertionPaused'), { productionPaused: false, consumptionPaused: true, insertionPaused: false });

  // Restarting the module drops what was paused on its destinations.
  await ok(`${queue}/resumeConsumption`);
  assert.equal((await fields(queue, 'consumptionPaused')).consumptionPaused, false);
  await ok('domainRuntime/restartSystemResource', { resource: ['JMSSystemResources', 'orders'] });
  assert.equal((await fields(queue, 'consumptionPaused')).consumptionPaused, true);

  // The pauses and resumes are in the JMS server's log, once flushed.
  await ok(`${JMS}/logRuntime/flushLog`);
  const log = readFileSync(join(srv.dataDir, 'logs', 'beans', 'ms1', 'JMSRuntime.JMSServers.JMSServer1.logRuntime.log'), 'utf8');
  assert.match(log, /<JMS> <Consumption resumed on destination orders!q1 of JMSServer1\.>/);
});

test('transactions: forcing the outcome of a transaction no server has is refused, naming it', async () => {
  for (const op of ['forceCommit', 'forceRollback']) {
    const jta = errorDetails(await admin.post(`${MS1}/JTARuntime/${op}`, { xid: 'BEA1-0001', global: true }), 400, `JTA ${op}`);
    assert.match(jta[0]!, /\[xid\] There is no transaction with xid 'BEA1-0001' in the domain/);
    const branch = errorDetails(await admin.post(`${JMS}/${op}`, { xid: 'BEA1-0002' }), 400, `JMS ${op}`);
    assert.match(branch[0]!, /JMS server JMSServer1 has no transaction branch 'BEA1-0002'/);
  }
  assert.match(errorDetails(await admin.post(`${MS1}/JTARuntime/forceCommit`, { xid: '', global: false }), 400, 'empty xid')[0]!, /must name a transaction/);
});

test('logs: a server log records state changes; flushLog writes what is buffered, forceLogRotation starts a new file, ensureLogOpened creates a removed one', async () => {
  const logs = join(srv.dataDir, 'logs');
  const serverLog = join(logs, 'servers', 'ms1.log');
  await ok(`${MS1}/serverLogRuntime/flushLog`);
  assert.match(readFileSync(serverLog, 'utf8'), /<ServerLifeCycle> <Server state changed to RUNNING\.>/);
  assert.equal(statSync(serverLog).mode & 0o777, 0o600);
  assert.equal(statSync(logs).mode & 0o777, 0o700);
  // The domain log is the audit trail: lines wait in the buffer until flushed (or 5 s of the clock).
  const domainLog = join(logs, 'demo_domain.log');
  await ok('serverRuntime/serverSecurityRuntime/defaultRealmRuntime/userLockoutManagerRuntime/clearLockout', { userName: 'nobody-at-all' });
  const before = existsSync(domainLog) ? readFileSync(domainLog, 'utf8') : '';
  assert.doesNotMatch(before, /clearLockout/);
  await ok('domainRuntime/logRuntime/flushLog');
  assert.match(readFileSync(domainLog, 'utf8'), /<Audit> <admin clearLockout serverRuntime\/serverSecurityRuntime\/defaultRealmRuntime\/userLockoutManagerRuntime: success\./);
  await ok('domainRuntime/logRuntime/forceLogRotation');
  assert.equal(readFileSync(domainLog, 'utf8'), '');
  assert.match(readFileSync(join(logs, 'demo_domain.log00001'), 'utf8'), /clearLockout/);
  await ok('domainRuntime/logRuntime/forceLogRotation');
  assert.deepEqual(readdirSync(logs).filter((f) => f.startsWith('demo_domain.log')).sort(), ['demo_domain.log', 'demo_domain.log00001', 'demo_domain.log00002']);
  rmSync(domainLog);
  await ok('domainRuntime/logRuntime/ensureLogOpened');
  assert.equal(readFileSync(domainLog, 'utf8'), '');
  // Buffered lines reach the file by themselves after 5 s of the clock.
  await ok('serverRuntime/serverSecurityRuntime/defaultRealmRuntime/userLockoutManagerRuntime/clearLockout', { userName: 'someone-else' });
  srv.advance(5000);
  assert.match(readFileSync(domainLog, 'utf8'), /someone-else/);
});

test('connections: tests fail while the adapter outbound activity is suspended, and hasError tells the last test', async () => {
  const adapter = 'serverRuntime/connectorServiceRuntime/activeRAs/demo-adapter';
  const pool = `${adapter}/connectionPools/eis%2Fdemo-adapter`;
  const connection = `${pool}/connections/${(await admin.get(`${pool}/connections?links=none&fields=name`)).json.items[0].name}`;
  assert.deepEqual(await ok(`${connection}/testConnection`), { return: true });
  assert.deepEqual(await ok(`${connection}/hasError`), { return: false });
  await ok(`${adapter}/suspend`, { type: 2 });
  assert.deepEqual(await ok(`${pool}/testPool`), { return: false });
  assert.deepEqual(await ok(`${connection}/testConnection`), { return: false });
  assert.deepEqual(await ok(`${connection}/hasError`), { return: true });
  await ok(`${adapter}/resume`, { type: 2 });
  assert.deepEqual(await ok(`${connection}/hasError`), { return: true }, 'hasError tells the last test, not the present');
  assert.deepEqual(await ok(`${connection}/testConnection`), { return: true });
  assert.deepEqual(await ok(`${connection}/hasError`), { return: false });
  assert.deepEqual(await ok(`${pool}/testPool`), { return: true });
  await ok(`${pool}/flushLog`);
  const log = readFileSync(join(srv.dataDir, 'logs', 'pools', 'AdminServer', 'eis%2Fdemo-adapter.log'), 'utf8');
  assert.match(log, /Suspended activity 2 of the resource adapter demo-adapter/);
  assert.match(log, /failed its test: the outbound activity of demo-adapter is suspended/);
});

test('retire timeout: a redeploy given retireTimeout says when the version it replaced retires', async () => {
  const ars = 'domainRuntime/appRuntimeStateRuntime';
  assert.deepEqual(await ok(`${ars}/getRetireTimeoutSeconds`, { appid: 'benefits' }), { return: 0 });
  assert.deepEqual(await ok(`${ars}/getRetireTimeMillis`, { appid: 'benefits' }), { return: 0 });
  const now = srv.scheduler.now();
  const r = await admin.post('domainRuntime/deploymentManager/appDeploymentRuntimes/benefits/redeploy', { targets: [], deploymentOptions: { retireTimeout: '90' } }, ASYNC);
  assert.equal(r.status, 202, r.text);
  assert.deepEqual(await ok(`${ars}/getRetireTimeoutSeconds`, { appid: 'benefits' }), { return: 90 });
  assert.deepEqual(await ok(`${ars}/getRetireTimeMillis`, { appid: 'benefits' }), { return: now + 90_000 });
  const bad = await admin.post('domainRuntime/deploymentManager/redeploy', { name: 'benefits', plan: '', deploymentOptions: { retireTimeout: 'soon' } }, ASYNC);
  assert.match(errorDetails(bad, 400, 'a retireTimeout that is no number')[0]!, /\[deploymentOptions\] The deployment option 'retireTimeout' must be a number of seconds/);
  srv.advance(5000);
});

test('SSL channels: restartSSLChannels takes up the SSL configuration of a managed server', async () => {
  const channels = async () => (await admin.get(`${MS1}/serverChannelRuntimes?links=none&fields=name,publicURL`)).json.items;
  // The secure channels (one per secure protocol on each address), by name.
  const secureNames = async () => (await channels()).map((c: { name: string }) => c.name).filter((n: string) => n.startsWith('DefaultSecure'));
  assert.ok((await channels()).some((c: { name: string }) => c.name === 'Default[http]'));
  assert.deepEqual(await secureNames(), []);
  assert.equal((await admin.post('edit/servers/ms1/SSL', { enabled: true, listenPort: 7102 })).status, 200);
  assert.deepEqual(await secureNames(), [], 'the SSL channel opened before a restart');
  assert.deepEqual(await ok(`${MS1}/restartSSLChannels`), {});
  const secure = (await channels()).find((c: { name: string }) => c.name === 'DefaultSecure[https]');
  assert.match(secure.publicURL, /^https:\/\/.+:7102$/);
  assert.ok((await secureNames()).includes('DefaultSecure[t3s]'));
  assert.equal((await fields(MS1, 'SSLListenPortEnabled')).SSLListenPortEnabled, true);
  assert.equal((await admin.post('edit/servers/ms1/SSL', { enabled: false })).status, 200);
  await ok(`${MS1}/restartSSLChannels`);
  assert.deepEqual(await secureNames(), []);
  const self = errorDetails(await admin.post('serverRuntime/restartSSLChannels', {}), 400, 'the administration server');
  assert.match(self[0]!, /plain HTTP only/);
});

test('restartSystemResource: a data source suspended or shut down runs again', async () => {
  const ds = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds';
  // Running, or Unhealthy where nothing answers at the demo's database address (localhost:5432).
  const running = (await fields(ds, 'state')).state;
  assert.ok(['Running', 'Unhealthy'].includes(running), running);
  await ok(`${ds}/suspend`);
  assert.equal((await fields(ds, 'state')).state, 'Suspended');
  await ok('domainRuntime/restartSystemResource', { resource: ['partitions', 'partition1', 'resourceGroups', 'partition1-rg', 'JDBCSystemResources', 'partition1-ds'] });
  assert.equal((await fields(ds, 'state')).state, running);
  const bad = errorDetails(await admin.post('domainRuntime/restartSystemResource', { resource: ['JDBCSystemResources', 'none'] }), 400, 'no such resource');
  assert.match(bad[0]!, /must reference a system resource/);
});

test('findSubDeploymentName: the sub-deployment of the destination the delivery failure parameters belong to', async () => {
  const params = 'edit/JMSSystemResources/orders/JMSResource/queues/q1/deliveryFailureParams';
  assert.deepEqual(await ok(`${params}/findSubDeploymentName`), { return: 'sd1' });
  const partitionQueue = 'serverConfig/partitions/partition1/resourceGroups/partition1-rg/JMSSystemResources/partition1-jms/JMSResource/queues/partition1-orders/deliveryFailureParams';
  assert.deepEqual(await ok(`${partitionQueue}/findSubDeploymentName`), { return: null });
});
