// `npm run soak`: a bounded time (SOAK_SECONDS, default 60) at high load on loopback while
// lifecycle tasks and edits run; reports throughput, errors and memory growth. Loopback only.
import autocannon from 'autocannon';
import { AUTH, benchServer } from './reads.js';
import { benchStores } from './stores.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 60);
const store = benchStores().find((s) => s.label === (process.env.SOAK_STORE ?? 'SQLite')) ?? benchStores()[0]!;
const server = await benchServer(store);
const base = server.base;
const write = { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'soak' };

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${base}/${path}`, { method: 'POST', headers: { ...write, ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

/** Lifecycle operations and edits in a loop until the load ends: partitions, servers, configuration. */
async function churn(until: number): Promise<{ operations: number; failures: number }> {
  let operations = 0;
  let failures = 0;
  const async = { prefer: 'respond-async' };
  const plc = 'domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime';
  for (let i = 0; Date.now() < until; i++) {
    const steps: [string, unknown, Record<string, string>][] = [
      [`${plc}/forceSuspend`, {}, async],
      [`${plc}/resume`, {}, async],
      [`edit/servers/ms2`, { notes: `soak ${i}` }, {}],
      [i % 2 === 0 ? 'domainRuntime/serverLifeCycleRuntimes/ms1/start' : 'domainRuntime/serverLifeCycleRuntimes/ms1/forceShutdown', {}, async],
    ];
    for (const [path, body, headers] of steps) {
      const status = await post(path, body, headers);
      operations++;
      // A transition still under way refuses the next one with 400: that is the state machine, not a failure.
      if (status >= 500) failures++;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { operations, failures };
}

const samples: number[] = [];
const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 1000);
const before = process.memoryUsage();
const until = Date.now() + seconds * 1000;
const [load, churned] = await Promise.all([
  autocannon({
    url: base,
    connections: 20,
    duration: seconds,
    headers: AUTH,
    requests: [
      { method: 'GET', path: '/management/appserver/latest/domainRuntime/serverRuntimes?links=none&fields=name,state' },
      { method: 'GET', path: '/management/appserver/latest/serverConfig/servers/ms1' },
      { method: 'POST', path: '/management/appserver/latest/serverRuntime/search', headers: write, body: JSON.stringify({ links: [], fields: ['name', 'state'], children: { JVMRuntime: { links: [], fields: ['heapSizeCurrent'] } } }) },
      { method: 'GET', path: '/management/appserver/latest/domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime/tasks?links=none' },
    ],
  }),
  churn(until),
]);
clearInterval(sampler);
global.gc?.();
const after = process.memoryUsage();
await server.close();
const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
console.log(`soak on ${store.label}, ${seconds} s, 20 connections:`);
console.log(`- throughput ${load.requests.average.toFixed(0)} req/s, ${load.requests.total} requests, p50 ${load.latency.p50} ms, p99 ${load.latency.p99} ms`);
console.log(`- errors ${load.errors}, timeouts ${load.timeouts}, non-2xx ${load.non2xx}, 5xx ${load['5xx']}`);
console.log(`- lifecycle and edit operations alongside: ${churned.operations}, server errors among them: ${churned.failures}`);
console.log(`- memory: RSS ${mib(before.rss)} -> ${mib(after.rss)} (peak ${mib(Math.max(...samples, after.rss))}), heap used ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}`);
if (load.errors > 0 || load['5xx'] > 0 || churned.failures > 0) process.exitCode = 1;
