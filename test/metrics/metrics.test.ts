// GET /metrics: the Prometheus text of the server's runtime figures, named and labelled as the
// monitoring exporter names them, and the administration server's own figures; read with the
// caller's rights; the servers of the domain by a `server` parameter.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import { AdminMetrics } from '../../src/metrics/admin.js';
import { ASYNC, type RuntimeServer, basic, createUser, startRuntimeServer } from '../support/runtime-server.js';

let rt: RuntimeServer;

before(async () => {
  rt = await startRuntimeServer();
});

after(async () => {
  await rt?.stop(true);
});

interface Scrape {
  status: number;
  type: string | null;
  text: string;
  /** Samples by name and label text: `name{a="b"}` → value. */
  samples: Map<string, number>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/;

async function scrape(query = '', auth = basic('admin', 'welcome1'), accept = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'): Promise<Scrape> {
  const res = await fetch(`${rt.origin}/metrics${query}`, { headers: { authorization: auth, accept } });
  const text = await res.text();
  const samples = new Map<string, number>();
  if (res.status === 200) {
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
      const m = SAMPLE.exec(line);
      assert.ok(m, `a line of the exposition format: ${JSON.stringify(line)}`);
      samples.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
    }
  }
  return { status: res.status, type: res.headers.get('content-type'), text, samples };
}

function value(s: Scrape, series: string): number {
  const v = s.samples.get(series);
  assert.ok(v !== undefined, `series ${series} is missing; there are ${[...s.samples.keys()].filter((k) => k.startsWith(series.split('{')[0]!)).join(', ') || 'none of that name'}`);
  return v;
}

// Runs first: the figures' library is loaded at the first scrape, and what came before it counts.
test('requests and activations answered before the first scrape are counted by it, in the Prometheus text type', async () => {
  for (let i = 0; i < 3; i++) assert.equal((await rt.admin.get('domainConfig/nosuchChild')).status, 404);
  assert.equal((await rt.admin.post('edit/changeManager/startEdit', {})).status, 200);
  assert.equal((await rt.admin.post('edit/servers/ms1', { notes: 'before the first scrape' })).status, 200);
  assert.equal((await rt.admin.post('edit/changeManager/activate', {})).status, 200);
  const first = await scrape();
  assert.equal(first.status, 200, first.text.slice(0, 300));
  assert.equal(first.type, new Registry().contentType);
  assert.equal(value(first, 'appserver_admin_requests_total{tree="domainConfig",method="GET",status="404"}'), 3);
  assert.equal(value(first, 'appserver_admin_request_duration_seconds_count{tree="domainConfig"}') >= 3, true);
  assert.equal(value(first, 'appserver_admin_activations_total') >= 1, true);
  const second = await scrape();
  assert.equal(value(second, 'appserver_admin_requests_total{tree="domainConfig",method="GET",status="404"}'), 3, 'counted once');
});

test('requests waiting for the figures beyond the bound load them; none is lost', async () => {
  const metrics = new AdminMetrics({ tasks: () => [], editLocksHeld: () => 0, runningServers: () => 0 });
  for (let i = 0; i < 5000; i++) metrics.observeRequest('serverConfig', 'GET', 200, 0.002);
  metrics.activated();
  const text = await (await metrics.registry()).metrics();
  assert.match(text, /^appserver_admin_requests_total\{tree="serverConfig",method="GET",status="200"\} 5000$/m);
  assert.match(text, /^appserver_admin_request_duration_seconds_bucket\{le="0.0025",tree="serverConfig"\} 5000$/m);
  assert.match(text, /^appserver_admin_activations_total 1$/m);
});

test("the administration server's runtime figures, named after the exporter's conventions", async () => {
  const s = await scrape();
  assert.equal(s.status, 200, s.text.slice(0, 300));
  assert.match(s.type ?? '', /^text\/plain; version=0\.0\.4/);
  assert.equal(value(s, 'appserver_server_state_val{location="AdminServer"}'), 2, 'RUNNING is 2');
  assert.ok(value(s, 'appserver_jvm_heap_size_current{location="AdminServer",name="AdminServer"}') > 0);
  assert.ok(value(s, 'appserver_threadpool_execute_thread_total_count{location="AdminServer",name="AdminServer"}') > 0);
  assert.equal(value(s, 'appserver_webapp_config_deployment_state{location="AdminServer",app="inventory",name="AdminServer_/inventory"}'), 2);
  // Every series of one name has the same kind of labels, and nothing carries a brand word.
  assert.doesNotMatch(s.text, /weblogic|wls_|oracle/i);
});

test('plain text is an acceptable answer even to a client that does not take JSON', async () => {
  const s = await scrape('', basic('admin', 'welcome1'), 'text/plain');
  assert.equal(s.status, 200, s.text.slice(0, 300));
});

