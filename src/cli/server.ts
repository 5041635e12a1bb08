// Starting and stopping a server: open the store, load the domain, listen, say where.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { catalogWithOperations } from '../operations/catalog.js';
import { openDomain } from '../domain/bootstrap.js';
import type { SessionLimits } from '../config/config-service.js';
import type { Domain } from '../domain/domain.js';
import type { DomainSize } from '../domain/generate.js';
import type { Secrets } from '../config/secrets.js';
import type { BeanTree } from '../tree/records.js';
import type { LifecycleTimings } from '../runtime/lifecycle.js';
import { ControlledScheduler, type Scheduler, clockControlOf } from '../core/clock.js';
import type { Control } from '../control/control.js';
import { type ApiDependencies, composeApi } from '../api/compose.js';
import type { WatchApi } from '../api/watch-api.js';
import type { BackupApi } from '../api/backup-api.js';
import type { ManagementApi } from '../api/management-api.js';
import type { AdminMetrics } from '../metrics/admin.js';
import { type AppOptions, buildApp } from '../http/app.js';
import { parseTrustedProxies } from '../http/origin.js';
import type { UploadLimits } from '../http/deploy-requests.js';
import { RequestStats } from '../runtime/live.js';
import type { Logger } from 'pino';
import { type LogFormat, makeLogger } from './logging.js';
import { openStore } from '../store/open.js';
import { ServerListeners } from '../runtime/listeners.js';
import type { ServerEndpoints } from '../runtime/endpoints.js';
import { aliveSince } from '../domain/coordinator.js';
import { openServerListeners } from '../http/listeners.js';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS, ManagedConnections } from '../http/connections.js';
import { boundedBindAddress, endpointOf } from '../runtime/endpoints.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import { type Certificate, certificateSource } from './certificates.js';
import { AdminPortListener } from './admin-port.js';
import { givenKey } from '../config/secret-key.js';
import { permissionWarnings, prepareDataDir, secretKeySource, writePasswordFile } from './data-dir.js';

export interface ServerOptions {
  host: string;
  port: number;
  dataDir: string;
  /** `postgres://...` to share the domain with other servers; SQLite in the data directory otherwise. */
  store?: string;
  /**
   * PostgreSQL store: how long one statement may run before the database cancels it and the request
   * that needed it answers 503 with Retry-After (ms; 0: no bound; default 30 000).
   */
  storeStatementTimeoutMs?: number;
  logLevel?: string;
  /** `json` lines (the default) or `pretty` lines for people. */
  logFormat?: LogFormat;
  /** Print the ready line, warnings, and where a generated password is (the CLI does; embedded uses may not). */
  quiet?: boolean;
  /** First administrator of a new domain; default from APPSERVER_ADMIN_USER / APPSERVER_ADMIN_PASSWORD. */
  adminUser?: string;
  adminPassword?: string;
  /** Template of a new data directory (default: the demo domain). */
  template?: 'demo' | DomainSize;
  /** The product version of a domain this start creates (default: DEFAULT_PRODUCT_VERSION); an existing domain keeps its own. */
  productVersion?: string;
  /** Addresses and CIDR ranges of proxies whose X-Forwarded-Proto/-Host are believed (default: none). */
  trustProxy?: readonly string[];
  /** Clock of lifecycle tasks: tests pass a ManualScheduler and advance it. */
  scheduler?: Scheduler;
  timings?: Partial<LifecycleTimings>;
  /** The key of sealed values, base64 of 32 bytes (default: APPSERVER_SECRET_KEY, else the key file). */
  secretKey?: string;
  /** The key file (default `<dataDir>/secret.key`). */
  secretKeyFile?: string;
  /**
   * Where a generated administrator password goes: the terminal (the default when standard output
   * is one and the server is not quiet) or a file of the data directory, mode 0600 (otherwise).
   */
  passwordOutput?: 'terminal' | 'file';
  /** Limits of application uploads (largest file, bytes staged at once). */
  uploads?: Partial<UploadLimits>;
  /** Event-loop delay (ms) beyond which new requests get 503 (default 1000). */
  maxEventLoopDelay?: number;
  /**
   * Requests in flight (default 1000), the parts of it one user and one address may hold, and when a
   * body that stops arriving is cut; the same on every listener of the process.
   */
  requests?: Pick<AppOptions, 'maxInFlight' | 'shares' | 'bodyProgress'>;
  /** Limits of watches (watchers, heartbeat, unread bytes, poll) and the journal's window. */
  watch?: ApiDependencies['watch'];
  /** Bounds of the read cache (default: 64 MiB in all, 8 MiB per answer; `maxBytes: 0` keeps nothing). */
  readCache?: ApiDependencies['readCache'];
  /** Caps and idle expiry of named edit sessions (`--max-edit-sessions`, `--max-edit-sessions-per-user`, `--edit-session-idle`). */
  sessionLimits?: Partial<SessionLimits>;
  /** How long audit records are kept, in ms (`--audit-retention`; default 90 days; 0: for ever). */
  auditRetentionMs?: number;
  /**
   * Whether running managed servers listen on their own ports (default true). Tests turn this off
   * unless they give a port offset, so that test runs do not fight over the ports 7003, 7005...
   */
  listeners?: boolean;
  /** Added to every managed server's ports (`--port-offset`; default 0). */
  portOffset?: number;
  /**
   * The widest address managed servers' listeners bind (`--managed-host`; default `host`): a server
   * with no listen address (or 0.0.0.0, ::) binds this one; a specific listen address is bound as set.
   */
  managedHost?: string;
  /** Connections per managed listener, descriptors kept for the administration port, idle timeout (ms). */
  managedConnections?: Partial<ConnectionLimits>;
  /**
   * How long `close` lets requests in flight finish before it cuts their connections (ms; default
   * 20 000). New connections are refused from the start of the stop, new requests on open ones get 503.
   */
  stopTimeoutMs?: number;
  /** How often servers sharing a store look for listeners a stopped server left (ms; default 5000). */
  leaseCheckMs?: number;
  /**
   * Serve the control interface (faults, clock, snapshots, journal) at /management/appserver-control
   * (default: APPSERVER_CONTROL=1). Its clock can then be frozen and advanced, unless `scheduler` is given.
   */
  control?: boolean;
}

