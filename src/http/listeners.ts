// A managed server's own listeners: on each of its ports, the same application as the
// administration server's (authentication, roles, body limits, errors, /metrics, /appserver/ready)
// over the management interface as that server serves it (`api.forServer`). Plain HTTP on the
// listen port, HTTPS with the process's certificate on the SSL and administration ports; while the
// administration port is open, the other two refuse management requests.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ManagementApi } from '../api/management-api.js';
import type { RequestStats } from '../api/caller.js';
import { type AppOptions, buildApp } from './app.js';
import type { ManagedConnections } from './connections.js';

/** Where one managed server listens (as the runtime computes it). */
export interface ListenSpec {
  server: string;
  /** The address to bind (`0.0.0.0` for every interface). */
  bindAddress: string;
  endpoints: readonly { kind: string; protocol: 'http' | 'https'; port: number }[];
}

export interface ServerListenerOptions {
  /** The management interface of the whole domain; each server gets its own view of it. */
  api: ManagementApi;
  /** Request counters of the server (its own, not the administration server's). */
  stats: RequestStats;
  /** Where uploads would be staged (a managed server takes none: its edit tree does not exist). */
  uploadDir: string;
  /** Told of every request the server answered, with the bytes received and sent. */
  served: (bytesReceived: number, bytesSent: number) => void;
  /** The key and certificate of HTTPS ports, made when first needed. */
  certificate: () => Promise<{ key: string; cert: string }>;
  logger?: FastifyBaseLogger;
  trustProxy?: readonly string[];
  maxEventLoopDelay?: number;
  /** The caps and idle timeout of the managed listeners' connections (shared by all of them). */
  connections?: ManagedConnections;
  /** In-flight limit, shares and body progress (as the administration port's). */
  requests?: Pick<AppOptions, 'maxInFlight' | 'shares' | 'bodyProgress'>;
  /** Milliseconds each request waits before it is handled (a slow server, injected through the control interface). */
  latency?: () => number;
  /**
   * The address of the server's administration port while its administration channel is open:
   * its other ports then refuse management requests (see AppOptions.managementElsewhere).
   */
  managementElsewhere?: () => string | undefined;
}

/** Waits `ms` of real time, less if the client goes away first. */
function delay(ms: number, response: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      response.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    response.once('close', done);
  });
}

/** How long a listen address's name may take to resolve. */
const LOOKUP_MS = 10_000;

/** The address to bind: an IP address as it is, a host name resolved (within LOOKUP_MS). */
async function resolveAddress(address: string, port: number): Promise<string> {
  if (isIP(address) !== 0) return address;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the listen address '${address}' of port ${port} did not resolve within ${LOOKUP_MS / 1000} s`)), LOOKUP_MS);
  });
  try {
    return (await Promise.race([lookup(address), late])).address;
  } catch (err) {
    if ((err as { code?: unknown }).code !== undefined) throw bindFailure(err, address, port);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Why a port could not be bound, in words naming it. */
function bindFailure(err: unknown, address: string, port: number): Error {
  const code = (err as { code?: unknown }).code;
  const where = `${address}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new Error(`port ${port} is already in use (${where}); stop what uses it, or start the process with another --port-offset`);
    case 'EACCES':
      return new Error(`port ${port} may not be opened by this process (${where}): ports below 1024 need privileges`);
    case 'EADDRNOTAVAIL':
      return new Error(`the listen address of port ${port} is not an address of this host (${where})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ENODATA':
      return new Error(`the listen address '${address}' of port ${port} does not resolve to an address`);
    default:
      return new Error(`port ${port} could not be opened (${where}): ${(err as Error).message}`);
  }
}

/** How long a server that shuts down waits for the requests in progress on its ports to be answered (real ms). */
const DRAIN_MS = 5000;

/** Resolves once no request is in progress on `app` (counted by `inFlight`), or after DRAIN_MS. */
function drained(inFlight: { count: number; idle: (() => void)[] }): Promise<void> {
  if (inFlight.count === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, DRAIN_MS);
    inFlight.idle.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Opens every port of `spec`; if one fails, those already open are closed again and the failure
 * names the port. Closing with `drain` answers the requests in progress first (a server that shuts
 * down answers the request that shut it down); without it every connection drops at once (a crash).
 */
export async function openServerListeners(spec: ListenSpec, opts: ServerListenerOptions): Promise<{ close(drain?: boolean): Promise<void> }> {
  const api = opts.api.forServer(spec.server);
  const apps: { app: FastifyInstance; inFlight: { count: number; idle: (() => void)[] } }[] = [];
  const closeAll = async (drain = false) => {
    const closing = apps.splice(0);
    if (drain) await Promise.all(closing.map((a) => drained(a.inFlight)));
    for (const { app } of closing) await app.close().catch(() => undefined);
  };
  try {
    const first = spec.endpoints[0];
    const host = first ? await resolveAddress(spec.bindAddress, first.port) : spec.bindAddress;
    for (const endpoint of spec.endpoints) {
      if (!Number.isInteger(endpoint.port) || endpoint.port < 1 || endpoint.port > 65535) {
        throw new Error(`port ${endpoint.port} is not a port (1 to 65535); check the server's ports and the --port-offset`);
      }
      const https = endpoint.protocol === 'https' ? await opts.certificate() : undefined;
      const app = await buildApp(
        { api, stats: opts.stats, uploadDir: opts.uploadDir, served: opts.served },
        {
          ...(opts.logger ? { logger: opts.logger } : {}),
          ...(opts.trustProxy ? { trustProxy: opts.trustProxy } : {}),
          ...(opts.maxEventLoopDelay !== undefined ? { maxEventLoopDelay: opts.maxEventLoopDelay } : {}),
          ...(https ? { https } : {}),
          ...(endpoint.kind !== 'administration' && opts.managementElsewhere ? { managementElsewhere: opts.managementElsewhere } : {}),
          ...opts.requests,
          // A server that stops, fails or is killed drops its connections with it.
          forceClose: true,
        },
      );
      const inFlight = { count: 0, idle: [] as (() => void)[] };
      apps.push({ app, inFlight });
      opts.connections?.attach(app.server);
      // Requests in progress, for a shutdown that answers them before its ports close.
      app.server.on('request', (_req, res) => {
        inFlight.count++;
        res.once('close', () => {
          if (--inFlight.count === 0) for (const wake of inFlight.idle.splice(0)) wake();
        });
      });
      const latency = opts.latency;
      if (latency) {
        app.addHook('onRequest', async (_request, reply) => {
          const ms = latency();
          if (ms > 0) await delay(ms, reply.raw);
        });
      }
      try {
        await app.listen({ host, port: endpoint.port });
      } catch (err) {
        throw bindFailure(err, spec.bindAddress, endpoint.port);
      }
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { close: closeAll };
}