test("the server's own figures move: requests, activations, edit locks, tasks", async () => {
  const before = await scrape();
  const requests = (s: Scrape) => [...s.samples].filter(([k]) => k.startsWith('appserver_admin_requests_total{tree="serverConfig"')).reduce((n, [, v]) => n + v, 0);
  for (let i = 0; i < 3; i++) assert.equal((await rt.admin.get('serverConfig/servers/ms1?links=none')).status, 200);
  assert.equal((await rt.admin.get('serverConfig/servers/nosuch')).status, 404);
  assert.equal((await rt.admin.post('edit/changeManager/startEdit', {})).status, 200);
  const locked = await scrape();
  assert.equal(requests(locked) - requests(before), 4, 'four reads of serverConfig counted');
  assert.equal(value(locked, 'appserver_admin_requests_total{tree="serverConfig",method="GET",status="404"}') >= 1, true);
  assert.equal(value(locked, 'appserver_admin_edit_locks_held'), 1);
  assert.ok(value(locked, 'appserver_admin_request_duration_seconds_count{tree="serverConfig"}') >= 4);

  assert.equal((await rt.admin.post('edit/servers/ms1', { notes: 'scraped' })).status, 200);
  assert.equal((await rt.admin.post('edit/changeManager/activate', {})).status, 200);
  const activated = await scrape();
  assert.equal(value(activated, 'appserver_admin_activations_total') - value(before, 'appserver_admin_activations_total'), 1);
  assert.equal(value(activated, 'appserver_admin_edit_locks_held'), 0);

  const start = await rt.admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, ASYNC);
  assert.equal(start.status, 202, start.text);
  const starting = await scrape();
  assert.equal(value(starting, 'appserver_admin_tasks{state="running"}'), value(before, 'appserver_admin_tasks{state="running"}') + 1);
  rt.advance(120_000);
  const started = await scrape();
  assert.equal(value(started, 'appserver_admin_tasks{state="running"}'), value(before, 'appserver_admin_tasks{state="running"}'));
  assert.equal(value(started, 'appserver_admin_running_servers'), value(before, 'appserver_admin_running_servers') + 1);
});

test('other servers by the server parameter: one, several, or every running one', async () => {
  const ms1 = await scrape('?server=ms1');
  assert.equal(ms1.status, 200, ms1.text.slice(0, 300));
  assert.equal(value(ms1, 'appserver_server_state_val{location="ms1"}'), 2);
  assert.ok(![...ms1.samples.keys()].some((k) => k.includes('location="AdminServer"')), 'only ms1');
  const all = await scrape('?server=*');
  assert.equal(value(all, 'appserver_server_state_val{location="ms1"}'), 2);
  assert.equal(value(all, 'appserver_server_state_val{location="AdminServer"}'), 2);
  // A server that does not run has no runtime figures: nothing of it, and no error.
  const down = await scrape('?server=ms2');
  assert.equal(down.status, 200);
  assert.ok(![...down.samples.keys()].some((k) => k.includes('location="ms2"')));
  const bad = await scrape(`?server=${'x'.repeat(2000)}`);
  assert.equal(bad.status, 400);
  assert.match(bad.text, /'server'/);
});

test('a Monitor may scrape; an anonymous client may not', async () => {
  const auth = await createUser(rt.admin, 'scraper', 'Scraper-pass-1', 'Monitors');
  const s = await scrape('', auth);
  assert.equal(s.status, 200, s.text.slice(0, 300));
  const anonymous = await fetch(`${rt.origin}/metrics`);
  assert.equal(anonymous.status, 401);
});

test('every series the example Grafana dashboard plots is exported', async () => {
  // ms1 runs a web module (servlets), a queue on JMSServer1 and a data source.
  const post = async (path: string, body: unknown) => {
    const r = await rt.admin.post(path, body);
    assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.text}`);
  };
  await post('edit/changeManager/startEdit', {});
  await post('edit/JMSSystemResources', { name: 'scraped', targets: [{ identity: ['servers', 'ms1'] }] });
  await post('edit/JMSSystemResources/scraped/subDeployments', { name: 'sd', targets: [{ identity: ['JMSServers', 'JMSServer1'] }] });
  await post('edit/JMSSystemResources/scraped/JMSResource/queues', { name: 'ScrapedQueue', subDeploymentName: 'sd' });
  await post('edit/JDBCSystemResources', { name: 'scrapedDS', targets: [{ identity: ['servers', 'ms1'] }] });
  await post('edit/changeManager/activate', {});
  const state = (await rt.admin.get('domainRuntime/serverLifeCycleRuntimes/ms1?links=none&fields=state')).json.state;
  if (state !== 'RUNNING') {
    assert.equal((await rt.admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, ASYNC)).status, 202);
    rt.advance(120_000);
  }
  rt.advance(60_000);
  const dashboard = readFileSync(new URL('../../../examples/grafana-dashboard.json', import.meta.url), 'utf8');
  const plotted = new Set([...dashboard.matchAll(/appserver_[a-z_]+/g)].map((m) => m[0].replace(/_bucket$/, '')));
  const s = await scrape('?server=*');
  const exported = new Set([...s.samples.keys()].map((k) => k.split('{')[0]!.replace(/_bucket$|_count$|_sum$/, '')));
  for (const name of [...s.text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!)) exported.add(name);
  const missing = [...plotted].filter((n) => !exported.has(n));
  assert.deepEqual(missing, [], 'series the dashboard plots but nothing exports');
  // The managed server's own figures move: its channels, servlets and queue.
  assert.ok(value(s, 'appserver_channel_messages_received_count{location="ms1",channelName="Default[http]"}') > 0);
  assert.ok(value(s, 'appserver_servlet_invocation_total_count{location="ms1",app="benefits",name="ms1_/benefits",servletName="FileServlet"}') > 0);
  assert.ok(value(s, 'appserver_jms_dest_messages_received_count{location="ms1",jmsruntime="ms1",jmsserver="JMSServer1",destination="scraped!ScrapedQueue"}') > 0);
});
