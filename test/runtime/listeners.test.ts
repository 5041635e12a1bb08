// Managed servers are live endpoints (issue 13.1): started with a port offset, ms1 and ms2 answer on
// their own ports with their own serverRuntime, an exporter-shaped search, /metrics and the
// unauthenticated /appserver/ready; the edit and domain trees are the administration server's
// alone; a port closes when its server stops; a port in use fails the start task naming the port;
// after a restart of the process, running servers listen again.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { ASYNC, type Client, type RuntimeServer, adminAuth, assertAccepted, client, errorDetails, job, pollUntil, request, startRuntimeServer } from '../support/runtime-server.js';
import { freePortOffset, refused } from '../support/ports.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: RuntimeServer;
let offset: number;
const port = (configured: number) => configured + offset;
/** A client of a managed server's own port. */
const own = (configured: number): Client => client(() => `http://localhost:${port(configured)}/management/appserver/latest`);

before(async () => {
  offset = await freePortOffset([7002, 7003, 7005]);
  srv = await startRuntimeServer(undefined, undefined, { portOffset: offset });
});

after(async () => {
  await srv?.stop(true);
});

/** Runs a lifecycle operation to its end on the manual clock; the finished task. */
async function lifecycle(server: string, op: string, ms = 2000): Promise<any> {
  const r = await srv.admin.post(`${LC}/${server}/${op}`, {}, ASYNC);
  const location = assertAccepted(r, `${op} ${server}`);
  srv.advance(ms);
  // Binding the ports ends the task a moment after the clock moved.
  return pollUntil(() => job(srv.admin, location), (t) => t.completed === true, `${op} ${server}`);
}

async function state(server: string): Promise<string> {
  const r = await srv.admin.get(`${LC}/${server}?links=none&fields=state`);
  assert.equal(r.status, 200, r.text);
  return r.json.state;
}

const EXPORTER = {
  links: [],
  fields: ['name', 'state'],
  children: {
    JVMRuntime: { links: [], fields: ['heapSizeCurrent', 'heapFreeCurrent', 'uptime'] },
    threadPoolRuntime: { links: [], fields: ['completedRequestCount', 'executeThreadTotalCount'] },
    applicationRuntimes: {
      links: [],
      fields: ['name'],
      children: {
        componentRuntimes: { links: [], fields: ['name', 'deploymentState', 'contextRoot'], children: { servlets: { links: [], fields: ['servletName', 'invocationTotalCount'] } } },
        workManagerRuntimes: { links: [], fields: ['name', 'completedRequests'] },
      },
    },
    JMSRuntime: { links: [], fields: ['name'], children: { JMSServers: { links: [], fields: ['name'], children: { destinations: { links: [], fields: ['name', 'messagesCurrentCount'] } } } } },
  },
};

test("before it starts, nothing listens on a managed server's port; the administration server is ready without credentials", async () => {
  assert.equal(await refused(port(7003)), true, 'ms1 is SHUTDOWN: its port is closed');
  const ready = await request(`${srv.origin}/appserver/ready`, { auth: null });
  assert.equal(ready.status, 200, ready.text);
  assert.deepEqual(ready.json, { server: 'AdminServer', state: 'RUNNING' });
  // Only reading it goes without credentials.
  const post = await request(`${srv.origin}/appserver/ready`, { auth: null, method: 'POST', body: {}, headers: { 'x-requested-by': 'probe' } });
  errorDetails(post, 401, 'POST without credentials');
});

test('ms1 and ms2 started with a port offset answer on their own ports with their own runtime', async () => {
  for (const s of ['ms1', 'ms2']) {
    const task = await lifecycle(s, 'start');
    assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
    assert.equal(task.taskError, null);
    assert.equal(await state(s), 'RUNNING');
  }
  for (const [name, configured] of [['ms1', 7003], ['ms2', 7005]] as const) {
    const c = own(configured);
    const rt = await c.get('serverRuntime?links=none&fields=name,state,defaultURL,administrationURL,adminServer,listenPortEnabled');
    assert.equal(rt.status, 200, rt.text);
    assert.deepEqual(rt.json, {
      name,
      state: 'RUNNING',
      defaultURL: `t3://localhost:${port(configured)}`,
      administrationURL: `t3://localhost:${port(configured)}`,
      adminServer: false,
      listenPortEnabled: true,
    });
    // The links name the server's own port: a client follows them there.
    const linked = await c.get('serverRuntime?fields=name');
    assert.equal(linked.json.links.find((l: { rel: string }) => l.rel === 'self').href, `http://localhost:${port(configured)}/management/appserver/latest/serverRuntime`);
    const channels = await c.get('serverRuntime/serverChannelRuntimes?links=none&fields=name,publicURL');
    const http = channels.json.items.find((ch: { name: string }) => ch.name === 'Default[http]');
    assert.deepEqual(http, { name: 'Default[http]', publicURL: `http://localhost:${port(configured)}` });
    for (const ch of channels.json.items) assert.ok(ch.publicURL.endsWith(`:${port(configured)}`), `${ch.name} ${ch.publicURL}`);
    // The administration server reports the same effective ports.
    const fromAdmin = await srv.admin.get(`domainRuntime/serverRuntimes/${name}?links=none&fields=defaultURL`);
    assert.equal(fromAdmin.json.defaultURL, `t3://localhost:${port(configured)}`);
  }
});