/** Whether the control interface is served: the option, else APPSERVER_CONTROL=1 (or `true`). */
export function controlEnabled(opts: { control?: boolean }): boolean {
  if (opts.control !== undefined) return opts.control;
  const env = process.env.APPSERVER_CONTROL?.trim().toLowerCase();
  return env === '1' || env === 'true';
}

export interface RunningServer {
  url: string;
  port: number;
  domain: Domain;
  /** The management interface the server serves, to call in-process. */
  api: ManagementApi;
  /** What the server found wrong at start-up without stopping (printed unless quiet). */
  warnings: string[];
  /** The control interface, when served. */
  control?: Control;
  /** Managed servers whose listeners this process has open. */
  listening(): string[];
  close(): Promise<void>;
}

/** Shows a generated administrator password on the terminal, or writes it to a file and shows its path. */
function passwordReveal(dataDir: string, output: 'terminal' | 'file'): { reveal: (user: string, password: string) => void; message: () => string | undefined; where: () => string | undefined } {
  let message: string | undefined;
  let where: string | undefined;
  return {
    reveal: (user, password) => {
      if (output === 'terminal') {
        message = `Administrator: ${user} / ${password} (shown only this once)`;
        where = 'the password shown above';
        return;
      }
      const file = writePasswordFile(dataDir, password);
      message = `Administrator: ${user}; its generated password is in the file ${file} (mode 0600): read it, then delete the file.`;
      where = `the password in ${file}`;
    },
    message: () => message,
    where: () => where,
  };
}

/** How to sign in, for the start-up lines: the new domain's first administrator, or any user of an existing one. */
function signInHint(created: boolean, user: string | undefined, generated: string | undefined, fromEnvironment: boolean): string {
  if (!created || user === undefined) return 'sign in with a user of the domain';
  if (generated !== undefined) return `sign in as ${user} with ${generated}`;
  return `sign in as ${user} with the password given${fromEnvironment ? ' in APPSERVER_ADMIN_PASSWORD' : ''}`;
}

function passwordOutput(opts: { quiet?: boolean; passwordOutput?: 'terminal' | 'file' }): 'terminal' | 'file' {
  if (opts.passwordOutput) return opts.passwordOutput;
  return !opts.quiet && process.stdout.isTTY ? 'terminal' : 'file';
}

/** A domain and its management interface, open in this process (no HTTP). */
export interface OpenManagement {
  domain: Domain;
  api: ManagementApi;
  /** Request counters an HTTP adapter feeds. */
  stats: RequestStats;
  /** The server's own figures, for /metrics. */
  metrics: AdminMetrics;
  /** Watches of the domain's changes. */
  watch: WatchApi;
  /** Backups taken while the server runs. */
  backup: BackupApi;
  /** What was found wrong at start-up without stopping. */
  warnings: string[];
  /** The control interface, when enabled. */
  control?: Control;
  /** How a generated administrator password was given out, if one was. */
  passwordMessage(): string | undefined;
  /** How to sign in (to the console, or any client), in a few words. */
  signIn: string;
  close(): Promise<void>;
}

