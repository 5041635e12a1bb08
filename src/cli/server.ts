// Starting and stopping a server: open the store, load the domain, listen, say where.
import { join } from 'node:path';
import { loadCatalog } from '../catalog/load.js';
import { Domain } from '../domain/domain.js';
import type { DomainSize } from '../domain/generate.js';
import type { LifecycleTimings } from '../runtime/lifecycle.js';
import type { Scheduler } from '../runtime/scheduler.js';
import { buildApp } from '../http/app.js';
import type { UploadLimits } from '../http/deploy-requests.js';
import { RequestStats } from '../runtime/live.js';
import { openStore } from '../store/open.js';

export interface ServerOptions {
  host: string;
  port: number;
  dataDir: string;
  /** `postgres://...` to share the domain with other servers; SQLite in the data directory otherwise. */
  store?: string;
  logLevel?: string;
  /** Print the ready line and a generated password (the CLI does; embedded uses may not). */
  quiet?: boolean;
  /** First administrator of a new domain; default from APPSERVER_ADMIN_USER / APPSERVER_ADMIN_PASSWORD. */
  adminUser?: string;
  adminPassword?: string;
  /** Template of a new data directory (default: the demo domain). */
  template?: 'demo' | DomainSize;
  /** Clock of lifecycle tasks: tests pass a ManualScheduler and advance it. */
  scheduler?: Scheduler;
  timings?: Partial<LifecycleTimings>;
  /** Limits of application uploads (largest file, bytes staged at once). */
  uploads?: Partial<UploadLimits>;
}

export interface RunningServer {
  url: string;
  port: number;
  domain: Domain;
  close(): Promise<void>;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const catalog = loadCatalog();
  const store = openStore(opts.dataDir, opts.store);
  const opened = await Domain.open(catalog, store, {
    adminUser: opts.adminUser ?? process.env.APPSERVER_ADMIN_USER,
    adminPassword: opts.adminPassword ?? process.env.APPSERVER_ADMIN_PASSWORD,
    listenAddress: opts.host,
    listenPort: opts.port,
    ...(opts.template ? { template: opts.template } : {}),
    ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
    ...(opts.timings ? { timings: opts.timings } : {}),
  });
  const stats = new RequestStats();
  const level = opts.logLevel ?? 'info';
  const uploadDir = join(opts.dataDir, 'applications');
  const app = await buildApp({ catalog, domain: opened.domain, stats, uploadDir }, { logger: level === 'silent' ? false : { level }, ...(opts.uploads ? { uploads: opts.uploads } : {}) });
  app.server.on('connection', (socket) => {
    stats.openConnections++;
    socket.once('close', () => stats.openConnections--);
  });
  await app.listen({ host: opts.host, port: opts.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${port}/management/appserver/latest`;
  if (!opts.quiet) {
    const out = process.stdout;
    if (opened.generatedPassword) {
      out.write(`Created a new domain in ${opts.dataDir}. Administrator: ${opened.adminUser} / ${opened.generatedPassword} (shown only this once)\n`);
    }
    out.write(`appserver-admin listening on ${url}\n`);
  }
  return {
    url,
    port,
    domain: opened.domain,
    close: async () => {
      await app.close();
      await opened.domain.close();
    },
  };
}

/** Creates a data directory holding a generated domain (refuses one that already holds a domain). */
export async function initDataDir(dataDir: string, size: DomainSize, storeUrl?: string): Promise<{ adminUser?: string; generatedPassword?: string }> {
  const store = openStore(dataDir, storeUrl);
  await store.open();
  const exists = (await store.getMeta('created')) !== undefined;
  await store.close();
  if (exists) throw new Error(`${storeUrl ?? dataDir} already holds a domain`);
  const opened = await Domain.open(loadCatalog(), openStore(dataDir, storeUrl), {
    adminUser: process.env.APPSERVER_ADMIN_USER,
    adminPassword: process.env.APPSERVER_ADMIN_PASSWORD,
    listenAddress: '127.0.0.1',
    listenPort: 7001,
    template: size,
  });
  await opened.domain.close();
  return { ...(opened.adminUser ? { adminUser: opened.adminUser } : {}), ...(opened.generatedPassword ? { generatedPassword: opened.generatedPassword } : {}) };
}