test("an exporter-shaped search of each server's own serverRuntime: its applications, work managers, JMS servers", async () => {
  for (const [name, configured] of [['ms1', 7003], ['ms2', 7005]] as const) {
    const r = await own(configured).post('serverRuntime/search', EXPORTER);
    assert.equal(r.status, 200, r.text);
    const body = r.json;
    assert.equal(body.name, name);
    assert.equal(body.state, 'RUNNING');
    const apps = body.applicationRuntimes.items.map((a: { name: string }) => a.name);
    // benefits is targeted to cluster1 (both servers); inventory runs on the administration server only.
    assert.ok(apps.includes('benefits'), JSON.stringify(apps));
    assert.ok(!apps.includes('inventory'), JSON.stringify(apps));
    const benefits = body.applicationRuntimes.items.find((a: { name: string }) => a.name === 'benefits');
    assert.ok(benefits.componentRuntimes.items.length > 0, JSON.stringify(benefits));
    assert.equal(typeof body.JVMRuntime, 'object');
    assert.equal(typeof body.threadPoolRuntime, 'object');
    const jmsServers = (body.JMSRuntime?.JMSServers?.items ?? []).map((j: { name: string }) => j.name);
    // JMSServer1 is targeted to ms1 only.
    assert.deepEqual(jmsServers, name === 'ms1' ? ['JMSServer1'] : [], JSON.stringify(body.JMSRuntime));
  }
  // Non-zero figures that grow as the clock moves, read from each server's own port.
  const figures = async (configured: number) => {
    const body = (await own(configured).post('serverRuntime/search', EXPORTER)).json;
    const benefits = body.applicationRuntimes.items.find((a: { name: string }) => a.name === 'benefits');
    const servlets = benefits.componentRuntimes.items[0].servlets.items;
    return {
      uptime: body.JVMRuntime.uptime as number,
      heap: body.JVMRuntime.heapSizeCurrent as number,
      completed: body.threadPoolRuntime.completedRequestCount as number,
      invocations: servlets.reduce((n: number, x: { invocationTotalCount: number }) => n + x.invocationTotalCount, 0) as number,
      work: benefits.workManagerRuntimes.items[0].completedRequests as number,
    };
  };
  srv.advance(60_000);
  const before = { ms1: await figures(7003), ms2: await figures(7005) };
  srv.advance(5 * 60_000);
  for (const [name, configured] of [['ms1', 7003], ['ms2', 7005]] as const) {
    const was = before[name];
    const now = await figures(configured);
    assert.ok(was.heap > 0 && was.completed > 0 && was.invocations > 0 && was.work > 0, `${name}: ${JSON.stringify(was)}`);
    assert.equal(now.uptime - was.uptime, 5 * 60_000, name);
    assert.ok(now.completed > was.completed && now.invocations > was.invocations && now.work > was.work, `${name}: ${JSON.stringify(was)} -> ${JSON.stringify(now)}`);
  }
});

