// The workload model seen through HTTP on the manual clock: a running managed server answers an
// exporter-shaped search (server, JVM, thread pool, channels, applications -> component runtimes
// -> servlets, work managers, JMS servers -> destinations, stores, transactions, data sources)
// with non-zero figures that grow exactly as the clock moves; the modules of an uploaded archive
// are its component runtimes; a hogging thread pool warns; paused insertion stops a destination.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { GAUGE_STEP_MS, threadPool } from '../../src/runtime/workload.js';
import { ASYNC, type Client, type RuntimeServer, pollUntil, request, startRuntimeServer } from '../support/runtime-server.js';
import { makeZip, webXml } from '../support/zip.js';

const MS1 = 'domainRuntime/serverRuntimes/ms1';
const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: RuntimeServer;
let admin: Client;
/** The data source's database: a port that accepts connections (a MySQL URL is checked by TCP). */
let database: net.Server;

async function ok(path: string, body: unknown = {}, status = [200, 201]): Promise<any> {
  const r = await admin.post(path, body);
  assert.ok(status.includes(r.status), `${path} ${JSON.stringify(body)}: ${r.status} ${r.text}`);
  return r.json;
}

async function lifecycle(server: string, op: string, state: string): Promise<void> {
  const r = await admin.post(`${LC}/${server}/${op}`, {}, ASYNC);
  assert.ok(r.status === 202 || r.status === 200, `${op} ${server}: ${r.text}`);
  srv.advance(10_000);
  await pollUntil(() => admin.get(`${LC}/${server}?links=none&fields=state`), (x) => x.json?.state === state, `${server} ${state}`);
}

const SHOP = webXml([
  { name: 'CartServlet', className: 'shop.CartServlet', patterns: ['/cart/*'] },
  { name: 'CheckoutServlet', className: 'shop.CheckoutServlet', patterns: ['/checkout'] },
]);

before(async () => {
  database = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
  srv = await startRuntimeServer();
  admin = srv.admin;
  await ok('edit/changeManager/startEdit');
  // A queue and a topic placed on JMSServer1 (which runs on ms1), a data source on the cluster,
  // and a heap size for ms2.
  await ok('edit/JMSSystemResources', { name: 'orders', targets: [{ identity: ['servers', 'ms1'] }] });
  await ok('edit/JMSSystemResources/orders/subDeployments', { name: 'sd1', targets: [{ identity: ['JMSServers', 'JMSServer1'] }] });
  await ok('edit/JMSSystemResources/orders/JMSResource/queues', { name: 'OrderQueue', subDeploymentName: 'sd1' });
  await ok('edit/JMSSystemResources/orders/JMSResource/topics', { name: 'Events', subDeploymentName: 'sd1' });
  await ok('edit/JDBCSystemResources', { name: 'appDS', targets: [{ identity: ['clusters', 'cluster1'] }] });
  await ok('edit/JDBCSystemResources/appDS/JDBCResource/JDBCConnectionPoolParams', { initialCapacity: 2, maxCapacity: 8 });
  await ok('edit/JDBCSystemResources/appDS/JDBCResource/JDBCDriverParams', { url: `jdbc:mysql://127.0.0.1:${(database.address() as net.AddressInfo).port}/app` });
  await ok('edit/servers/ms2/serverStart', { arguments: '-Xms256m -Xmx1g -Dsome.flag=1' });
  await ok('edit/servers/ms2/networkAccessPoints', { name: 'internal', protocol: 't3', listenPort: 7010 });
  await ok('edit/changeManager/activate');
  // An uploaded web archive on the cluster: its web.xml names its servlets.
  const form = new FormData();
  form.append('model', "{ name: 'shop', targets: [ { identity: [ 'clusters', 'cluster1' ] } ] }");
  form.append('sourcePath', new Blob([new Uint8Array(makeZip({ 'WEB-INF/web.xml': SHOP }))]), 'shop.war');
  const r = await request(admin.url('edit/appDeployments'), { method: 'POST', body: form, auth: admin.auth, headers: { 'x-requested-by': 'workload-tests', ...ASYNC } });
  assert.equal(r.status, 202, r.text);
  srv.advance(5_000);
  await lifecycle('ms1', 'start', 'RUNNING');
  // The data source's first check of its database ends at once: the port accepts connections.
  await pollUntil(() => admin.get(`${MS1}/JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans/appDS?links=none&fields=state`), (x) => x.json?.state === 'Running', 'appDS Running');
});

