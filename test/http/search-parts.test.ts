// Parts of search answers kept between searches (the children of each running server's runtime
// root that show no moving figures) are never stale: a search asked again takes them from the
// read cache with the same bytes as a fresh walk, and shows at once a deployment, an undeployment,
// a server stopped and started again, and links for the origin asked through; parts that show the
// workload model's figures are never kept, so those follow the clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { exchange } from '../support/raw-http.js';
import { ASYNC, adminAuth, type Client, type Reply, completed, pollUntil, startRuntimeServer, type RuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
const LC = 'domainRuntime/serverLifeCycleRuntimes';

before(async () => {
  srv = await startRuntimeServer();
  await start('ms2');
});

async function start(server: string): Promise<void> {
  const r = await srv.admin.post(`${LC}/${server}/start`, {}, ASYNC);
  assert.ok(r.status === 202 || r.status === 200, r.text);
  srv.advance(10_000);
  await pollUntil(() => srv.admin.get(`${LC}/${server}?links=none&fields=state`), (x) => x.json?.state === 'RUNNING', `${server} RUNNING`);
}

after(async () => {
  await srv.stop(true);
});

const partHits = () => srv.server.api.readCache.partHits;

/** What an exporter asks: names and states of applications, and the thread pool's figures. */
const EXPORTER = {
  links: [],
  fields: [],
  children: {
    serverRuntimes: {
      links: [],
      fields: ['name', 'state'],
      children: {
        applicationRuntimes: { links: [], fields: ['name'], children: { componentRuntimes: { links: [], fields: ['name', 'deploymentState'] } } },
        threadPoolRuntime: { links: [], fields: ['completedRequestCount'] },
      },
    },
  },
};

async function search(c: Client, query: unknown = EXPORTER): Promise<Reply> {
  const r = await c.post('domainRuntime/search', query);
  assert.equal(r.status, 200, r.text);
  return r;
}

/** Searches twice: the second takes parts from the cache and prints the same bytes. */
async function searchedTwice(c: Client, query: unknown = EXPORTER): Promise<Reply> {
  const first = await search(c, query);
  const before = partHits();
  const second = await search(c, query);
  assert.ok(partHits() > before, 'the second search took no part from the cache');
  // The administration server's own thread pool counts every request: the one figure that moves.
  const steady = (r: Reply) => r.text.replace(/"completedRequestCount": \d+/g, '"completedRequestCount": 0');
  assert.equal(steady(second), steady(first));
  return second;
}

const servers = (r: Reply): Map<string, any> => new Map(r.json.serverRuntimes.items.map((s: any) => [s.name, s]));
const apps = (r: Reply, server: string): string[] => (servers(r).get(server)?.applicationRuntimes.items ?? []).map((a: { name: string }) => a.name);

async function deploy(name: string, server: string): Promise<void> {
  const r = await srv.admin.post('domainRuntime/deploymentManager/deploy', { name, applicationPath: `/srv/apps/${name}.war`, targets: [server], plan: null, deploymentOptions: {} }, ASYNC);
  assert.equal(r.status, 202, r.text);
  srv.advance(1000);
  await completed(srv.admin, r.headers.get('location')!);
}

test('a search asked again prints the same bytes; a deployment and an undeployment show at once', async () => {
  const admin = srv.admin;
  const running = [...servers(await searchedTwice(admin)).keys()];
  assert.ok(running.includes('ms2'), `ms2 runs: ${running.join(', ')}`);
  assert.ok(!apps(await searchedTwice(admin), 'ms2').includes('parts-app'));
  await deploy('parts-app', 'ms2');
  assert.ok(apps(await searchedTwice(admin), 'ms2').includes('parts-app'), 'the search lists the deployed application');
  const r = await admin.post('domainRuntime/deploymentManager/undeploy', { name: 'parts-app', deploymentOptions: {} }, ASYNC);
  assert.ok(r.status === 202 || r.status === 200, r.text);
  srv.advance(1000);
  if (r.status === 202) await completed(admin, r.headers.get('location')!);
  assert.ok(!apps(await search(admin), 'ms2').includes('parts-app'), 'the search no longer lists the undeployed application');
});

test('parts showing the workload figures are never kept: they follow the clock', async () => {
  const admin = srv.admin;
  const query = { links: [], fields: [], children: { serverRuntimes: { links: [], fields: ['name'], children: { JVMRuntime: { links: [], fields: ['uptime'] } } } } };
  const uptime = (r: Reply) => servers(r).get('ms2').JVMRuntime.uptime as number;
  const first = uptime(await search(admin, query));
  const before = partHits();
  assert.equal(uptime(await search(admin, query)), first, 'the clock stood still');
  srv.advance(4321);
  assert.equal(uptime(await search(admin, query)), first + 4321);
  assert.equal(partHits(), before, 'a part showing figures was taken from the cache');
  // In the exporter's answer the applications are kept, the thread pool's figures are not.
  const a = await searchedTwice(admin);
  srv.advance(60_000);
  const b = await search(admin);
  assert.deepEqual(apps(b, 'ms2'), apps(a, 'ms2'));
  assert.ok(servers(b).get('ms2').threadPoolRuntime.completedRequestCount > servers(a).get('ms2').threadPoolRuntime.completedRequestCount);
});

test('a server stopped leaves the answer, and comes back when started again', async () => {
  const admin = srv.admin;
  assert.ok(servers(await searchedTwice(admin)).has('ms2'));
  const stop = await admin.post(`${LC}/ms2/forceShutdown`, {}, ASYNC);
  assert.ok(stop.status === 202 || stop.status === 200, stop.text);
  srv.advance(10_000);
  await pollUntil(() => admin.get(`${LC}/ms2?links=none&fields=state`), (x) => x.json?.state === 'SHUTDOWN', 'ms2 SHUTDOWN');
  assert.ok(!servers(await search(admin)).has('ms2'), 'a stopped server is not among the running ones');
  await start('ms2');
  const again = servers(await searchedTwice(admin)).get('ms2');
  assert.equal(again?.state, 'RUNNING');
});

test('links are written for the origin each search came through', async () => {
  const admin = srv.admin;
  const query = { fields: [], links: [], children: { serverRuntimes: { fields: ['name'], links: [], children: { applicationRuntimes: { fields: ['name'], links: ['self'] } } } } };
  const selfOf = (r: Reply) => servers(r).get('ms2').applicationRuntimes.items[0].links[0].href as string;
  const here = await searchedTwice(admin, query);
  const port = Number(new URL(srv.origin).port);
  const body = JSON.stringify(query);
  const asked = `POST /management/appserver/latest/domainRuntime/search HTTP/1.1\r\nHost: elsewhere.example:${port}\r\nAuthorization: ${adminAuth}\r\nX-Requested-By: parts-test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  const there = await exchange(port, asked);
  assert.ok(there.text.includes(`"http:\\/\\/elsewhere.example:${port}\\/management\\/appserver\\/latest\\/domainRuntime\\/serverRuntimes\\/ms2\\/applicationRuntimes\\/`), there.text.slice(0, 2000));
  assert.ok(!selfOf(here).includes('elsewhere.example'), selfOf(here));
  assert.equal(selfOf(await search(admin, query)), selfOf(here));
});