test("requests a managed server's own listener serves count into its thread pool, default work manager and channel", async () => {
  // Read through the administration server, whose requests are not ms1's; the clock stands still.
  const read = async () => {
    const body = (await srv.admin.post('domainRuntime/serverRuntimes/ms1/search', {
      links: [],
      fields: [],
      children: {
        threadPoolRuntime: { links: [], fields: ['completedRequestCount'] },
        workManagerRuntimes: { links: [], fields: ['name', 'completedRequests'], name: ['default'] },
        serverChannelRuntimes: { links: [], fields: ['name', 'messagesReceivedCount', 'bytesSentCount'], name: ['Default[http]'] },
      },
    })).json;
    return [body.threadPoolRuntime.completedRequestCount, body.workManagerRuntimes.items[0].completedRequests, body.serverChannelRuntimes.items[0].messagesReceivedCount, body.serverChannelRuntimes.items[0].bytesSentCount];
  };
  const was = await read();
  for (let i = 0; i < 5; i++) assert.equal((await own(7003).get('serverRuntime?links=none&fields=name')).status, 200);
  const now = await pollUntil(read, (v) => v[0] - was[0] >= 5, 'five requests counted');
  assert.deepEqual(now.slice(0, 3).map((v, i) => v - was[i]!), [5, 5, 5]);
  assert.ok(now[3]! - was[3]! >= 5 * '{"name":"ms1"}'.length, 'the bytes sent are counted');
});

test("a managed server's port asks for credentials, and serves neither the edit tree nor the domain's trees", async () => {
  const c = own(7003);
  const anonymous = await request(c.url('serverRuntime'), { auth: null });
  errorDetails(anonymous, 401, 'no credentials');
  const wrong = await request(c.url('serverRuntime'), { auth: `Basic ${Buffer.from('admin:nope').toString('base64')}` });
  errorDetails(wrong, 401, 'wrong password');
  for (const tree of ['domainRuntime', 'edit', 'domainConfig']) {
    const r = await c.get(`${tree}?links=none`);
    assert.deepEqual(errorDetails(r, 404, tree), [`'${tree}' was not found.`]);
  }
  const lifecycleTree = await request(`http://localhost:${port(7003)}/management/lifecycle/latest`, { auth: adminAuth });
  assert.equal(lifecycleTree.status, 404, lifecycleTree.text);
  const config = await c.get('serverConfig/servers/ms1?links=none&fields=name,listenPort');
  assert.deepEqual(config.json, { name: 'ms1', listenPort: 7003 }, 'serverConfig shows the configuration as it is; the offset is the process\'s');
});

test("GET /metrics on a managed server's own port: that server's figures, labelled with its name", async () => {
  const r = await request(`http://localhost:${port(7003)}/metrics`, { auth: adminAuth, headers: { accept: 'text/plain' } });
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.match(r.text, /^appserver_server_state_val\{location="ms1"\} 2$/m);
  assert.doesNotMatch(r.text, /location="(AdminServer|ms2)"/);
  assert.doesNotMatch(r.text, /^appserver_admin_/m, "the administration server's own figures are not a managed server's");
  const anonymous = await request(`http://localhost:${port(7003)}/metrics`, { auth: null, headers: { accept: 'text/plain' } });
  assert.equal(anonymous.status, 401);
});

test('/appserver/ready on a managed server: 200 while RUNNING, 503 while suspended, without credentials', async () => {
  const ready = () => request(`http://localhost:${port(7003)}/appserver/ready`, { auth: null });
  const running = await ready();
  assert.equal(running.status, 200, running.text);
  assert.deepEqual(running.json, { server: 'ms1', state: 'RUNNING' });
  assert.equal((await lifecycle('ms1', 'suspend', 300)).taskError, null);
  const suspended = await ready();
  assert.equal(suspended.status, 503, suspended.text);
  assert.deepEqual(suspended.json, { server: 'ms1', state: 'ADMIN' });
  assert.equal(suspended.headers.get('retry-after'), '5');
  assert.equal((await lifecycle('ms1', 'resume', 300)).taskError, null);
  assert.equal((await ready()).status, 200);
});

test('the port closes when the server shuts down', async () => {
  assert.equal(await refused(port(7005)), false, 'ms2 listens');
  assert.equal((await lifecycle('ms2', 'shutdown', 1000)).taskError, null);
  assert.equal(await state('ms2'), 'SHUTDOWN');
  await pollUntil(() => refused(port(7005)), (r) => r, 'ms2 port closed');
});

/** Sets ms2's listen address and activates. */
async function listenAddress(value: string): Promise<void> {
  assert.equal((await srv.admin.post('edit/changeManager/startEdit', {})).status, 200);
  assert.equal((await srv.admin.post('edit/servers/ms2', { listenAddress: value })).status, 200);
  const r = await srv.admin.post('edit/changeManager/activate', {});
  assert.equal(r.status, 200, r.text);
}