after(async () => {
  await srv?.stop(true);
  await new Promise((resolve) => database?.close(resolve));
});

const level = (fields: string[], children?: Record<string, unknown>) => ({ links: [], fields, ...(children ? { children } : {}) });

/** The shape of query a monitoring exporter sends to a server's runtime. */
const EXPORTER = level(['name', 'state', 'activationTime', 'openSocketsCurrentCount', 'healthState', 'overallHealthState'], {
  JVMRuntime: level(['heapFreeCurrent', 'heapFreePercent', 'heapSizeCurrent', 'heapSizeMax', 'uptime', 'processCpuLoad', 'javaVersion', 'OSName']),
  threadPoolRuntime: level(['completedRequestCount', 'executeThreadTotalCount', 'executeThreadIdleCount', 'hoggingThreadCount', 'standbyThreadCount', 'pendingUserRequestCount', 'queueLength', 'throughput', 'healthState']),
  serverChannelRuntimes: level(['channelName', 'publicURL', 'acceptCount', 'connectionsCount', 'messagesReceivedCount', 'messagesSentCount', 'bytesReceivedCount', 'bytesSentCount']),
  applicationRuntimes: level(['name'], {
    componentRuntimes: level(['name', 'type', 'contextRoot', 'deploymentState', 'openSessionsCurrentCount', 'openSessionsHighCount', 'sessionsOpenedTotalCount'], {
      servlets: level(['servletName', 'servletClassName', 'URLPatterns', 'invocationTotalCount', 'executionTimeTotal', 'executionTimeHigh']),
    }),
    workManagerRuntimes: level(['name', 'completedRequests', 'pendingRequests', 'stuckThreadCount']),
  }),
  JMSRuntime: level(['name'], {
    JMSServers: level(['name', 'messagesReceivedCount', 'messagesCurrentCount', 'messagesHighCount', 'bytesReceivedCount', 'destinationsCurrentCount'], {
      destinations: level(['name', 'destinationType', 'messagesReceivedCount', 'messagesCurrentCount', 'messagesHighCount', 'consumersCurrentCount', 'bytesReceivedCount']),
    }),
  }),
  persistentStoreRuntimes: level(['name', 'createCount', 'readCount', 'deleteCount', 'objectCount', 'physicalWriteCount']),
  JTARuntime: level(['transactionTotalCount', 'transactionCommittedTotalCount', 'transactionRolledBackTotalCount', 'activeTransactionsTotalCount']),
  JDBCServiceRuntime: level([], {
    JDBCDataSourceRuntimeMBeans: level(['name', 'state', 'activeConnectionsCurrentCount', 'activeConnectionsHighCount', 'currCapacity', 'numAvailable', 'numUnavailable', 'connectionsTotalCount', 'reserveRequestCount']),
  }),
});