/**
 * Opens the domain of a data directory (creating it from its template where none exists) with its
 * management interface, for use in this process: what `serve` runs before it listens.
 */
export async function openManagement(opts: ServerOptions, logger?: Logger): Promise<OpenManagement> {
  const log = logger ?? makeLogger(opts.logLevel ?? 'info', opts.logFormat ?? 'json');
  const warnings: string[] = [];
  // A malformed key stops the start before anything is created.
  const secretKey = secretKeySource(opts.dataDir, opts);
  const given = givenKey(secretKey, (w) => warnings.push(w));
  prepareDataDir(opts.dataDir);
  const store = openStore(opts.dataDir, opts.store, opts.storeStatementTimeoutMs !== undefined ? { statementTimeoutMs: opts.storeStatementTimeoutMs } : {});
  const password = passwordReveal(opts.dataDir, passwordOutput(opts));
  const control = controlEnabled(opts);
  // The control interface's clock follows the wall clock until a test freezes it.
  const scheduler = opts.scheduler ?? (control ? new ControlledScheduler() : undefined);
  const opened = await openDomain(catalogWithOperations, store, {
    log,
    adminUser: opts.adminUser ?? process.env.APPSERVER_ADMIN_USER,
    adminPassword: opts.adminPassword ?? process.env.APPSERVER_ADMIN_PASSWORD,
    listenAddress: opts.host,
    listenPort: opts.port,
    secretKey,
    givenKey: given,
    revealPassword: password.reveal,
    archiveDir: opts.dataDir,
    ...(opts.template ? { template: opts.template } : {}),
    ...(opts.productVersion ? { productVersion: opts.productVersion } : {}),
    ...(scheduler ? { scheduler } : {}),
    ...(opts.timings ? { timings: opts.timings } : {}),
    ...(opts.portOffset ? { portOffset: opts.portOffset } : {}),
    ...(opts.sessionLimits ? { sessionLimits: opts.sessionLimits } : {}),
    ...(opts.auditRetentionMs !== undefined ? { auditRetentionMs: opts.auditRetentionMs } : {}),
  });
  // The data sources of the running servers reach their databases from now on.
  opened.domain.runtime.dataSources.start();
  // The control interface is for tests: a server without it does not load it.
  const controller = control ? new (await import('../control/control.js')).Control(opened.domain, clockControlOf(opened.domain.clock)) : undefined;
  const stats = new RequestStats();
  const composed = composeApi({
    catalog: opened.domain.catalog,
    domain: opened.domain,
    stats,
    dataDir: opts.dataDir,
    dataDirWarnings: () => permissionWarnings(opts.dataDir),
    ...(opts.watch ? { watch: opts.watch } : {}),
    ...(opts.readCache ? { readCache: opts.readCache } : {}),
  });
  return {
    domain: opened.domain,
    api: composed.api,
    stats,
    metrics: composed.metrics,
    watch: composed.watch,
    backup: composed.backup,
    warnings,
    ...(controller ? { control: controller } : {}),
    passwordMessage: password.message,
    signIn: signInHint(opened.created, opened.adminUser, password.where(), opts.adminPassword === undefined && process.env.APPSERVER_ADMIN_PASSWORD !== undefined),
    close: async () => {
      await composed.close();
      await opened.domain.close();
    },
  };
}

