// Single-bean GET (`serverConfig/servers/{name}`) against a bare Fastify route that returns an
// object of the same size, printed the same way: what a read costs beyond Fastify itself.
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/cli/server.js';
import { serialize } from '../src/http/send.js';
import { load, report } from './harness.js';
import type { BenchStore } from './stores.js';

export async function benchGetBean(pipelining: number, store: BenchStore): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-'));
  const url0 = await store.fresh();
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', ...(url0 ? { store: url0 } : {}) });
  const auth = { authorization: `Basic ${Buffer.from('admin:welcome1').toString('base64')}`, accept: 'application/json' };
  const url = `http://127.0.0.1:${server.port}/management/appserver/latest/serverConfig/servers/ms1`;
  const sample = await (await fetch(url, { headers: auth })).json();

  const bare = Fastify();
  bare.get('/servers/:name', async (_req, reply) => reply.header('content-type', 'application/json').send(serialize(sample)));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareAddr = bare.server.address();
  const barePort = typeof bareAddr === 'object' && bareAddr ? bareAddr.port : 0;

  try {
    const baseline = await load('bare Fastify route', { url: `http://127.0.0.1:${barePort}/servers/ms1`, pipelining });
    const subject = await load(`GET serverConfig/servers/ms1 on ${store.label} (pipelining ${pipelining})`, { url, headers: auth, pipelining });
    return report(subject, baseline);
  } finally {
    await bare.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
