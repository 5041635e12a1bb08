// Reads against a bare Fastify route that returns an object of the same size, printed the same way:
// what a read costs beyond Fastify itself. Every request carries basic credentials.
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, type ServerOptions, initDataDir, startServer } from '../src/cli/server.js';
import type { DomainSize } from '../src/domain/generate.js';
import { serialize } from '../src/http/send.js';
import { load, report } from './harness.js';
import type { BenchStore } from './stores.js';

export const AUTH = { authorization: `Basic ${Buffer.from('admin:welcome1').toString('base64')}`, accept: 'application/json' };

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

export interface BenchServer {
  server: RunningServer;
  base: string;
  close(): Promise<void>;
}

/** A server on a fresh data directory (and store), with the demo domain or a generated one. */
export async function benchServer(store: BenchStore, size?: DomainSize, extra: Partial<ServerOptions> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-'));
  const url = await store.fresh();
  process.env.APPSERVER_ADMIN_USER = 'admin';
  process.env.APPSERVER_ADMIN_PASSWORD = 'welcome1';
  if (size) await initDataDir(dataDir, size, url);
  const server = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', ...(url ? { store: url } : {}), ...extra });
  return {
    server,
    base: `http://127.0.0.1:${server.port}/management/appserver/latest`,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare Fastify server answering every path with `body`, printed per request the same way. */
export async function bare(body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify();
  app.all('/*', async (_req, reply) => reply.header('content-type', 'application/json').send(serialize(body)));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/resource`, close: () => app.close() };
}

/** Compares one request shape against the bare route that returns its answer. */
async function compare(benchmark: string, store: BenchStore, url: string, pipelining: number, post?: unknown): Promise<string> {
  const init = post === undefined ? { headers: AUTH } : { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' }, body: JSON.stringify(post) };
  const sample = await (await fetch(url, init)).json();
  const baseline = await bare(sample);
  try {
    const options = post === undefined ? { headers: AUTH } : { method: 'POST' as const, headers: init.headers as Record<string, string>, body: JSON.stringify(post) };
    const base = await load('bare Fastify route', { url: baseline.url, pipelining, ...options });
    const subject = await load(`${benchmark} on ${store.label} (pipelining ${pipelining})`, { url, pipelining, ...options });
    return report(subject, base, `${benchmark}, pipelining ${pipelining}`, store.label);
  } finally {
    await baseline.close();
  }
}

export async function benchReads(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const demo = await benchServer(store);
  try {
    for (const p of [1, 10]) lines.push(await compare('GET serverConfig/servers/ms1', store, `${demo.base}/serverConfig/servers/ms1`, p));
    lines.push(await compare('GET serverConfig/servers (collection)', store, `${demo.base}/serverConfig/servers`, 1));
  } finally {
    await demo.close();
  }
  // A monitoring exporter's query on 100 running servers with 20 applications each.
  const big = await benchServer(store, { servers: 100, clusters: 10, partitions: 10, applications: 200, running: true });
  try {
    lines.push(await compare('POST domainRuntime/search (100 servers x 20 apps)', store, `${big.base}/domainRuntime/search`, 1, EXPORTER_QUERY));
  } finally {
    await big.close();
  }
  return lines;
}

/** An asynchronous lifecycle operation answered at once (respond-async): a task made, kept, rendered. */
export async function benchLifecycle(store: BenchStore): Promise<string> {
  const demo = await benchServer(store);
  try {
    const url = `${demo.base}/domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime/start`;
    const headers = { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench', prefer: 'respond-async' };
    const sample = await (await fetch(url, { method: 'POST', headers, body: '{}' })).json();
    const baseline = await bare(sample);
    try {
      const base = await load('bare Fastify route', { url: baseline.url, method: 'POST', headers, body: '{}' });
      const subject = await load(`POST partitionLifeCycleRuntime/start (respond-async) on ${store.label}`, { url, method: 'POST', headers, body: '{}' });
      return report(subject, base, 'async lifecycle operation (task)', store.label);
    } finally {
      await baseline.close();
    }
  } finally {
    await demo.close();
  }
}