test("a listen address that is not this host's fails the start task naming it", async () => {
  try {
    for (const [address, words] of [
      ['no-such-host.invalid', `the listen address 'no-such-host.invalid' of port ${port(7005)} does not resolve to an address`],
      ['192.0.2.1', `the listen address of port ${port(7005)} is not an address of this host (192.0.2.1:${port(7005)})`],
    ] as const) {
      await listenAddress(address);
      const task = await lifecycle('ms2', 'start');
      assert.equal(task.taskStatus, 'FAILED', JSON.stringify(task));
      assert.equal(task.taskError?.message, `Server 'ms2' failed to start: ${words}`);
      assert.equal(await state('ms2'), 'FAILED');
    }
  } finally {
    await listenAddress('localhost');
  }
});

test('a port in use fails the start task with a taskError naming the port; once free, the server starts', async () => {
  const squatter = createServer();
  await new Promise<void>((resolve, reject) => {
    squatter.once('error', reject);
    squatter.listen({ port: port(7005), host: '127.0.0.1' }, resolve);
  });
  try {
    const task = await lifecycle('ms2', 'start');
    assert.equal(task.taskStatus, 'FAILED', JSON.stringify(task));
    assert.equal(task.progress, 'failed');
    const message = String(task.taskError?.message);
    assert.match(message, new RegExp(`port ${port(7005)} is already in use`), message);
    assert.match(message, /^Server 'ms2' failed to start/);
    assert.equal(await state('ms2'), 'FAILED');
    const gone = await srv.admin.get('domainRuntime/serverRuntimes/ms2');
    assert.equal(gone.status, 404, 'a failed server has no runtime');
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
  }
  const again = await lifecycle('ms2', 'start');
  assert.equal(again.taskError, null, JSON.stringify(again));
  assert.equal((await own(7005).get('serverRuntime?links=none&fields=name')).json.name, 'ms2');
});

/** Whether an HTTPS GET of ms1's serverRuntime on `p` answers (certificate not checked: it is the data directory's own). */
function httpsName(p: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`https://localhost:${p}/management/appserver/latest/serverRuntime?links=none&fields=name`, { rejectUnauthorized: false, headers: { authorization: adminAuth }, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(JSON.parse(body).name));
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
    req.end();
  });
}

/** A GET of ms1's serverRuntime on its plain port through `agent`; whether the connection was an earlier one. */
function plainGet(agent: Agent): Promise<{ name: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`http://localhost:${port(7003)}/management/appserver/latest/serverRuntime?links=none&fields=name`, { agent, headers: { authorization: adminAuth }, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ name: JSON.parse(body).name, reused: req.reusedSocket }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
    req.end();
  });
}

test('restartSSLChannels on a running server opens its SSL port, and closes it once SSL is off; the plain port stays open throughout', async () => {
  // One kept-alive connection to the plain port, used before and after: it is never dropped.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  assert.deepEqual(await plainGet(agent), { name: 'ms1', reused: false });
  const ms1 = 'domainRuntime/serverRuntimes/ms1';
  const ssl = async (enabled: boolean) => {
    assert.equal((await srv.admin.post('edit/changeManager/startEdit', {})).status, 200);
    assert.equal((await srv.admin.post('edit/servers/ms1/SSL', { enabled })).status, 200);
    assert.equal((await srv.admin.post('edit/changeManager/activate', {})).status, 200);
    const r = await srv.admin.post(`${ms1}/restartSSLChannels`, {});
    assert.equal(r.status, 200, r.text);
  };
  assert.equal(await refused(port(7002)), true);
  await ssl(true);
  const name = await pollUntil(() => httpsName(port(7002)).catch(() => ''), (n) => n === 'ms1', 'the SSL port of ms1', 20_000);
  assert.equal(name, 'ms1');
  assert.equal((await own(7003).get('serverRuntime?links=none&fields=name')).json.name, 'ms1', 'the plain port answers too');
  await ssl(false);
  await pollUntil(() => refused(port(7002)), (r) => r, 'the SSL port closed');
  assert.deepEqual(await plainGet(agent), { name: 'ms1', reused: true }, 'the plain port kept its connection');
  agent.destroy();
});

test('after a restart of the process, the servers that were running listen again', async () => {
  assert.equal(await state('ms1'), 'RUNNING');
  srv = await srv.restart();
  for (const configured of [7003, 7005]) {
    const r = await own(configured).get('serverRuntime?links=none&fields=name,state');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.state, 'RUNNING');
  }
  assert.deepEqual(srv.server.listening(), ['ms1', 'ms2']);
});
