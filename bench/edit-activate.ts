// Edit cycles: startEdit, 10 changes, activate, repeated; on the demo domain and on a generated
// domain of 1,000 servers and 5,000 applications, 100 of its servers running. An activation should cost what its change costs, not what the domain
// weighs: the two cycle times should be close. A bare Fastify route answering the same 12
// requests per cycle is the baseline measured in the same run.
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDataDir, startServer } from '../src/cli/server.js';
import type { DomainSize } from '../src/domain/generate.js';
import { BIG } from './topology.js';
import { rows } from './harness.js';
import type { BenchStore } from './stores.js';

const HEADERS = {
  authorization: `Basic ${Buffer.from('admin:welcome1').toString('base64')}`,
  'content-type': 'application/json',
  'x-requested-by': 'bench',
};

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${url}: ${res.status}`);
}

/** Mean milliseconds of one cycle of 12 requests against `base` (management root of a version). */
export async function cycles(base: string, servers: string[], count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let c = 0; c < count; c++) {
    await post(`${base}/edit/changeManager/startEdit`, {});
    for (let i = 0; i < 10; i++) await post(`${base}/edit/servers/${servers[(c * 10 + i) % servers.length]}`, { notes: `cycle ${c} change ${i}` });
    await post(`${base}/edit/changeManager/activate`, {});
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / count;
}

async function measure(label: string, size: DomainSize | 'demo', count: number, store: BenchStore): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-'));
  try {
    process.env.APPSERVER_ADMIN_USER = 'admin';
    process.env.APPSERVER_ADMIN_PASSWORD = 'welcome1';
    const url = await store.fresh();
    if (size !== 'demo') await initDataDir(dataDir, size, url);
    const server = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', ...(url ? { store: url } : {}) });
    const servers = size === 'demo' ? ['ms1', 'ms2', 'AdminServer'] : Array.from({ length: 50 }, (_, i) => `ms${i}`);
    const base = `http://127.0.0.1:${server.port}/management/appserver/latest`;
    await cycles(base, servers, 3);
    const ms = await cycles(base, servers, count);
    await server.close();
    console.log(`${label} on ${store.label}: ${ms.toFixed(2)} ms per cycle (startEdit + 10 changes + activate)`);
    return ms;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function baseline(count: number): Promise<number> {
  const app = Fastify();
  app.post('/*', async (_req, reply) => reply.header('content-type', 'application/json').send('{}'));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}/management/appserver/latest`;
  await cycles(base, ['a'], 3);
  const ms = await cycles(base, ['a'], count);
  await app.close();
  console.log(`bare Fastify, same 12 requests: ${ms.toFixed(2)} ms per cycle`);
  return ms;
}

export async function benchEditActivate(store: BenchStore): Promise<string> {
  const count = Number(process.env.BENCH_CYCLES ?? 50);
  const bare = await baseline(count);
  const demo = await measure('demo domain', 'demo', count, store);
  const big = await measure(`generated domain (${BIG.servers} servers, ${BIG.applications} applications, ${BIG.running} running)`, BIG, count, store);
  const line =
    `edit cycle on ${store.label}: demo ${demo.toFixed(2)} ms, 1,000-server domain ${big.toFixed(2)} ms ` +
    `(ratio ${(big / demo).toFixed(2)}), bare Fastify ${bare.toFixed(2)} ms (demo / bare ${(demo / bare).toFixed(2)})`;
  console.log(line);
  rows.push({
    benchmark: 'edit cycle (startEdit, 10 changes, activate): demo / 1,000 servers (100 running)',
    store: store.label,
    subject: `${demo.toFixed(1)} / ${big.toFixed(1)} ms per cycle`,
    baseline: `${bare.toFixed(1)} ms per cycle`,
    ratio: `${(big / demo).toFixed(2)} (1,000 servers / demo)`,
    latency: '-',
    peakRss: '-',
  });
  return line;
}