/** How long a stopping server lets requests in flight finish, by default (ms). */
export const DEFAULT_STOP_TIMEOUT_MS = 20_000;
/** Why a task still running when its server stopped failed. */
const STOPPED_TASK = 'Server stopped: the server running this task was stopped before the task completed; run the operation again.';

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  // A mistyped proxy address or log level is reported before anything is opened.
  const trustProxy = parseTrustedProxies(opts.trustProxy ?? []);
  const log = makeLogger(opts.logLevel ?? 'info', opts.logFormat ?? 'json');
  const open = await openManagement(opts, log);
  const { stats, warnings } = open;
  const uploadDir = join(opts.dataDir, 'applications');
  // Connections that never carried a request (clients open spare ones, for example after a watch
  // ends): a stopping server closes them rather than wait for them to time out.
  const unused = new Set<Socket>();
  const runtime = open.domain.runtime;
  const certificate = certificateSource(opts.dataDir);
  // The same interface on the plain port and, while it is open, on the administration port.
  const appDeps = { api: open.api, stats, metrics: open.metrics, watch: open.watch, backup: open.backup, uploadDir, ...(open.control ? { control: open.control } : {}) };
  const appOptions: AppOptions = {
    logger: log,
    trustProxy,
    ...(opts.uploads ? { uploads: opts.uploads } : {}),
    ...(opts.maxEventLoopDelay !== undefined ? { maxEventLoopDelay: opts.maxEventLoopDelay } : {}),
    ...opts.requests,
  };
  let app;
  try {
    app = await buildApp(appDeps, { ...appOptions, managementElsewhere: () => managementAddress(runtime, runtime.adminServerName) });
    app.server.on('connection', (socket) => {
      stats.openConnections++;
      unused.add(socket);
      socket.once('close', () => {
        stats.openConnections--;
        unused.delete(socket);
      });
    });
    app.server.on('request', (req: IncomingMessage) => unused.delete(req.socket));
    await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    await app?.close().catch(() => undefined);
    await open.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  // The administration server's runtime (defaultURL, channels) names the port it is reached on.
  open.domain.runtime.setAdminListenPort(port);
  const adminPort = new AdminPortListener(runtime, (https) => buildApp(appDeps, { ...appOptions, https, secondPort: true }), certificate, opts.host, log);
  await adminPort.follow();
  const listeners = opts.listeners === false ? undefined : managedListeners(open, opts, log, trustProxy, certificate);
  // Servers that were running when the process stopped listen again before it says it is ready.
  await listeners?.reconcile();
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${host}:${port}/management/appserver/latest`;
  warnings.push(...permissionWarnings(opts.dataDir));
  if (!opts.quiet) {
    for (const w of warnings) process.stderr.write(`appserver-admin: warning: ${w}\n`);
    const out = process.stdout;
    const admin = open.passwordMessage();
    if (admin) out.write(`Created a new domain in ${opts.dataDir}. ${admin}\n`);
    out.write(`appserver-admin listening on ${url}\n`);
    out.write(`  console at http://${host}:${port}/console/ (${open.signIn})\n`);
    const administration = adminPort.url();
    if (administration) out.write(`  administration port enabled: management requests and the console are served at ${administration} only\n`);
    if (open.control) out.write(`  control interface (faults, clock, snapshots, journal) at http://${host}:${port}/management/appserver-control\n`);
    out.write(`  data directory ${opts.dataDir}, store ${open.domain.store.description}, domain ${open.domain.topology().domainName}\n`);
    const running = listeners?.listening() ?? [];
    if (listeners) out.write(`  managed servers listen on their own ports${opts.portOffset ? ` shifted by ${opts.portOffset}` : ''}${running.length > 0 ? ` (listening: ${running.join(', ')})` : ''}\n`);
    else out.write('  managed servers do not listen on ports of their own (--no-listeners)\n');
  }
  return {
    url,
    port,
    domain: open.domain,
    api: open.api,
    warnings,
    ...(open.control ? { control: open.control } : {}),
    listening: () => listeners?.listening() ?? [],
    close: async () => {
      const grace = opts.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
      const log = open.domain.log;
      log.info({ stopTimeoutMs: grace }, `stopping: no new requests are taken; those in flight have ${grace / 1000} s to finish`);
      await listeners?.close();
      await adminPort.close();
      // Listening ends at once; requests that come on open connections are answered 503.
      const closing = app.close();
      for (const socket of unused) socket.destroy();
      let cut = false;
      const timer = setTimeout(() => {
        cut = true;
        app.server.closeAllConnections();
      }, grace);
      await closing;
      clearTimeout(timer);
      if (cut) log.warn({ stopTimeoutMs: grace }, `stopping: requests still in flight after ${grace / 1000} s were cut off`);
      // Tasks this server was running end now, as failed, so nothing shows them running forever.
      const ended = await open.domain.endRunningTasks(STOPPED_TASK).catch(() => 0);
      if (ended > 0) log.info({ tasks: ended }, `stopping: ${ended} running task${ended === 1 ? '' : 's'} marked failed`);
      await open.close();
      log.info({}, 'stopped');
    },
  };
}

/** The address of a server's administration port while its administration channel is open. */
function managementAddress(runtime: RuntimeEngine, server: string): string | undefined {
  if (!runtime.administrationChannelOpen(server)) return undefined;
  const endpoints = runtime.endpoints(server);
  const administration = endpointOf(endpoints, 'administration');
  return administration ? `https://${endpoints.host}:${administration.port}` : undefined;
}

