// Searches against a bare Fastify route serving the same body (printed whole per request, the
// product's way): the exporter's query over 100 running servers at one connection, and the same
// query over a 1000-server domain with 100 running servers (about 23 MB) at four connections, with
// a single-bean GET alongside, whose latency and errors say whether the large answers starve it.
import Fastify from 'fastify';
import { serialize } from '../src/http/send.js';
import { type LoadResult, load, report } from './harness.js';
import { AUTH, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

/** What a monitoring exporter asks of every running server. */
export const EXPORTER_QUERY = {
  fields: [],
  links: [],
  children: {
    serverRuntimes: {
      fields: ['name', 'state'],
      links: [],
      children: {
        applicationRuntimes: { fields: ['name'], links: [], children: { componentRuntimes: { fields: ['name', 'deploymentState'], links: [] } } },
        threadPoolRuntime: { fields: ['completedRequestCount', 'stuckThreadCount'], links: [] },
      },
    },
  },
};

const POST = { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' };

/** A bare route answering every request with `body` printed whole. */
async function bareRoute(body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ bodyLimit: 1024 * 1024 });
  app.all('/*', async (_req, reply) => reply.header('content-type', 'application/json').send(serialize(body)));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/resource`, close: () => app.close() };
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

export async function benchSearch(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const body = JSON.stringify(EXPORTER_QUERY);

  // The exporter over 100 running servers × 20 applications, one connection.
  const hundred = await benchServer(store, { servers: 100, clusters: 10, partitions: 10, applications: 200, running: true });
  try {
    const url = `${hundred.base}/domainRuntime/search`;
    const sample = await (await fetch(url, { method: 'POST', headers: POST, body })).json();
    const bare = await bareRoute(sample);
    try {
      const base = await load('bare Fastify route', { url: bare.url, method: 'POST', headers: POST, body, connections: 1 });
      const subject = await load(`POST domainRuntime/search, 100 running servers on ${store.label} (1 connection)`, { url, method: 'POST', headers: POST, body, connections: 1 });
      lines.push(report(subject, base, 'exporter search, 100 running servers × 20 apps, 1 connection', store.label));
    } finally {
      await bare.close();
    }
  } finally {
    await hundred.close();
  }

  // The same query over 1000 servers (100 running) and 5000 applications, four connections, with a
  // single-bean GET at one connection alongside.
  const big = await benchServer(store, { servers: 1000, clusters: 10, partitions: 200, applications: 5000, running: 100 });
  try {
    const url = `${big.base}/domainRuntime/search`;
    const bytes = (await (await fetch(url, { method: 'POST', headers: POST, body })).arrayBuffer()).byteLength;
    // Long enough for several searches per connection; a search may take a while on a busy machine.
    const seconds = Math.max(20, 3 * Number(process.env.BENCH_SECONDS ?? 5));
    const heavy = { method: 'POST' as const, headers: POST, body, connections: 4, workers: 1, durationSeconds: seconds, timeoutSeconds: 60 };
    const idle = Math.round(process.memoryUsage().rss / 1048576);
    const get = { url: `${big.base}/serverConfig/servers/ms1`, headers: AUTH, connections: 1, workers: 1, durationSeconds: seconds };
    const alone = await load('GET serverConfig/servers/ms1 alone', get);
    const [searches, during] = await Promise.all([
      load(`POST domainRuntime/search (${mib(bytes)}) on ${store.label} (4 connections)`, { url, ...heavy }),
      load('GET serverConfig/servers/ms1 alongside', get),
    ]);
    lines.push(report(during, alone, `GET ms1 while four ${mib(bytes)} searches stream (1000 servers, 100 running)`, store.label));
    const sample = await (await fetch(url, { method: 'POST', headers: POST, body })).json();
    const bare = await bareRoute(sample);
    let base: LoadResult;
    try {
      base = await load('bare Fastify route', { url: bare.url, ...heavy });
    } finally {
      await bare.close();
    }
    lines.push(report(searches, base, `search of ${mib(bytes)} (1000 servers, 100 running), 4 connections (RSS ${idle} MiB idle before)`, store.label));
  } finally {
    await big.close();
  }
  return lines;
}
