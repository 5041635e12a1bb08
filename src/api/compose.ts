// Builds the management API over an open domain: the resolver and renderer, the trees, the writers
// of the trees that take changes, the operations and their services, the searcher, the audit
// recorder, and the log files of the data directory. The composition root (src/cli/server.ts)
// calls it once; tests call it to use the API in-process.
import type { Catalog } from '../catalog/load.js';
import { join } from 'node:path';
import { DEPLOYABLE_COLLECTIONS, KeptArchives } from '../runtime/archives/kept.js';
import type { ChangeSummary } from '../config/config-service.js';
import { lifecycleOperations } from '../catalog/overlay/lifecycle.js';
import type { Domain } from '../domain/domain.js';
import { RuntimeCollections } from '../operations/collections.js';
import { DataFiles } from '../operations/data-files.js';
import type { OperationServices } from '../operations/define.js';
import { OperationExecutor } from '../operations/executor.js';
import { COLLECTIONS, OPERATIONS } from '../operations/index.js';
import { Renderer } from '../render/entity.js';
import { Searcher } from '../render/search.js';
import type { RequestStats } from '../runtime/live.js';
import { LogFiles } from '../runtime/logs.js';
import { AdminMetrics } from '../metrics/admin.js';
import { Resolver } from '../tree/resolve.js';
import { LifecycleWriter } from './lifecycle-writer.js';
import { ManagementApi, referencedArchives } from './management-api.js';
import { DEFAULT_READ_CACHE, ReadCache, type ReadCacheLimits } from './read-cache.js';
import { Recorder } from './recorder.js';
import { Trees } from './trees.js';
import { EditWriter } from './writers.js';
import { WatchApi } from './watch-api.js';
import { BackupApi } from './backup-api.js';
import { WatchHub, type WatchLimits } from '../watch/hub.js';
import { DEFAULT_WINDOW, WatchJournal } from '../watch/journal.js';
import { connectSources } from '../watch/sources.js';

export interface ApiDependencies {
  /** The catalog with its operations (`catalogWithOperations()`). */
  catalog: Catalog;
  domain: Domain;
  /** Request counters the HTTP adapter feeds (the administration server's own figures). */
  stats: RequestStats;
  /** The data directory: operations keep their files (logs, security data exports...) in it. */
  dataDir: string;
  /** What is wrong with the data directory's permissions, looked at afresh. */
  dataDirWarnings: () => string[];
  /** Limits of watches, and how many journal events are kept for watchers that resume. */
  watch?: Partial<WatchLimits> & { window?: number };
  /** Bounds of the read cache (default: 64 MiB in all, 8 MiB per answer; maxBytes 0 keeps nothing). */
  readCache?: Partial<ReadCacheLimits>;
}

export interface ComposedApi {
  api: ManagementApi;
  /** The server's own figures, for /metrics. */
  metrics: AdminMetrics;
  /** Watches of the domain's changes. */
  watch: WatchApi;
  /** Backups taken while the server runs. */
  backup: BackupApi;
  /** Ends the watches, writes what the journal and the log files still hold (when the server stops). */
  close(): Promise<void>;
}

/** How old an archive nothing names must be before a server sharing its store removes it. */
const ARCHIVE_GRACE_MS = 60_000;