async function scrape(server = MS1): Promise<any> {
  const r = await admin.post(`${server}/search`, EXPORTER);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

const items = (collection: any): any[] => collection?.items ?? [];
const byName = (collection: any, key = 'name'): Map<string, any> => new Map(items(collection).map((i) => [i[key], i]));

test('a running managed server reports non-zero figures that grow exactly with the clock', async () => {
  const first = await scrape();
  srv.advance(10 * 60_000);
  const second = await scrape();
  for (const s of [first, second]) {
    assert.equal(s.name, 'ms1');
    assert.equal(s.state, 'RUNNING');
    const j = s.JVMRuntime;
    assert.ok(j.heapSizeMax === 512 * 1024 * 1024, `heap max ${j.heapSizeMax}`);
    assert.ok(j.heapFreeCurrent > 0 && j.heapFreeCurrent <= j.heapSizeCurrent && j.heapSizeCurrent <= j.heapSizeMax, JSON.stringify(j));
    assert.ok(j.heapFreePercent > 0 && j.heapFreePercent <= 100);
    assert.ok(j.processCpuLoad > 0 && j.processCpuLoad < 1);
    assert.match(j.javaVersion, /^1\.8\.0_\d+$/);
    const p = s.threadPoolRuntime;
    assert.ok(p.executeThreadTotalCount > 0 && p.executeThreadIdleCount <= p.executeThreadTotalCount && p.executeThreadIdleCount >= 0, JSON.stringify(p));
    assert.ok(p.hoggingThreadCount <= p.executeThreadTotalCount);
    assert.equal(p.healthState.state, p.hoggingThreadCount >= 3 ? 'warn' : 'ok');
  }
  // Uptime is the time on the clock since the server started, to the millisecond.
  assert.equal(second.JVMRuntime.uptime - first.JVMRuntime.uptime, 10 * 60_000);
  assert.equal(second.activationTime, first.activationTime);
  assert.equal(srv.scheduler.now() - second.activationTime, second.JVMRuntime.uptime);
  assert.ok(first.threadPoolRuntime.completedRequestCount > 0);
  assert.ok(second.threadPoolRuntime.completedRequestCount > first.threadPoolRuntime.completedRequestCount);
  assert.ok(second.threadPoolRuntime.throughput > 0);

  // One channel per protocol of the default channel on each loopback address ms1 listens on.
  const channels = byName(second.serverChannelRuntimes, 'channelName');
  const expected = ['t3', 'http', 'iiop', 'ldap', 'snmp', 'CLUSTER-BROADCAST'].flatMap((p) => [`Default[${p}]`, `Default[${p}][1]`]);
  assert.deepEqual([...channels.keys()].sort(), expected.sort());
  assert.equal(channels.get('Default[http]').publicURL, 'http://localhost:7003');
  assert.equal(channels.get('Default[http][1]').publicURL, 'http://[::1]:7003');
  const before = byName(first.serverChannelRuntimes, 'channelName');
  for (const [name, c] of channels) {
    const b = before.get(name);
    for (const counter of ['acceptCount', 'messagesReceivedCount', 'messagesSentCount', 'bytesReceivedCount', 'bytesSentCount']) assert.ok(c[counter] >= b[counter], `${name} ${counter} went down`);
    assert.ok(c.messagesReceivedCount > b.messagesReceivedCount, `${name} received nothing in 10 minutes`);
  }

  // Applications -> component runtimes -> servlets, read from the uploaded archive; work managers.
  const apps = byName(second.applicationRuntimes);
  assert.deepEqual([...apps.keys()].sort(), ['benefits', 'shop']);
  const shop = byName(apps.get('shop').componentRuntimes);
  assert.deepEqual([...shop.keys()], ['ms1_/shop']);
  const web = shop.get('ms1_/shop');
  assert.equal(web.type, 'WebAppComponentRuntime');
  assert.equal(web.contextRoot, '/shop');
  assert.ok(web.openSessionsHighCount >= web.openSessionsCurrentCount);
  const servlets = byName(web.servlets, 'servletName');
  assert.deepEqual([...servlets.keys()], ['CartServlet', 'CheckoutServlet', 'JspServlet', 'FileServlet']);
  assert.deepEqual(servlets.get('CartServlet').URLPatterns, ['/cart/*']);
  assert.equal(servlets.get('CartServlet').servletClassName, 'shop.CartServlet');
  const oldServlets = byName(byName(byName(first.applicationRuntimes).get('shop').componentRuntimes).get('ms1_/shop').servlets, 'servletName');
  for (const [name, s] of servlets) {
    assert.ok(s.invocationTotalCount > oldServlets.get(name).invocationTotalCount, `${name} was not invoked in 10 minutes`);
    assert.ok(s.executionTimeTotal >= s.invocationTotalCount && s.executionTimeHigh > 0);
  }
  // benefits' archive is not in the data directory: its module shows the container's servlets only.
  const benefits = byName(apps.get('benefits').componentRuntimes).get('ms1_/benefits');
  assert.deepEqual(items(benefits.servlets).map((s) => s.servletName), ['JspServlet', 'FileServlet']);
  const wm = (s: any) => byName(byName(s.applicationRuntimes).get('shop').workManagerRuntimes).get('default');
  assert.ok(wm(second).completedRequests > wm(first).completedRequests && wm(first).completedRequests > 0);

  // JMS servers -> destinations: messages arrive; the JMS server adds its destinations up.
  const jms = byName(second.JMSRuntime.JMSServers).get('JMSServer1');
  const destinations = byName(jms.destinations);
  assert.deepEqual([...destinations.keys()].sort(), ['orders!Events', 'orders!OrderQueue']);
  assert.equal(destinations.get('orders!Events').destinationType, 'Topic');
  assert.equal(jms.destinationsCurrentCount, 2);
  const sum = (k: string) => [...destinations.values()].reduce((n, d) => n + d[k], 0);
  for (const k of ['messagesReceivedCount', 'messagesCurrentCount', 'messagesHighCount', 'bytesReceivedCount']) assert.equal(jms[k], sum(k), k);
  const oldJms = byName(first.JMSRuntime.JMSServers).get('JMSServer1');
  assert.ok(jms.messagesReceivedCount > oldJms.messagesReceivedCount && oldJms.messagesReceivedCount > 0);
  for (const d of destinations.values()) assert.ok(d.messagesHighCount >= d.messagesCurrentCount && d.consumersCurrentCount >= 1);

  // Persistent stores: the server's default store and FileStore1, targeted to it.
  const stores = byName(second.persistentStoreRuntimes);
  assert.deepEqual([...stores.keys()].sort(), ['FileStore1', '_APPSERVER_ms1']);
  const oldStore = byName(first.persistentStoreRuntimes).get('FileStore1');
  assert.ok(stores.get('FileStore1').createCount > oldStore.createCount);
  // The store opened with records of its own: objects held are those plus creates minus deletes.
  const initial = (x: any) => x.objectCount + x.deleteCount - x.createCount;
  assert.equal(initial(stores.get('FileStore1')), initial(oldStore));
  assert.ok(initial(oldStore) > 0 && stores.get('FileStore1').deleteCount <= stores.get('FileStore1').createCount + initial(oldStore));

  // Transactions: most commit; the total is what committed and what rolled back.
  const tx = second.JTARuntime;
  assert.ok(tx.transactionTotalCount > first.JTARuntime.transactionTotalCount);
  assert.equal(tx.transactionTotalCount, tx.transactionCommittedTotalCount + tx.transactionRolledBackTotalCount);

  // A data source's connections stay within its pool (initial 2, maximum 8).
  const ds = byName(second.JDBCServiceRuntime.JDBCDataSourceRuntimeMBeans).get('appDS');
  assert.equal(ds.state, 'Running');
  assert.ok(ds.currCapacity >= 2 && ds.currCapacity <= 8, JSON.stringify(ds));
  assert.ok(ds.activeConnectionsCurrentCount <= ds.currCapacity && ds.activeConnectionsHighCount <= 8);
  assert.equal(ds.numAvailable + ds.numUnavailable, ds.currCapacity);
  assert.ok(ds.connectionsTotalCount >= 2);
  assert.ok(ds.reserveRequestCount > byName(first.JDBCServiceRuntime.JDBCDataSourceRuntimeMBeans).get('appDS').reserveRequestCount);
});

test("the thread pool warns while threads hog, and the server's health follows it", async () => {
  const read = async () => (await admin.get(`${MS1}?links=none&fields=activationTime,overallHealthState`)).json;
  const { activationTime } = await read();
  // The model is deterministic: find, from now on, the next moment ms1's pool hogs, then the next it does not.
  const find = (from: number, warn: boolean) => {
    for (let t = from; t < from + 48 * 3_600_000; t += GAUGE_STEP_MS) if ((threadPool('ms1', t).healthState === 'warn') === warn) return t;
    assert.fail(`no ${warn ? 'hogging' : 'quiet'} moment in two days`);
  };
  const elapsed = srv.scheduler.now() - activationTime;
  const hogging = find(elapsed, true);
  srv.advance(hogging - elapsed);
  const pool = (await admin.get(`${MS1}/threadPoolRuntime?links=none&fields=hoggingThreadCount,healthState`)).json;
  assert.ok(pool.hoggingThreadCount >= 3, JSON.stringify(pool));
  assert.equal(pool.healthState.state, 'warn');
  assert.equal(pool.healthState.symptoms.length, 1);
  const server = await read();
  assert.equal(server.overallHealthState.state, 'warn');
  assert.equal(server.overallHealthState.subsystemName, 'threadpool');

  const quiet = find(hogging, false);
  srv.advance(quiet - hogging);
  assert.equal((await read()).overallHealthState.state, 'ok');
  assert.equal((await admin.get(`${MS1}/threadPoolRuntime?links=none&fields=healthState`)).json.healthState.state, 'ok');
});

test('a destination receives nothing while insertion is paused, and again once resumed', async () => {
  const queue = `${MS1}/JMSRuntime/JMSServers/JMSServer1/destinations/orders!OrderQueue`;
  const received = async () => (await admin.get(`${queue}?links=none&fields=messagesReceivedCount`)).json.messagesReceivedCount as number;
  await ok(`${queue}/pauseInsertion`, {}, [200]);
  const atPause = await received();
  srv.advance(30 * 60_000);
  assert.equal(await received(), atPause);
  // Pausing the JMS server too, then resuming the queue alone: still paused through its server.
  await ok(`${MS1}/JMSRuntime/JMSServers/JMSServer1/pauseInsertion`, {}, [200]);
  await ok(`${queue}/resumeInsertion`, {}, [200]);
  srv.advance(10 * 60_000);
  assert.equal(await received(), atPause);
  await ok(`${MS1}/JMSRuntime/JMSServers/JMSServer1/resumeInsertion`, {}, [200]);
  srv.advance(10 * 60_000);
  assert.ok((await received()) > atPause, 'nothing arrived after the resume');
});

test('a JVM reports the heap of its start arguments and a thread dump of its pool; a stopped server has no figures', async () => {
  await lifecycle('ms2', 'start', 'RUNNING');
  srv.advance(60_000);
  const j = (await admin.get('domainRuntime/serverRuntimes/ms2/JVMRuntime?links=none')).json;
  assert.equal(j.heapSizeMax, 1024 * 1024 * 1024);
  const { activationTime } = (await admin.get('domainRuntime/serverRuntimes/ms2?links=none&fields=activationTime')).json;
  assert.equal(j.uptime, srv.scheduler.now() - activationTime);
  assert.ok(j.uptime >= 60_000);
  const pool = (await admin.get('domainRuntime/serverRuntimes/ms2/threadPoolRuntime?links=none&fields=executeThreadTotalCount')).json;
  const threads = j.threadStackDump.match(/^"(\[[A-Z]+\] )?ExecuteThread: '\d+' for queue/gm) ?? [];
  assert.equal(threads.length, pool.executeThreadTotalCount);
  assert.match(j.threadStackDump, /java\.lang\.Thread\.State: /);
  assert.doesNotMatch(j.threadStackDump, /weblogic|oracle/i);
  // The administration server is this process: its JVM is this one's.
  const own = (await admin.get('serverRuntime/JVMRuntime?links=none&fields=javaVendor')).json;
  assert.equal(own.javaVendor, 'Node.js');

  // A network access point has its channels (its protocol, and HTTP tunnelled on t3).
  const channels = (await admin.get('domainRuntime/serverRuntimes/ms2/serverChannelRuntimes?links=none&fields=name,publicURL')).json.items;
  const internal = channels.filter((c: { name: string }) => c.name.startsWith('internal'));
  assert.deepEqual(internal, [
    { name: 'internal[t3]', publicURL: 't3://localhost:7010' },
    { name: 'internal[http]', publicURL: 'http://localhost:7010' },
  ]);

  await lifecycle('ms2', 'shutdown', 'SHUTDOWN');
  assert.equal((await admin.get('domainRuntime/serverRuntimes/ms2/JVMRuntime')).status, 404);
  // Started again, it counts from zero.
  await lifecycle('ms2', 'start', 'RUNNING');
  const again = (await admin.get('domainRuntime/serverRuntimes/ms2/JVMRuntime?links=none&fields=uptime')).json;
  assert.ok(again.uptime < 60_000, JSON.stringify(again));
});

test('an enterprise archive deployed to ms1: its web module with its servlets, its EJB module with its beans, whose pools and transactions move', async () => {
  const application = `<?xml version="1.0"?>
<application><module><web><web-uri>store-web.war</web-uri><context-root>/store</context-root></web></module><module><ejb>store-ejb.jar</ejb></module></application>`;
  const ejbJar = `<?xml version="1.0"?>
<ejb-jar><enterprise-beans><session><ejb-name>PriceBean</ejb-name><session-type>Stateless</session-type></session><message-driven><ejb-name>OrderListener</ejb-name></message-driven></enterprise-beans></ejb-jar>`;
  const ear = makeZip({ 'META-INF/application.xml': application, 'store-web.war': makeZip({ 'WEB-INF/web.xml': SHOP }), 'store-ejb.jar': makeZip({ 'META-INF/ejb-jar.xml': ejbJar }) });
  const form = new FormData();
  form.append('model', "{ name: 'store', targets: [ { identity: [ 'servers', 'ms1' ] } ] }");
  form.append('sourcePath', new Blob([new Uint8Array(ear)]), 'store.ear');
  const r = await request(admin.url('edit/appDeployments'), { method: 'POST', body: form, auth: admin.auth, headers: { 'x-requested-by': 'workload-tests', ...ASYNC } });
  assert.equal(r.status, 202, r.text);
  srv.advance(5_000);
  const app = `${MS1}/applicationRuntimes/store`;
  await pollUntil(() => admin.get(`${app}?links=none&fields=name`), (x) => x.status === 200, 'store deployed on ms1');
  const components = (await admin.get(`${app}/componentRuntimes?links=none&fields=name,type,moduleId,contextRoot`)).json.items;
  assert.deepEqual(components, [
    { name: 'ms1_/store', type: 'WebAppComponentRuntime', moduleId: 'store-web.war', contextRoot: '/store' },
    { name: 'store-ejb.jar', type: 'EJBComponentRuntime', moduleId: 'store-ejb.jar' },
  ]);
  const servlets = (await admin.get(`${app}/componentRuntimes/ms1_%2Fstore/servlets?links=none&fields=servletName`)).json.items.map((x: { servletName: string }) => x.servletName);
  assert.deepEqual(servlets, ['CartServlet', 'CheckoutServlet', 'JspServlet', 'FileServlet']);
  const ejbs = `${app}/componentRuntimes/store-ejb.jar/EJBRuntimes`;
  assert.deepEqual((await admin.get(`${ejbs}?links=none&fields=name,type,EJBName`)).json.items, [
    { name: 'PriceBean', type: 'StatelessEJBRuntime', EJBName: 'PriceBean' },
    { name: 'OrderListener', type: 'MessageDrivenEJBRuntime', EJBName: 'OrderListener' },
  ]);
  srv.advance(60_000);
  const read = async () => ({
    pool: (await admin.get(`${ejbs}/PriceBean/poolRuntime?links=none`)).json,
    tx: (await admin.get(`${ejbs}/PriceBean/transactionRuntime?links=none`)).json,
  });
  const first = await read();
  srv.advance(10 * 60_000);
  const second = await read();
  assert.ok(first.pool.accessTotalCount > 0 && second.pool.accessTotalCount > first.pool.accessTotalCount, JSON.stringify([first.pool, second.pool]));
  assert.ok(second.pool.beansInUseCurrentCount <= second.pool.pooledBeansCurrentCount);
  assert.ok(second.tx.transactionsCommittedTotalCount > first.tx.transactionsCommittedTotalCount);
});

test('each figure read alone (a field list, as a search asks) equals the same figure in the whole bean', async () => {
  // After the archive test: ms1 runs the store application with its web and EJB modules. The clock
  // stands still meanwhile, so every read sees the same figures.
  const app = `${MS1}/applicationRuntimes/store`;
  const beans = [
    MS1,
    `${MS1}/JVMRuntime`,
    `${MS1}/threadPoolRuntime`,
    `${MS1}/serverChannelRuntimes/${encodeURIComponent('Default[http]')}`,
    `${MS1}/JTARuntime`,
    `${MS1}/persistentStoreRuntimes/_APPSERVER_ms1`,
    `${app}/componentRuntimes/ms1_%2Fstore`,
    `${app}/componentRuntimes/ms1_%2Fstore/servlets/CartServlet`,
    `${app}/componentRuntimes/store-ejb.jar/EJBRuntimes/PriceBean/poolRuntime`,
    `${app}/componentRuntimes/store-ejb.jar/EJBRuntimes/PriceBean/transactionRuntime`,
    `${app}/workManagerRuntimes/default`,
  ];
  srv.advance(60_000);
  let figures = 0;
  const wholes = new Map<string, any>();
  for (const path of beans) {
    const whole = await admin.get(`${path}?links=none`);
    assert.equal(whole.status, 200, `${path}: ${whole.text}`);
    for (const [name, value] of Object.entries(whole.json as Record<string, unknown>)) {
      if (name === 'identity') continue;
      const alone = await admin.get(`${path}?links=none&fields=${encodeURIComponent(name)}`);
      assert.equal(alone.status, 200, alone.text);
      assert.deepEqual(alone.json, { [name]: value }, `${path} ${name}`);
      if (typeof value === 'number' && value > 0) figures++;
    }
    wholes.set(path, whole.json);
  }
  // The same figures through one search of ms1 that asks for them alone (the renderer's search walk).
  const only = (path: string) => Object.keys(wholes.get(path)).filter((k) => k !== 'identity');
  const query = { links: [], fields: only(MS1), children: Object.fromEntries(['JVMRuntime', 'threadPoolRuntime', 'JTARuntime'].map((c) => [c, { links: [], fields: only(`${MS1}/${c}`) }])) };
  const searched = await admin.post(`${MS1}/search`, query);
  assert.equal(searched.status, 200, searched.text);
  const strip = (x: any) => Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'identity'));
  assert.deepEqual(searched.json, { ...strip(wholes.get(MS1)), ...Object.fromEntries(['JVMRuntime', 'threadPoolRuntime', 'JTARuntime'].map((c) => [c, strip(wholes.get(`${MS1}/${c}`))])) });
  // The model's figures were among them (non-zero counters of every kind of bean).
  assert.ok(figures > 40, `only ${figures} non-zero figures`);
});