/** The listeners of the running managed servers, following their states; the start gate of their lifecycles. */
function managedListeners(open: OpenManagement, opts: ServerOptions, log: Logger, trustProxy: readonly string[], certificate: () => Promise<Certificate>): ServerListeners {
  const { domain, api } = open;
  const connections = new ManagedConnections({ ...DEFAULT_CONNECTION_LIMITS, ...opts.managedConnections });
  const limit = opts.managedHost ?? opts.host;
  const opener = (endpoints: ServerEndpoints) =>
    openServerListeners({ ...endpoints, bindAddress: boundedBindAddress(endpoints, limit) }, {
      connections,
      api,
      stats: new RequestStats(),
      uploadDir: join(opts.dataDir, 'applications'),
      served: (received, sent) => domain.runtime.served.count(endpoints.server, received, sent),
      ...(open.control ? { latency: () => open.control!.faults.serverLatency(endpoints.server) } : {}),
      certificate,
      managementElsewhere: () => managementAddress(domain.runtime, endpoints.server),
      // One line per server says where it listens (below); Fastify's own line per port is for debugging.
      logger: log.child({ server: endpoints.server }, { level: log.isLevelEnabled('debug') ? log.level : 'warn' }),
      trustProxy,
      ...(opts.maxEventLoopDelay !== undefined ? { maxEventLoopDelay: opts.maxEventLoopDelay } : {}),
      ...(opts.requests ? { requests: opts.requests } : {}),
    });
  const listeners = new ServerListeners(domain.runtime, opener, {
    log: domain.log,
    ...(domain.store.shared ? { leases: { store: domain.store, instance: domain.instance, aliveSince } } : {}),
    ...(opts.leaseCheckMs !== undefined ? { leaseCheckMs: opts.leaseCheckMs } : {}),
  });
  domain.lifecycles.startGate = (server) => listeners.open(server);
  return listeners;
}

/** A domain made from elsewhere (an import): its configuration, first administrator and what follows creation. */
export interface DomainSource {
  /** Builds the configuration once the domain's key is known. */
  build: (secrets: Secrets) => BeanTree;
  adminUser?: string;
  adminPassword?: string;
  /** Runs on the new domain before it is closed (users and groups of an import). */
  after?: (domain: Domain) => Promise<void>;
}

/** Creates a data directory holding a generated or imported domain (refuses one that already holds a domain). */
export async function initDataDir(
  dataDir: string,
  template: DomainSize | DomainSource,
  storeUrl?: string,
  opts: { secretKeyFile?: string; passwordOutput?: 'terminal' | 'file'; productVersion?: string } = {},
): Promise<{ adminUser?: string; generatedPassword?: string; message?: string; warnings: string[] }> {
  const warnings: string[] = [];
  const secretKey = secretKeySource(dataDir, opts);
  const given = givenKey(secretKey, (w) => warnings.push(w));
  prepareDataDir(dataDir);
  const store = openStore(dataDir, storeUrl);
  let exists: boolean;
  try {
    await store.open();
    exists = (await store.getMeta('created')) !== undefined;
  } finally {
    await store.close();
  }
  if (exists) throw new Error(`${storeUrl ? store.description : dataDir} already holds a domain`);
  const source = 'build' in template ? template : undefined;
  const password = passwordReveal(dataDir, opts.passwordOutput ?? passwordOutput({}));
  const opened = await openDomain(catalogWithOperations, openStore(dataDir, storeUrl), {
    adminUser: source?.adminUser ?? process.env.APPSERVER_ADMIN_USER,
    adminPassword: source?.adminPassword ?? process.env.APPSERVER_ADMIN_PASSWORD,
    listenAddress: '127.0.0.1',
    listenPort: 7001,
    template: source ? source.build : (template as DomainSize),
    ...(opts.productVersion !== undefined ? { productVersion: opts.productVersion } : {}),
    secretKey,
    givenKey: given,
    revealPassword: password.reveal,
  });
  try {
    await source?.after?.(opened.domain);
  } finally {
    await opened.domain.close();
  }
  warnings.push(...permissionWarnings(dataDir));
  const message = password.message();
  return {
    ...(opened.adminUser ? { adminUser: opened.adminUser } : {}),
    ...(opened.generatedPassword ? { generatedPassword: opened.generatedPassword } : {}),
    ...(message ? { message } : {}),
    warnings,
  };
}