export function composeApi(deps: ApiDependencies): ComposedApi {
  const { catalog, domain } = deps;
  const resolver = new Resolver(catalog, domain.behaviours);
  const renderer = new Renderer(resolver);
  const trees = new Trees(catalog, domain, deps.stats);
  // The log files of the data directory: servers' state changes, the domain's audit trail.
  const logs = new LogFiles(deps.dataDir, domain.scheduler);
  const logged = domain.runtime.onServerState;
  domain.runtime.onServerState = (server, state) => {
    logged(server, state);
    logs.server(server).write('Notice', 'ServerLifeCycle', `Server state changed to ${state}.`);
  };
  // Every audit record is logged too (failed logins with the user name tried, never a password).
  domain.security.audit.onRecord = (record) => {
    domain.log.info({ audit: record }, 'audit');
    const who = record.user ?? 'the server';
    logs.domain(domain.topology().domainName).write(record.outcome === 'success' ? 'Info' : 'Notice', 'Audit', `${who} ${record.action} ${record.bean}: ${record.outcome}${record.detail ? `. ${record.detail}` : ''}`);
  };
  domain.security.audit.onError = (err, entry) => domain.log.error({ err, audit: entry }, 'audit record not stored');
  domain.security.onError = (err) => domain.log.error({ err }, 'failed login not counted');
  const services: OperationServices = {
    catalog,
    resolver,
    config: domain.configService,
    engine: domain.runtime,
    lifecycles: domain.lifecycles,
    tasks: domain.tasks,
    deployments: domain.deployments,
    security: domain.security,
    scheduler: domain.scheduler,
    logs,
    files: new DataFiles(deps.dataDir),
    domainRuntime: () => trees.root('domainRuntime', {}),
    dataDirWarnings: deps.dataDirWarnings,
    refusable: (action, tasksOf) => domain.refusable(action, tasksOf),
  };
  // The Lifecycle Manager's actions are its tree writer's; every other one is an operation's.
  const operations = new OperationExecutor(catalog, OPERATIONS, renderer, services, lifecycleOperations);
  // Reads answered before, forgotten at every change of the domain.
  const cache = new ReadCache({ ...DEFAULT_READ_CACHE, ...deps.readCache }, { now: () => domain.scheduler.now(), served: () => domain.runtime.served.total });
  domain.changes.listen(() => cache.clear());
  // Uploaded archives no deployment names any more (undeployed, or left by an earlier run) are removed
  // whenever an activation adds or removes deployments.
  const archives = new KeptArchives(join(deps.dataDir, 'applications'));
  const sweepArchives = (opts: { olderThan?: number } = {}) => {
    try {
      archives.sweep(referencedArchives(domain), opts);
    } catch (err) {
      domain.log.warn({ err }, 'unused application archives not removed');
    }
  };
  // At start-up too: a process killed between keeping an upload and activating its deployment left
  // an archive nothing names. Servers sharing a store may share the folder: there, only archives
  // older than a minute go at once (another server's deployment in the making is seconds old), and
  // those older than this start a minute later.
  const started = Date.now();
  sweepArchives(domain.store.shared ? { olderThan: started - ARCHIVE_GRACE_MS } : {});
  const laterSweep = domain.store.shared ? setTimeout(() => sweepArchives({ olderThan: started }), ARCHIVE_GRACE_MS) : undefined;
  laterSweep?.unref();
  domain.configService.onActivation((result) => {
    if (result.changes.some(namesOtherArchives)) sweepArchives();
  });
  const api = new ManagementApi({
    catalog,
    domain,
    resolver,
    renderer,
    trees,
    writers: { edit: new EditWriter(catalog, domain.configService, domain.behaviours), lifecycle: new LifecycleWriter(domain.lifecycle) },
    operations,
    collections: new RuntimeCollections(COLLECTIONS, services),
    searcher: new Searcher(resolver, renderer),
    recorder: new Recorder(domain.security.audit),
    cache,
    archives,
  });
  const metrics = new AdminMetrics({
    tasks: () => domain.tasks.all(),
    editLocksHeld: () => domain.configService.allSessions().filter((s) => s.info.owner !== null).length,
    runningServers: () => domain.runtime.runningServers().length,
  });
  domain.configService.onActivation((result) => {
    if (!result.remote) metrics.activated();
  });
  // The watch journal: this server's changes, in the store; the hub follows it for this server's watchers.
  const { window, ...limits } = deps.watch ?? {};
  const journal = new WatchJournal(domain.store, domain.log, window ?? DEFAULT_WINDOW);
  connectSources(journal, { configService: domain.configService, persistence: domain.persistence, onRestored: (fn) => domain.onRestored(fn) });
  const hub = new WatchHub(domain.store, domain.log, limits, journal.window);
  journal.onWritten = () => hub.wake();
  return {
    api,
    metrics,
    watch: new WatchApi(hub, deps.catalog.productVersion),
    backup: new BackupApi(domain, deps.dataDir),
    close: async () => {
      clearTimeout(laterSweep);
      hub.close();
      logs.flushAll();
      await domain.flush();
      await journal.flush();
    },
  };
}

/**
 * Whether a change may leave an archive no deployment names: a deployment (or library) made or
 * removed, or its source or plan path changed. Other changes of a deployment (its targets, on a
 * domain of fifty thousand) leave the archives as they are, and cost no look at every deployment.
 */
function namesOtherArchives(c: ChangeSummary): boolean {
  if (!DEPLOYABLE_COLLECTIONS.some((collection) => c.identity[0] === collection)) return false;
  if (c.identity.length !== 2) return c.identity.length < 2;
  return c.operation !== 'modify' || c.properties === undefined || c.properties.some((p) => p.name === 'sourcePath' || p.name === 'planPath');
}
